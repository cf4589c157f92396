"""A thread's breakpoints: pause before / after nodes, and stepping (headless).

The chat keeps one `ThreadBreakpoints` per thread; every run it starts there passes
`run_kwargs()` as the run's `interrupt_before` / `interrupt_after`. The nodes to choose
from come from the assistant's graph (`graph_nodes`): the top-level nodes can be paused
at; with `xray` the server also lists the nodes inside subgraphs (`chat:agent`), and a
run cannot take those: langgraph gives a run's `interrupt_before`/`interrupt_after` (`*`
too) to the top graph only and ignores names it lacks, while a subgraph pauses at the
breakpoints it was compiled with (`compile(interrupt_before=[…])`) or at `interrupt()`.
So they are listed but refused with that reason and what to do instead (pause at the
subgraph's node in the top graph), never silently kept. `pause_of` says where a run that
stopped early waits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_tui.chat.waiting import Waiting, waiting_of
from agent_tui.client import AgentServerClient
from agent_tui.client.models import AssistantGraph

Side = Literal["before", "after"]
EVERY_NODE = "*"
# A graph's node names cannot hold ":" (LangGraph reserves it), so it separates a
# subgraph's path from the node's name in the ids `xray` gives.
SUBGRAPH_SEPARATOR = ":"
_BOUNDS = ("__start__", "__end__")


class BreakpointRefused(ValueError):
    """A breakpoint the run cannot take (a node inside a subgraph)."""


@dataclass(frozen=True, slots=True)
class BreakpointNode:
    """A node of the assistant's graph. `subgraph`: the path of the subgraph it is inside
    (`chat`, `outer:inner`), None for a node of the graph itself."""

    name: str  # the id the server gives (`tools`, `chat:tools`)
    subgraph: str | None = None

    @property
    def pausable(self) -> bool:
        return self.subgraph is None

    @property
    def top(self) -> str:
        """The node of the top graph it runs under (itself for a top-level node)."""
        return self.name if self.subgraph is None else self.subgraph.split(SUBGRAPH_SEPARATOR)[0]

    @property
    def refusal(self) -> str | None:
        """Why a run cannot pause here and what to do instead (None: it can)."""
        if self.subgraph is None:
            return None
        return (
            f"a run pauses only at top-level nodes: pause at {self.top} instead,"
            " or compile its subgraph with interrupt_before/after"
        )

    @property
    def depth(self) -> int:
        return 0 if self.subgraph is None else self.subgraph.count(SUBGRAPH_SEPARATOR) + 1


def graph_nodes(top: AssistantGraph, xray: AssistantGraph | None = None) -> list[BreakpointNode]:
    """The nodes to list: `top`'s (the graph without xray), each followed by the nodes
    `xray` shows inside it when it is a subgraph."""
    inner: dict[str, list[BreakpointNode]] = {}
    for node in xray.nodes if xray is not None else ():
        path, _, name = node.id.rpartition(SUBGRAPH_SEPARATOR)
        if not path or name in _BOUNDS:
            continue
        outer = path.split(SUBGRAPH_SEPARATOR, 1)[0]
        inner.setdefault(outer, []).append(BreakpointNode(node.id, path))
    nodes: list[BreakpointNode] = []
    for node in top.nodes:
        if node.id in _BOUNDS:
            continue
        nodes.append(BreakpointNode(node.id))
        nodes += inner.get(node.id, [])
    return nodes


async def load_graph_nodes(client: AgentServerClient, assistant_id: str) -> list[BreakpointNode]:
    """The assistant's nodes, subgraph nodes included where the server gives them."""
    top = await client.assistants.get_graph(assistant_id)
    xray = await client.assistants.get_graph(assistant_id, xray=True)
    return graph_nodes(top, xray)


@dataclass(slots=True)
class ThreadBreakpoints:
    """The breakpoints the user chose for a thread's runs."""

    before: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)
    stepping: bool = False  # pause before every node

    def is_set(self, node: str, side: Side) -> bool:
        return node in (self.before if side == "before" else self.after)

    def toggle(self, node: BreakpointNode, side: Side) -> bool:
        """Set or clear a breakpoint; True when it is now set. A node inside a subgraph
        raises `BreakpointRefused` with the reason."""
        refusal = node.refusal
        if refusal is not None:
            raise BreakpointRefused(f"{node.name}: {refusal}")
        chosen = self.before if side == "before" else self.after
        if node.name in chosen:
            chosen.remove(node.name)
            return False
        chosen.append(node.name)
        return True

    def toggle_stepping(self) -> bool:
        self.stepping = not self.stepping
        return self.stepping

    @property
    def active(self) -> bool:
        return self.stepping or bool(self.before or self.after)

    def run_kwargs(self) -> dict[str, Any]:
        """`interrupt_before` / `interrupt_after` for a run (None: no breakpoint)."""
        before: str | list[str] | None = EVERY_NODE if self.stepping else list(self.before)
        return {"interrupt_before": before or None, "interrupt_after": list(self.after) or None}

    def step_kwargs(self) -> dict[str, Any]:
        """One step: the next node runs, and the run pauses before the one after it;
        the chosen breakpoints stay as they are.

        Both sides are `*`: the runtime pauses before a node only when something changed
        since the last pause, so from a pause *after* a node a bare `interrupt_before`
        would let every node after it run. Paused after a node or before the next is the
        same checkpoint, which `waiting_of` names `paused before NEXT`."""
        return {"interrupt_before": EVERY_NODE, "interrupt_after": EVERY_NODE}

    def summary(self) -> str:
        """For the chat's state line: `‖ before: tools · after: agent`, `‖ stepping`."""
        parts: list[str] = []
        if self.stepping:
            parts.append("stepping")
        elif self.before:
            parts.append(f"before: {', '.join(self.before)}")
        if self.after:
            parts.append(f"after: {', '.join(self.after)}")
        return f"‖ {' · '.join(parts)}" if parts else ""


def pause_text(waiting: Waiting) -> str | None:
    """`paused before tools` for a breakpoint; None for an interrupt() question."""
    if waiting.interrupts:
        return None
    if waiting.pause is not None and waiting.node is not None:
        return f"paused {waiting.pause} {waiting.node}"
    if waiting.next:
        return f"paused before {', '.join(waiting.next)}"
    return "paused"


async def pause_of(
    client: AgentServerClient,
    thread_id: str,
    *,
    before: str | Sequence[str] | None,
    after: str | Sequence[str] | None,
) -> Waiting:
    """What a thread whose run stopped early waits for (`before` / `after`: the run's
    breakpoints). A pause after a node leaves no trace in the state: the nodes that ran
    last are the tasks of the checkpoint before the latest."""
    state = await client.threads.get_state(thread_id, subgraphs=True)
    waiting = waiting_of(state, before=before, after=after)
    if waiting.interrupts or waiting.pause is not None or not after:
        return waiting
    history = await client.threads.get_history(thread_id, limit=2)
    ran = [task.name for task in history[1].tasks] if len(history) > 1 else []
    return waiting_of(state, before=before, after=after, ran=ran)
