"""Thread export and import: a versioned JSON file, replayed on any server through supersteps.

Headless. The format is documented in `docs/export-format.md`; in short:

    {"format": "agent-tui.thread", "version": 1, "exported_at": "…",
     "source": {"url": …, "thread_id": …, "graph_id": …},
     "thread": {"thread_id", "status", "metadata", "created_at", "updated_at"},
     "checkpoints": [oldest first: {"checkpoint_id", "parent_checkpoint_id", "step",
                     "source", "writes", "writes_from", "as_node", "values", "next",
                     "interrupts", "created_at"}]}

Only the main lineage is exported: the thread's latest checkpoint and its ancestors (a
thread that was forked keeps other branches, which are left out).

`import_thread` sends one superstep per checkpoint whose updates are that checkpoint's
`writes` (one update per node that wrote), not its full `values`: supersteps go through
the graph's reducers, so re-sending a whole message list would append it again.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from agent_tui.client.capabilities import NotOffered
from agent_tui.client.errors import ApiError
from agent_tui.client.models import AssistantGraph, Thread, ThreadState
from agent_tui.text.escaping import escape_json_controls
from agent_tui.text.user_json import JsonTextError, parse_json
from agent_tui.text.value_diff import is_message_list
from agent_tui.threads.history import ThreadHistory
from agent_tui.threads.writes import INPUT_NODE, START_NODE, checkpoint_writes

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient

FORMAT = "agent-tui.thread"
VERSION = 1
END_NODE = "__end__"
IMPORTED_FROM = "imported_from"  # metadata key set on an imported thread

_TOP_KEYS = ("format", "version", "source", "thread", "checkpoints")
_CHECKPOINT_KEYS = ("checkpoint_id", "step", "writes", "values", "next")


class ExportError(ValueError):
    """An export or import that cannot be done as asked; the message says why."""


class ExportFormatError(ExportError):
    """A file that is not a thread export this version can read; the message says why."""


async def export_thread(
    client: AgentServerClient,
    thread_id: str,
    *,
    checkpoint_id: str | None = None,
    page_size: int = 500,
) -> dict[str, Any]:
    """The thread and one lineage of its history, oldest checkpoint first: the latest
    checkpoint's, or `checkpoint_id`'s (another branch of a forked thread)."""
    thread = await client.threads.get(thread_id)
    history = ThreadHistory(client, thread_id, page_size=page_size)
    await history.load_all()
    if checkpoint_id and history.state(checkpoint_id) is None:
        raise ExportError(f"thread {thread_id} has no checkpoint {checkpoint_id}")
    lineage = history.lineage(checkpoint_id)

    graph_id = thread.metadata.get("graph_id")
    if graph_id is None and lineage:
        graph_id = lineage[-1].metadata.get("graph_id")
    graph: AssistantGraph | None = None
    checkpoints = []
    parent: ThreadState | None = None
    for state in lineage:
        writes = checkpoint_writes(state, parent)
        nodes = dict(writes.nodes)
        if not writes.known_nodes:
            if graph is None and isinstance(graph_id, str):
                graph = await _graph(client, graph_id)
            node = infer_as_node(state.next, parent.next if parent else [], graph)
            nodes = {node: nodes.get("", {})}
        checkpoints.append(_checkpoint(state, nodes, writes.source))
        parent = state
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": datetime.now(UTC).isoformat(),
        "source": {"url": client.base_url, "thread_id": thread_id, "graph_id": graph_id},
        "thread": {
            "thread_id": thread.thread_id,
            "status": thread.status,
            "metadata": thread.metadata,
            "created_at": thread.created_at.isoformat() if thread.created_at else None,
            "updated_at": thread.updated_at.isoformat() if thread.updated_at else None,
        },
        "checkpoints": checkpoints,
    }


def _checkpoint(state: ThreadState, writes: dict[str, Any], writes_from: str) -> dict[str, Any]:
    return {
        "checkpoint_id": state.checkpoint_id,
        "parent_checkpoint_id": state.parent_checkpoint_id,
        "step": state.step,
        "source": state.source,
        "as_node": next(iter(writes)),
        "writes": writes,
        "writes_from": writes_from,
        "values": state.values,
        "next": list(state.next),
        "interrupts": [i.get("value") for i in state.interrupts]
        or [i.get("value") for task in state.tasks for i in task.interrupts],
        "created_at": state.created_at,
    }


async def _graph(client: AgentServerClient, graph_id: str) -> AssistantGraph | None:
    try:
        return await client.assistants.get_graph(graph_id)
    except ApiError:
        return None


def infer_as_node(
    next_nodes: Sequence[str], parent_next: Sequence[str], graph: AssistantGraph | None
) -> str:
    """The node an update was most likely written as, when nothing recorded it.

    An update as node X leaves X's successors in `next`; so X is a node with an edge to
    every node in `next` (to `__end__` when `next` is empty), plain edges preferred over
    conditional ones. Without the graph: the node the parent was waiting for, if one,
    else `__start__`'s successor logic cannot be known and `__start__` is used.
    """
    if graph is not None:
        targets = list(next_nodes) or [END_NODE]
        candidates: dict[str, bool] | None = None  # node → all its edges are plain
        for target in targets:
            here: dict[str, bool] = {}
            for edge in graph.edges:
                if edge.target == target:
                    here[edge.source] = here.get(edge.source, True) and not edge.conditional
            if candidates is None:
                candidates = here
            else:
                candidates = {n: p and here[n] for n, p in candidates.items() if n in here}
        if candidates:
            return sorted(candidates, key=lambda n: (not candidates[n], n == START_NODE, n))[0]
    if len(parent_next) == 1:
        return parent_next[0]
    return START_NODE


# -- validation -----------------------------------------------------------------------


def validate_export(data: Any) -> dict[str, Any]:
    """`data` if it is a thread export of this version; else `ExportFormatError`."""
    if not isinstance(data, dict):
        raise ExportFormatError("not a thread export: the file holds no JSON object")
    if data.get("format") != FORMAT:
        raise ExportFormatError(
            f"not a thread export: format is {data.get('format')!r}, expected {FORMAT!r}"
        )
    version = data.get("version")
    if version != VERSION:
        raise ExportFormatError(
            f"unsupported export version {version!r}: this agent-tui reads version {VERSION}"
        )
    missing = [key for key in _TOP_KEYS if key not in data]
    if missing:
        raise ExportFormatError(f"missing key(s): {', '.join(missing)}")
    if not isinstance(data["thread"], dict) or not isinstance(
        data["thread"].get("metadata", {}), dict
    ):
        raise ExportFormatError("thread: an object with a metadata object is needed")
    if not isinstance(data["source"], dict):
        raise ExportFormatError("source: an object is needed")
    checkpoints = data["checkpoints"]
    if not isinstance(checkpoints, list):
        raise ExportFormatError("checkpoints: a list is needed")
    for number, checkpoint in enumerate(checkpoints):
        where = f"checkpoints[{number}]"
        if not isinstance(checkpoint, dict):
            raise ExportFormatError(f"{where}: an object is needed")
        absent = [key for key in _CHECKPOINT_KEYS if key not in checkpoint]
        if absent:
            raise ExportFormatError(f"{where}: missing key(s): {', '.join(absent)}")
        writes = checkpoint["writes"]
        if not isinstance(writes, dict) or not writes:
            raise ExportFormatError(f"{where}.writes: an object of node → values is needed")
        for node in writes:
            if not node:
                raise ExportFormatError(f"{where}.writes: a node name is empty")
    if checkpoints and not graph_of_export(data):
        raise ExportFormatError(
            "no graph_id (in source.graph_id or thread.metadata.graph_id): supersteps need "
            "the graph to apply them to"
        )
    return data


def dump_export(data: Mapping[str, Any]) -> str:
    """The text of an export file (the inverse of `load_export`).

    Readable UTF-8, but with the controls `json.dumps` leaves raw escaped: `cat` of the
    file (or `export -o -`) must not hand a thread's text to the terminal.
    """
    return escape_json_controls(json.dumps(data, indent=2, ensure_ascii=False)) + "\n"


def load_export(text: str) -> dict[str, Any]:
    """Parse and validate the text of an export file."""
    try:
        data = parse_json(text)
    except JsonTextError as error:
        raise ExportFormatError(str(error)) from None
    return validate_export(data)


def graph_of_export(data: Mapping[str, Any]) -> str | None:
    graph = data.get("source", {}).get("graph_id") or data.get("thread", {}).get(
        "metadata", {}
    ).get("graph_id")
    return graph if isinstance(graph, str) and graph else None


# -- import ---------------------------------------------------------------------------


def supersteps_of(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One superstep per checkpoint; one update per node that wrote it."""
    steps = []
    for checkpoint in data["checkpoints"]:
        updates = [
            {"values": replayable(values), "as_node": node}
            for node, values in checkpoint["writes"].items()
        ]
        steps.append({"updates": updates})
    return steps


