"""The Starlette app langgraph-api's ``http.app`` setting names (``agent_tui.server.app:app``).

langgraph-api imports it once its config is set, inside the server, before its runtime
loads its files, puts its middleware outside (or, with ``middleware_order: auth_first``,
inside the authentication of) every route, and runs its lifespan after its own start. It
has the middleware and lifespan of `records`; no routes of its own.

A project that names its own ``http.app`` keeps it: `durable_options` moves the project's
setting to ``AGENT_TUI_PROJECT_APP``, and the app served is the project's, loaded as
langgraph-api loads one (``path/to/file.py:name`` or ``package.module:name``), with our
middleware first in its list and our lifespan around its own (public Starlette API).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware

from agent_tui.server import upstream
from agent_tui.server.names import PROJECT_APP, VOLATILE
from agent_tui.server.records import (
    SAVER,
    WAKEUP,
    SaveBeforeAnswer,
    creates_run,
    lifespan,
    restore,
)


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


def durable(served: Starlette) -> Starlette:
    """``served`` with `SaveBeforeAnswer` first and `records.lifespan` around its own."""
    served.user_middleware.insert(0, Middleware(SaveBeforeAnswer))
    own = served.router.lifespan_context

    @contextlib.asynccontextmanager
    async def both(app: Any) -> AsyncIterator[Any]:
        async with lifespan(app), own(app) as state:
            yield state

    served.router.lifespan_context = both
    return served


class WakeOnRun:
    """ASGI middleware of ``--volatile`` (benchmarks): nothing saved, runs started at once as
    on the durable server, so the two compare the saving alone."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not creates_run(scope["method"], scope["path"]):
            await self.app(scope, receive, send)
            return

        async def wake_on_answer(message: Any) -> None:
            if message["type"] == "http.response.start":
                WAKEUP.set()  # the run is in the queue by the time its answer starts
            await send(message)

        await self.app(scope, receive, wake_on_answer)


_gone = upstream.missing_after_start()
if _gone:
    raise RuntimeError(f"langgraph-api changed: {', '.join(_gone)} not found")
upstream.wake_queue_on(WAKEUP)
if os.environ.get(VOLATILE) == "1":
    app = Starlette(middleware=[Middleware(WakeOnRun)])
else:
    restore(upstream.runtime_files())
    upstream.around_each_run(SAVER.soon_from_any_thread)
    _project = os.environ.get(PROJECT_APP)
    app = durable(load_project_app(_project) if _project else Starlette())
