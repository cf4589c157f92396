"""A thread's traces in its export file, and back (`agent-tui export --traces`, `import`).

The export holds the runs of every trace of the thread as the store keeps them (already
redacted), oldest first, under the optional key ``traces`` (`docs/export-format.md`). An
import stores them again for the new thread: each run gets a new id (so importing one
file twice keeps both copies, and a copy never overwrites the original), its trace,
parent and dotted order follow, and its metadata names the new thread.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from agent_tui.traces import json_codec
from agent_tui.traces.store import TraceStore


class TracesFormatError(ValueError):
    """The ``traces`` of an export file are not runs this version can store."""


def thread_runs(store: TraceStore, thread_id: str) -> list[dict[str, Any]]:
    """Every run of the thread's traces, as stored, in order."""
    with store.reading() as db:
        bodies = db.execute(
            "SELECT body FROM runs JOIN run_bodies USING (id) WHERE trace_id IN"
            " (SELECT DISTINCT trace_id FROM runs WHERE thread_id = ?)"
            " ORDER BY dotted_order",
            (thread_id,),
        ).fetchall()
    return [json_codec.loads(body) for (body,) in bodies]


def checked_runs(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise TracesFormatError("traces: a list of runs is needed")
    for number, run in enumerate(value):
        if not isinstance(run, dict) or not isinstance(run.get("id"), str) or not run["id"]:
            raise TracesFormatError(f"traces[{number}]: a run with an id is needed")
    return value


def rebased_runs(runs: Sequence[dict[str, Any]], thread_id: str) -> list[dict[str, Any]]:
    """``runs`` with new ids throughout, belonging to ``thread_id``."""
    new_ids: dict[str, str] = {}

    def new_id(old: Any) -> Any:
        if not isinstance(old, str) or not old:
            return old
        return new_ids.setdefault(old, str(uuid.uuid4()))

    for run in runs:
        new_id(run["id"])
    rebased = []
    for run in runs:
        copy = dict(run)
        copy["id"] = new_id(run["id"])
        for key in ("trace_id", "parent_run_id"):
            if copy.get(key) is not None:
                copy[key] = new_id(copy[key])
        dotted = copy.get("dotted_order")
        if isinstance(dotted, str):
            for old, new in new_ids.items():
                dotted = dotted.replace(old, new)
            copy["dotted_order"] = dotted
        extra = copy.get("extra")
        if isinstance(extra, dict) and isinstance(extra.get("metadata"), dict):
            metadata = dict(extra["metadata"])
            metadata["thread_id"] = thread_id
            if "run_id" in metadata:
                metadata["run_id"] = new_id(metadata["run_id"])
            copy["extra"] = {**extra, "metadata": metadata}
        rebased.append(copy)
    return rebased


def store_runs(store: TraceStore, runs: Sequence[dict[str, Any]]) -> int:
    """Store whole runs (redacted again on the way in); how many."""
    return store.ingest(("post", run) for run in runs)