# Message fields that langchain-core cannot take back from JSON: given as keys of a message
# dict, it files them under `additional_kwargs`. Left out when they hold their default.
_MESSAGE_DEFAULTS: dict[str, Any] = {"invalid_tool_calls": [], "usage_metadata": None}


def replayable(values: Any) -> Any:
    """A write as the server will read it back into the same messages."""
    if not isinstance(values, dict):
        return values
    fixed = dict(values)
    for key, value in values.items():
        if is_message_list(value):
            fixed[key] = [
                {k: v for k, v in message.items() if _MESSAGE_DEFAULTS.get(k, ...) != v}
                for message in value
            ]
    return fixed


async def import_thread(client: AgentServerClient, data: Any) -> Thread:
    """A new thread on `client`'s server holding the export's lineage.

    Raises `ExportFormatError` for a bad file and `ApiError` when the server refuses
    (for example, a graph it does not have).
    """
    data = validate_export(data)
    metadata = dict(data["thread"].get("metadata") or {})
    graph_id = graph_of_export(data)
    if graph_id:
        metadata["graph_id"] = graph_id
    source_thread = data["source"].get("thread_id") or data["thread"].get("thread_id")
    if source_thread:
        metadata[IMPORTED_FROM] = source_thread
    steps = supersteps_of(data)
    thread = await client.threads.create(metadata=metadata, supersteps=steps or None)
    if steps and not await client.threads.get_history(thread.thread_id, limit=1):
        # The server took the thread but not its history (Aegra ignores `supersteps`):
        # an empty copy would pass for an import. Nothing is left behind.
        with contextlib.suppress(ApiError):
            await client.threads.delete(thread.thread_id)
        raise NotOffered(
            "the server does not replay a thread's history (it ignored the import's "
            f"{len(steps)} supersteps); nothing was imported",
            method="POST",
            url=client.transport.url_for("/threads"),
        )
    return thread


