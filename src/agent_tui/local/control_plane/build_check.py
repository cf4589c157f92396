"""The BUILDING step, run in a child process: read the config and import every graph.

``python -m agent_tui.local.control_plane.build_check CONFIG`` prints one line per graph
and exits 0, or prints the reason and exits 1. A child process keeps a graph's import
side effects (and crashes) out of the control plane.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from agent_tui.local.langgraph_config import LangGraphConfigError, load_langgraph_config


def _load(ref: str) -> Any:
    location, _, name = ref.rpartition(":")
    if not location or not name:
        raise ValueError(f"{ref!r} is not 'module:variable' or 'path/to/file.py:variable'")
    if location.endswith(".py") or "/" in location:
        path = Path(location)
        if not path.is_file():
            raise FileNotFoundError(f"no such file: {path}")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(location)
    if not hasattr(module, name):
        raise AttributeError(f"{location} has no attribute {name!r}")
    return getattr(module, name)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: build_check CONFIG", file=sys.stderr)
        return 2
    try:
        config = load_langgraph_config(Path(argv[0]))
    except LangGraphConfigError as exc:
        print(f"invalid langgraph.json: {exc}")
        return 1
    for warning in config.warnings:
        print(f"warning: {warning}")
    os.environ.update({k: v for k, v in config.env.items() if k not in os.environ})
    for folder in reversed(config.dependencies):
        sys.path.insert(0, str(folder))
    failed = False
    for graph_id, spec in config.graphs.items():
        ref = spec["path"] if isinstance(spec, dict) else spec
        if ref.endswith((".js", ".ts", ".mjs", ".tsx")) or ".ts:" in ref or ".js:" in ref:
            print(f"graph {graph_id}: JavaScript graphs are not supported locally ({ref})")
            failed = True
            continue
        try:
            _load(ref)
        except Exception as exc:
            failed = True
            print(f"graph {graph_id}: cannot import {ref}: {type(exc).__name__}: {exc}")
            lines = traceback.format_exception(exc)
            print("".join(lines[-6:]).rstrip())
        else:
            print(f"graph {graph_id}: ok ({ref})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
