"""Every private name of langgraph-api or langgraph-runtime-inmem this package
touches, each with its reason. Nothing else in `agent_tui.server` reaches past the public
settings (``checkpointer``, ``store``, ``http.app``) and ``langgraph_api.cli.run_server``.

`missing()` names what is gone or changed upstream; the server refuses to start durable
without it, and a test runs it against each supported version.

1. ``langgraph_runtime_inmem._persistence._stores``: the runtime's registry of the
   dictionaries it saves (threads, runs, assistants, crons; retry counts; its store's
   items). We save them ourselves before an answer acknowledges a change.
2. ``langgraph_runtime_inmem._persistence.stop_flush_loop``: the runtime's own writer (a
   thread saving the same dictionaries to the same files every 10 s) is stopped, so two
   writers never race on one file (they share the temporary file name).
3. ``langgraph_runtime_inmem.ops.Runs.next``: the queue polls for new runs every 0.5 s;
   replaced by a wait on an event set when a request that creates a run is answered
   (runs start at once rather than 0.5-1 s later). Latency only, not durability.
4. ``langgraph_api.worker.worker``: wrapped to save soon after a run ends, when no
   request is being answered (a background run's status; a cron's run). Without it a
   run that ended in the background is re-run after a crash.
5. The runtime's record layout: its ``runs`` are a list of dictionaries with ``status``
   and ``updated_at`` (the file `records.restore` writes for it to load). A run saved as
   ``running`` was cut off by a crash (no worker runs before the runtime loads its
   files). langgraph-runtime-inmem 0.36 puts such runs back in the queue itself
   (``database.start_pool``); 0.34 and 0.35 leave them running for ever, and their
   threads take no other run. `requeue_cut_off_runs` does it for those. A run that has
   ended (``success``, ``error``, ``timeout``: set once, by its worker, at its end) is
   never changed in place again, only deleted (`run_has_ended`); ``interrupted`` is not
   such an end (a cancel sets it while the worker may still set its own). A save does
   not compare those again (`record_table`), so it costs what may still change.
6. ``langgraph_api.graph._graph_from_spec`` (one ``GraphSpec``, a ``NamedTuple``): it runs
   a graph's file each time a graph names it (six graphs of one file: six runs at each
   start, 0.1-0.4 s each with real packages). Wrapped so a file runs once per process: the
   next graph of the same file is loaded by the module name the first load registered
   (``spec.module``, its public other form), and only if that fails the file runs again,
   as upstream does (its own error, as before). Where the name is gone or changed, each
   graph runs its file, as upstream does (`share_graph_files` says False). Speed only.
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

from agent_tui.server.names import OPS_FILE
from agent_tui.server.supported import series

Saveable = Any
"""A ``langgraph.checkpoint.memory.PersistentDict`` (public langgraph-checkpoint class):
``filename``, and a plain ``dict`` of its contents."""


def missing() -> list[str]:
    """What this module needs and the installed versions lack (empty: all there)."""
    gone = []
    try:
        from langgraph_runtime_inmem import _persistence
    except ImportError:
        return ["langgraph_runtime_inmem._persistence"]
    if not isinstance(getattr(_persistence, "_stores", None), dict):
        gone.append("_persistence._stores")
    if not callable(getattr(_persistence, "stop_flush_loop", None)):
        gone.append("_persistence.stop_flush_loop")
    from langgraph_runtime_inmem.ops import Runs

    if list(inspect.signature(Runs.next).parameters) != ["wait", "limit"]:
        gone.append("ops.Runs.next(wait, limit)")
    return gone


def missing_after_start() -> list[str]:
    """As `missing`, for the names importable only once ``run_server`` has set the
    environment langgraph-api's config reads at import."""
    from langgraph_api import worker
    from langgraph_runtime_inmem import database

    gone = []
    if not inspect.iscoroutinefunction(getattr(worker, "worker", None)):
        gone.append("langgraph_api.worker.worker")
    if not str(getattr(database, "OPS_FILENAME", "")).endswith(OPS_FILE):
        gone.append(f"database.OPS_FILENAME ({OPS_FILE})")
    return gone


def runtime_stores() -> list[Saveable]:
    """(1) The dictionaries the runtime would save, in its registry's order."""
    from langgraph_runtime_inmem import _persistence

    # Weak references: None once gone.
    return [kept for ref in list(_persistence._stores.values()) if (kept := ref()) is not None]