async def compare_with_export(
    client: AgentServerClient, data: Mapping[str, Any], thread_id: str
) -> list[str]:
    """Where the thread's lineage differs from the export (steps, values, next); [] if none.

    An import replays writes through the graph's reducers; this tells the user whether
    that gave back the same states.
    """
    history = ThreadHistory(client, thread_id, page_size=500)
    await history.load_all()
    lineage = history.lineage()
    expected = data["checkpoints"]
    problems = []
    if len(lineage) != len(expected):
        problems.append(f"{len(lineage)} checkpoints, the export has {len(expected)}")
    for number, (state, checkpoint) in enumerate(zip(lineage, expected, strict=False)):
        where = f"checkpoint {number} (step {checkpoint['step']})"
        if state.step != checkpoint["step"]:
            problems.append(f"{where}: step is {state.step}")
        if state.values != checkpoint["values"]:
            problems.append(f"{where}: values differ")
        if list(state.next) != list(checkpoint["next"]):
            problems.append(f"{where}: next is {list(state.next)}, expected {checkpoint['next']}")
    return problems


__all__ = [
    "FORMAT",
    "IMPORTED_FROM",
    "INPUT_NODE",
    "VERSION",
    "ExportError",
    "ExportFormatError",
    "compare_with_export",
    "export_thread",
    "graph_of_export",
    "import_thread",
    "infer_as_node",
    "load_export",
    "supersteps_of",
    "validate_export",
]
