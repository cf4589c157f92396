"""The project's graph files, run by a server standby before it is told to go.

Live reload tells the waiting server (`local.standby`) to ``load`` as its graph check
starts: the standby then runs each graph file of ``langgraph.json`` here, while the check
runs and the old server shuts down, and langgraph-api later takes the module from
``sys.modules`` (`upstream.share_graph_files`) instead of running the file again.

The graph check runs the same files at the same moment in a process of its own, so they
already run beside the old server. What langgraph-api sets up before it loads the graphs
is not there yet, so a file that imports langgraph-api or its runtime here is refused
(the runtime loads its data files when imported, which the old server is still saving):
that file, and any file that fails here, is left to langgraph-api to run, as without
this. A file that changes after the ``load`` is seen by the watcher, and reloads again.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.util
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from agent_tui.local.langgraph_config import (
    LangGraphConfig,
    LangGraphConfigError,
    load_langgraph_config,
)

PRELOADED: dict[str, str] = {}
"""A graph file's real path -> the name of its module in ``sys.modules``."""

NOT_YET = ("langgraph_api", "langgraph_runtime")
"""Top-level packages a graph file may not import here (see the module docstring)."""


def add_project_paths(config: LangGraphConfig) -> None:
    """As `langgraph dev` does with its working folder: the project folder and its local
    dependency folders are importable."""
    for folder in [config.folder, *config.dependencies]:
        if str(folder) not in sys.path:
            sys.path.append(str(folder))


def preload(config_path: Path) -> None:
    """Run each graph file ``config_path`` names, once; never raises."""
    try:
        config = load_langgraph_config(config_path)
    except LangGraphConfigError:
        return  # the server says why when it starts
    add_project_paths(config)
    for spec in config.graphs.values():
        location = _ref(spec).rpartition(":")[0]
        # langgraph-api's own test: a reference with a slash is a file, else a module.
        if "/" not in location:
            _import(location)
        elif os.path.realpath(location) not in PRELOADED:
            _run_file(location)


def _ref(spec: Any) -> str:
    return str(spec.get("path", "") if isinstance(spec, dict) else spec)


def _import(module: str) -> None:
    # langgraph-api imports it by name: then from ``sys.modules``.
    if module and module not in sys.modules:
        with contextlib.suppress(Exception), _refused(NOT_YET):
            importlib.import_module(module)


def _run_file(location: str) -> None:
    # The name langgraph-api gives the module (its loggers are named after it).
    name = location.replace("/", "__").replace(".py", "").replace(" ", "_").lstrip(".")
    module_spec = importlib.util.spec_from_file_location(name, location)
    if module_spec is None or module_spec.loader is None or name in sys.modules:
        return
    module: ModuleType = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        with _refused(NOT_YET):
            module_spec.loader.exec_module(module)
    except BaseException:  # langgraph-api runs it again, and reports it
        sys.modules.pop(name, None)
        return
    PRELOADED[os.path.realpath(location)] = name


class _Refuse(importlib.abc.MetaPathFinder):
    def __init__(self, packages: Sequence[str]) -> None:
        self.packages = tuple(packages)

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> None:
        if fullname.split(".")[0].startswith(self.packages):
            raise ImportError(f"{fullname} is imported once the server is set up")


@contextlib.contextmanager
def _refused(packages: Sequence[str]) -> Iterator[None]:
    refuse = _Refuse(packages)
    sys.meta_path.insert(0, refuse)
    try:
        yield
    finally:
        sys.meta_path.remove(refuse)
