"""Double texting: what a message sent while a run is active does (headless).

agent-tui can hold the message itself and send it when the run ends (`queue`), or hand it
to the server at once with one of langgraph-api's multitask strategies, which decide
what happens to the active run. Each choice says what it does, in the words the chat's
picker shows, so the user learns the server's behaviour by trying it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

DoubleText = Literal["queue", "enqueue", "interrupt", "rollback", "reject"]
ServerStrategy = Literal["enqueue", "interrupt", "rollback", "reject"]


@dataclass(frozen=True, slots=True)
class DoubleTextChoice:
    how: DoubleText
    key: str  # the picker's key for it
    label: str
    does: str  # what happens, one or two sentences


CHOICES: tuple[DoubleTextChoice, ...] = (
    DoubleTextChoice(
        "queue",
        "q",
        "Queue here",
        "agent-tui keeps the message and sends it when this run ends done; if the run stops"
        " for a question, fails or is cancelled, the message comes back to the prompt.",
    ),
    DoubleTextChoice(
        "enqueue",
        "e",
        "Enqueue on the server",
        "The server queues a new run now and starts it when this one ends, whatever the"
        " ending; it runs even if you quit agent-tui.",
    ),
    DoubleTextChoice(
        "interrupt",
        "i",
        "Interrupt",
        "The server stops this run where it is (what it did so far stays in the thread)"
        " and runs the new message at once.",
    ),
    DoubleTextChoice(
        "rollback",
        "r",
        "Rollback",
        "The server stops this run and deletes it, with the answer it was writing,"
        " then runs the new message.",
    ),
    DoubleTextChoice(
        "reject",
        "x",
        "Reject (try it)",
        "Send it with the reject strategy: the server refuses it while a run is active"
        " (what your app's users see when it uses reject); the message stays in the prompt.",
    ),
)
