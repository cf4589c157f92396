"""What a drawing shows of a thread's run (headless): the node running now, the nodes
that ran in the run with their order and time, where the thread is paused, which nodes
have a breakpoint, and the nodes of a checkpoint picked in the history.

`LiveRun.observe` folds the run's events as the chat receives them (the SSE event name
and its data): `tasks` and `debug` events say when a node starts and ends, `updates`
when it has written, a `messages` token which node streams it; a `metadata` event starts
a new run. A run started elsewhere streams nothing here: the thread's state (`next`, as
the thread view polls it) says what runs (`running_from_state`).

Node ids are the server's: a subgraph's node is `chat:agent` (its events come as
`updates|chat:<task id>`); `shown_as` gives the box a node is drawn in when its subgraph
is collapsed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Pause = Literal["before", "after", "asks"]


@dataclass(frozen=True, slots=True)
class NodeRun:
    order: int  # when its latest turn ended in the run, counted over every node (1: first)
    seconds: float | None  # how long it ran, when known


@dataclass(frozen=True, slots=True)
class NodeMarks:
    """Everything a drawing marks on its boxes (node ids as the server gives them)."""

    running: frozenset[str] = frozenset()
    ran: Mapping[str, NodeRun] = field(default_factory=dict)
    paused: Mapping[str, Pause] = field(default_factory=dict)
    before: frozenset[str] = frozenset()  # breakpoints: pause before these nodes
    after: frozenset[str] = frozenset()
    step: frozenset[str] = frozenset()  # the nodes of the checkpoint picked in the history

    @property
    def empty(self) -> bool:
        return not (
            self.running or self.ran or self.paused or self.before or self.after or self.step
        )


def shown_as(node: str, expanded: Iterable[str] | None) -> str:
    """The box `node` is drawn in: itself, or its outermost collapsed subgraph (`None`:
    every subgraph is expanded)."""
    if expanded is None:
        return node
    opened = set(expanded)
    parts = node.split(":")
    for depth in range(1, len(parts)):
        name = ":".join(parts[:depth])
        if name not in opened:
            return name
    return node


def drawn_box(node: str, expanded: Iterable[str] | None, boxes: Collection[str]) -> str | None:
    """The box `node`'s marks go on: the box of its outermost collapsed subgraph, or its
    own; for a node the drawing does not show (of a subgraph a node calls from its code,
    whose namespace may end in a call count: `tools:1:summarize`), the innermost drawn
    box around it. None when no box holds it."""
    parts = shown_as(node, expanded).split(":")
    for depth in range(len(parts), 0, -1):
        name = ":".join(parts[:depth])
        if name in boxes:
            return name
    return None


def running_as_drawn(
    running: Iterable[str], expanded: Iterable[str] | None, boxes: Collection[str]
) -> list[str]:
    """The boxes lit as running, once each, in order (what the pane's status names)."""
    opened = None if expanded is None else frozenset(expanded)
    return sorted({box for node in running if (box := drawn_box(node, opened, boxes))})


def ran_as_drawn(
    ran: Mapping[str, NodeRun], expanded: Iterable[str] | None, boxes: Iterable[str]
) -> dict[str, NodeRun]:
    """The turns a drawing shows, numbered 1, 2… in the order they ran: only the nodes
    drawn as a box of their own (`boxes`: a collapsed subgraph's box carries its own
    turn, an expanded one is a frame, its nodes boxes). The pane's boxes and its count
    both come from here, so the highest number is the count."""
    opened = None if expanded is None else frozenset(expanded)
    drawn = frozenset(boxes)
    shown = sorted(
        (run.order, node)
        for node, run in ran.items()
        if node in drawn and shown_as(node, opened) == node
    )
    return {node: NodeRun(i, ran[node].seconds) for i, (_, node) in enumerate(shown, 1)}


def _path(event: str) -> str:
    """`updates|chat:<id>|inner:<id>` → `chat:inner`; `updates` → `""`."""
    return ":".join(part.split(":", 1)[0] for part in event.split("|")[1:])


def _cluster(node: str) -> str:
    return node.rpartition(":")[0]


def _node(path: str, name: object) -> str | None:
    if not isinstance(name, str) or not name or name.startswith("__"):
        return None
    return f"{path}:{name}" if path else name


@dataclass(slots=True)
class LiveRun:
    """One run's nodes, from its events (see the module docstring)."""

    run_id: str | None = None
    running: set[str] = field(default_factory=set)
    ran: dict[str, NodeRun] = field(default_factory=dict)
    _started: dict[str, float] = field(default_factory=dict)  # node → when it started
    _closed: set[str] = field(default_factory=set)  # ended once; its second "ended" is due
    # When the last node of each graph ended (a node with no start event began then).
    _last: dict[str, float] = field(default_factory=dict)
    _streams_tasks: bool = False  # `tasks`/`debug` events: starts are known exactly

    def reset(self, run_id: str | None = None) -> None:
        self.run_id = run_id
        self.running.clear()
        self.ran.clear()
        self._started.clear()
        self._closed.clear()
        self._last.clear()
        self._streams_tasks = False

    def observe(self, event: str, data: Any, elapsed_s: float = 0.0) -> bool:
        """Fold one event (`elapsed_s`: since the run started). True when a mark changed."""
        mode = event.split("|", 1)[0]
        path = _path(event)
        if mode == "metadata" and isinstance(data, Mapping):
            run_id = data.get("run_id")
            if isinstance(run_id, str) and run_id != self.run_id:
                self.reset(run_id)
                return True
            return False
        if mode in ("end", "error"):
            changed = bool(self.running)
            self.running.clear()
            return changed
        if mode == "updates" and isinstance(data, Mapping):
            changed = False
            for name in data:
                node = _node(path, name)
                if node is not None:
                    self._ended(node, elapsed_s)
                    changed = True
            return changed
        if mode == "tasks" and isinstance(data, Mapping):
            return self._task(path, data, elapsed_s, "result" in data or "error" in data)
        if mode == "debug" and isinstance(data, Mapping):
            payload = data.get("payload")
            kind = data.get("type")
            if isinstance(payload, Mapping) and kind in ("task", "task_result"):
                return self._task(path, payload, elapsed_s, kind == "task_result")
            return False
        if mode == "messages" and isinstance(data, list | tuple) and len(data) > 1:
            meta = data[1]
            if isinstance(meta, Mapping):
                # A subgraph's tokens come without a namespace unless subgraphs are
                # streamed: its checkpoint namespace (`chat:<id>|agent:<id>`) says where.
                namespace = meta.get("langgraph_checkpoint_ns")
                if isinstance(namespace, str) and namespace:
                    path = _path("|" + "|".join(namespace.split("|")[:-1]))
                node = _node(path, meta.get("langgraph_node"))
                # With `tasks` streamed, starts are known exactly: a token of a node that
                # already ended (a subgraph's may come after its update) starts nothing.
                if node is not None and node not in self._started and not self._streams_tasks:
                    self._began(node, elapsed_s)
                    return True
        return False

    def _task(self, path: str, task: Mapping[str, Any], elapsed_s: float, ended: bool) -> bool:
        node = _node(path, task.get("name"))
        if node is None:
            return False
        self._streams_tasks = True
        if ended:
            self._ended(node, elapsed_s)
        else:
            self._began(node, elapsed_s)
        return True

    def _began(self, node: str, elapsed_s: float) -> None:
        self.running.add(node)
        self._closed.discard(node)
        self._started.setdefault(node, elapsed_s)

    def _ended(self, node: str, elapsed_s: float) -> None:
        """`node` ended. Its result and its update both say so, in either order: the
        first closes its turn, the second is the same turn. A node with no start event
        (`updates` alone) began when the one before it ended. Nothing inside it runs any
        more: a subgraph's node that handed off to the parent graph (`Command.PARENT`)
        never sends an end of its own."""
        self.running.discard(node)
        inside = node + ":"
        for inner in [n for n in self.running if n.startswith(inside)]:
            self.running.discard(inner)
            self._started.pop(inner, None)
        if node in self._started:
            began = self._started.pop(node)
            if self._streams_tasks:  # its result and its update: both to come
                self._closed.add(node)
        elif node in self._closed:
            self._closed.discard(node)
            return
        else:
            began = self._last.get(_cluster(node), 0.0)
        seconds = max(0.0, elapsed_s - began) if elapsed_s else None
        self.ran.pop(node, None)  # ran again (a loop): its latest turn counts
        self.ran[node] = NodeRun(
            max((run.order for run in self.ran.values()), default=0) + 1, seconds
        )
        cluster = _cluster(node)
        self._last[cluster] = max(self._last.get(cluster, 0.0), elapsed_s)

    def from_checkpoints(
        self, run_id: str, steps: Iterable[tuple[Iterable[str], float | None]]
    ) -> None:
        """A run this session did not stream, from its checkpoints (oldest first: the
        nodes that wrote each, and how long after the one before it was saved). What is
        lit now stays (the state says it)."""
        running = set(self.running)
        self.reset(run_id)
        self.running = running
        for writers, seconds in steps:
            for node in writers:
                if not node.startswith("__"):
                    self.ran.pop(node, None)
                    order = max((run.order for run in self.ran.values()), default=0) + 1
                    self.ran[node] = NodeRun(order, seconds)

    def timed(self, seconds: Mapping[str, float | None]) -> bool:
        """Each node's time as the Timeline gives it (the same checkpoints, the same
        task events), for the nodes it has; True when a time changed."""
        changed = False
        for node, run in list(self.ran.items()):
            if node in seconds and seconds[node] != run.seconds:
                self.ran[node] = NodeRun(run.order, seconds[node])
                changed = True
        return changed

    def running_from_state(self, next_nodes: Iterable[str]) -> bool:
        """A run this session does not stream (started elsewhere), or one whose events
        say no more than what ended: the state's `next` is what runs now. True when
        that changed what is lit."""
        if self._streams_tasks:
            return False
        nodes = {node for node in next_nodes if not node.startswith("__")}
        if nodes == self.running:
            return False
        self.running = nodes
        return True
