"""What a chat transcript is made of (headless: no Textual).

`transcript_model.ChatTranscript` folds run events into these items and reports each
change as a `TranscriptChange`; `tui/chat/transcript.py` renders the changes. Items
are mutable: the model updates an item in place and reports `Appended`/`Updated` with
the same object, so a widget keyed by `item.key` can find its block.

Texts here are raw server text: widgets must render them inertly (`sanitize.clean_text`,
`widgets.text.server_text`, Rich's Markdown of clean text with links that only ask).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from agent_tui.threads.failure import Failure

RunState = Literal[
    "idle",
    "starting",
    "running",
    "reconnecting",
    "interrupted",
    "paused",
    "done",
    "error",
    "cancelled",
]
"""The chat's run state, shown beside the thread status: `idle` before the first run.
`chat.run_machine.RunMachine` owns it; its docstring has the transitions."""

TERMINAL_RUN_STATES: frozenset[RunState] = frozenset(
    {"idle", "interrupted", "paused", "done", "error", "cancelled"}
)


@dataclass(eq=False)
class HumanItem:
    key: str  # message id, or a local id until the server names it
    text: str


@dataclass(eq=False)
class ToolCall:
    id: str
    name: str
    args: Any  # usually a dict; rendered as JSON


@dataclass(eq=False)
class AIItem:
    """One AI message. `text` grows token by token while `streaming`; `tool_calls` are
    the calls the message makes (their results are `ToolResultItem`s)."""

    key: str  # the message id (chunks of one message share it)
    text: str = ""
    node: str | None = None  # the graph node that produced it (`langgraph_node`)
    namespace: tuple[str, ...] = ()  # subgraph path; () for the root graph
    tool_calls: list[ToolCall] = field(default_factory=list)
    streaming: bool = True


@dataclass(eq=False)
class ToolResultItem:
    key: str  # the tool message id
    tool_call_id: str
    name: str
    content: str
    status: str = "success"  # "success" | "error"
    namespace: tuple[str, ...] = ()
    handoff: str | None = None  # the agent a multi-agent handoff moved to (`tool_results`)


@dataclass(eq=False)
class NodeUpdateItem:
    """A node finished a step and wrote `update` (`None`: wrote nothing)."""

    key: str
    node: str
    update: Any
    namespace: tuple[str, ...] = ()


@dataclass(eq=False)
class CustomItem:
    """A `custom` stream event (`get_stream_writer()` in the graph)."""

    key: str
    data: Any
    namespace: tuple[str, ...] = ()


@dataclass(eq=False)
class InterruptItem:
    """The run stopped at `interrupt(value)`; the user answers with a resume value."""

    key: str
    value: Any
    interrupt_id: str | None = None
    answered: bool = False
    namespace: tuple[str, ...] = ()
    answer: Any = None  # the resume value sent from here (unknown for older answers)
    answer_known: bool = False


@dataclass(eq=False)
class ErrorItem:
    """A run's failure: the stream's error event, completed from the thread's state when
    the run ends (`threads.failure`: the node, and the exception's own words)."""

    key: str
    error: str  # the error class, e.g. "DemoFailure"
    message: str
    node: str | None = None  # the node that raised it, once the thread's state says

    def failure(self) -> Failure:
        return Failure(self.error, self.message, self.node)


@dataclass(eq=False)
class NoticeItem:
    """A line from agent-tui itself: "Run cancelled", "Reconnected after 2 attempts",
    "The run is gone from the server; reloaded the thread state"."""

    key: str
    text: str
    severity: Literal["information", "warning", "error"] = "information"


TranscriptItem = (
    HumanItem
    | AIItem
    | ToolResultItem
    | NodeUpdateItem
    | CustomItem
    | InterruptItem
    | ErrorItem
    | NoticeItem
)


@dataclass(frozen=True, slots=True)
class Added:
    item: TranscriptItem


@dataclass(frozen=True, slots=True)
class Appended:
    """`item.text` grew by `delta` (AI tokens): append, do not re-render."""

    item: AIItem
    delta: str


@dataclass(frozen=True, slots=True)
class Updated:
    """Something other than streamed text changed (the final text replaced the streamed
    one, tool calls arrived, `streaming` ended, an interrupt was answered): re-render the
    item's block."""

    item: TranscriptItem


@dataclass(frozen=True, slots=True)
class Cleared:
    """Start over (a thread reloaded from its state)."""


TranscriptChange = Added | Appended | Updated | Cleared
