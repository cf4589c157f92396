"""A project's own ``http.app``, served by `app` with agent-tui's middleware added."""

from __future__ import annotations

import importlib
import importlib.util
import os

from starlette.applications import Starlette


def load_project_app(ref: str) -> Starlette:
    """The project's app, as langgraph-api's ``load_custom_app`` finds it."""
    path, name = ref.rsplit(":", 1)
    if os.path.isfile(path) or path.endswith(".py"):
        spec = importlib.util.spec_from_file_location("user_router_module", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"Cannot load spec from {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(path)
    found = getattr(module, name)
    if not isinstance(found, Starlette):
        raise TypeError(f"http.app {ref!r} is not a Starlette or FastAPI application")
    return found