def stop_runtime_writer() -> None:
    """(2) Stop the runtime's 10 s writer thread (joined: no write of its own follows)."""
    from langgraph_runtime_inmem import _persistence

    _persistence.stop_flush_loop()


ENDED_RUN_STATUSES = frozenset({"success", "error", "timeout"})


def run_has_ended(run: Any) -> bool:
    """(5) A run record the runtime will not change in place again."""
    return run.get("status") in ENDED_RUN_STATUSES


def records_that_end(filename: str) -> dict[str, Callable[[Any], bool]]:
    """(5) For the runtime's file `filename`: per list, which records no longer change."""
    return {"runs": run_has_ended} if filename.endswith(OPS_FILE) else {}


RUNTIMES_LEAVING_CUT_OFF_RUNS = frozenset({"0.34", "0.35"})
"""The langgraph-runtime-inmem series that leave cut-off runs running (5); later ones
requeue them themselves."""


def requeue_cut_off_runs(records: dict[Any, Any]) -> list[str]:
    """(5) The runs of ``records`` (the runtime's saved dictionary, before it loads it)
    left ``running`` become ``pending`` again, as 0.36 does at start, unless the installed
    runtime does it itself. Returns their ids."""
    runs = records.get("runs")
    runtime = series(metadata.version("langgraph-runtime-inmem"))
    if not isinstance(runs, list) or runtime not in RUNTIMES_LEAVING_CUT_OFF_RUNS:
        return []
    cut_off = [run for run in runs if isinstance(run, dict) and run.get("status") == "running"]
    for run in cut_off:
        run.update(status="pending", updated_at=datetime.now(UTC))
    return [str(run.get("run_id")) for run in cut_off]


def wake_queue_on(wakeup: Callable[[float], Awaitable[None]]) -> None:
    """(3) The queue's idle poll (0.5 s) ends as soon as ``wakeup(0.5)`` returns."""
    from langgraph_runtime_inmem.ops import Runs

    original = Runs.next

    async def next_run(wait: bool, limit: int = 1) -> AsyncIterator[Any]:
        if wait:
            await wakeup(0.5)
        async for item in original(False, limit):
            yield item

    Runs.next = staticmethod(next_run)


def after_each_run(hook: Callable[[], None]) -> None:
    """(4) ``hook()`` when a run ends (a run cut off after it started runs again either
    way: saved ``pending``, it is still in the queue; saved ``running``, see (5))."""
    from langgraph_api import worker

    original = worker.worker

    async def run_worker(*args: Any, **kwargs: Any) -> Any:
        try:
            return await original(*args, **kwargs)
        finally:
            hook()

    worker.worker = run_worker


def graph_files_shareable() -> bool:
    """(6) Whether the installed langgraph-api loads graphs as `share_graph_files` needs
    (importable once ``run_server`` has set langgraph-api's environment)."""
    from langgraph_api import graph

    load, spec = getattr(graph, "_graph_from_spec", None), getattr(graph, "GraphSpec", None)
    return (
        callable(load)
        and list(inspect.signature(load).parameters) == ["spec"]
        and {"module", "path"} <= set(getattr(spec, "_fields", ()))
    )


def share_graph_files(preloaded: dict[str, str] | None = None) -> bool:
    """(6) From now on a graph file runs once in this process, however many graphs it
    holds, and not at all if ``preloaded`` (its real path -> its module's name in
    ``sys.modules``) has it; False (nothing changed) where langgraph-api does not load
    graphs as expected."""
    from langgraph_api import graph

    if not graph_files_shareable():
        return False
    original = graph._graph_from_spec
    loaded = dict(preloaded or {})
    """A graph file's real path -> the name its module has in ``sys.modules``."""

    def load_graph(spec: Any) -> Any:
        if spec.module or not spec.path:
            return original(spec)
        path = os.path.realpath(spec.path)
        name = loaded.get(path)
        if name is not None and name in sys.modules:
            try:
                return original(spec._replace(module=name, path=None))
            except Exception:  # upstream's own load says what is wrong, as it would have
                return original(spec)
        before = set(sys.modules)
        value = original(spec)
        for new in set(sys.modules) - before:
            file = getattr(sys.modules.get(new), "__file__", None)
            same = isinstance(file, str) and os.path.basename(file) == os.path.basename(path)
            if same and os.path.realpath(str(file)) == path:
                loaded[path] = new
                break
        return value

    graph._graph_from_spec = load_graph
    return True
