"""`RunRequest`: everything a chat run is started with, in one object (headless).

A run's options — the assistant, its context and config overrides, the breakpoints, the
stream modes, the checkpoint to start from, the input or command, the multitask strategy —
are decided once, where the user's choices are known (the chat pane's `ChatRun`,
`agent-tui run`), and travel as this one value through the session and the driver to the
client's request body. Nothing in between adds or forwards keyword arguments of its own;
a layer that must change one field says so with `with_(...)` (the session puts a human
message into `input`; a hand-over sets its multitask strategy).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

DEFAULT_STREAM_MODES: tuple[str, ...] = ("updates", "messages-tuple")
"""What the chat streams: node updates and the model's tokens."""

Breakpoints = str | Sequence[str] | None
"""Node names, or `"*"` (every node), or None (none)."""


@dataclasses.dataclass(frozen=True, slots=True)
class RunRequest:
    """How one run is to be started. `assistant_id` is an assistant id or a graph name.

    `input` / `command`: what the run is given (both None: a thread paused at a
    breakpoint goes on). `checkpoint_id`: start from that checkpoint instead of the
    thread's head. `interrupt_before` / `interrupt_after`: breakpoints. The chat always
    streams subgraphs and creates runs resumable (see `RunDriver`).
    """

    assistant_id: str
    input: Any = None
    command: dict[str, Any] | None = None
    checkpoint_id: str | None = None
    stream_modes: tuple[str, ...] = DEFAULT_STREAM_MODES
    context: dict[str, Any] | None = None
    config: dict[str, Any] | None = None
    interrupt_before: Breakpoints = None
    interrupt_after: Breakpoints = None
    multitask_strategy: str = "reject"
    """A run started while another is active: `reject` (409) unless handed over."""

    def with_(self, **changes: Any) -> RunRequest:
        """This request with `changes` (field names as above)."""
        return dataclasses.replace(self, **changes)

    def stream_body(self) -> dict[str, Any]:
        """The keyword arguments of `RunsClient.stream` / `RunsClient.create` this request
        stands for (the transport's own arguments — timeouts — are the caller's)."""
        return {
            "input": self.input,
            "command": self.command,
            "context": self.context,
            "config": self.config,
            "stream_mode": list(self.stream_modes),
            "stream_subgraphs": True,
            "stream_resumable": True,
            "checkpoint_id": self.checkpoint_id,
            "interrupt_before": self.interrupt_before,
            "interrupt_after": self.interrupt_after,
            "multitask_strategy": self.multitask_strategy,
        }
