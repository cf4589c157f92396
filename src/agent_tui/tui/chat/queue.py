"""The chat's queued message: what a message sent during a run does (double texting).

`enter` during a run asks how to send it (`tui/chat/double_text_modal.py`; the choices and what
each does are `chat/double_text.py`'s):

- `queue` (first, so `enter` twice queues): agent-tui keeps it; the prompt is cleared for
  the next draft and the transcript shows the message dimmed at its end (`esc` drops
  it). It is sent when the run ends `done`. A run that stops for a question, fails or
  is cancelled does not send it: the user's next message probably depends on that
  outcome, so the text goes back into the prompt (or its history) with a notice.
- `enqueue`, `interrupt`, `rollback`, `reject`: the message goes to the server at once
  as a new run with that multitask strategy, and the server decides what happens to the
  active run. The chat follows the new run once the active one ends (after a rollback,
  from the thread's state without the rolled-back run). A `reject` the server applies
  leaves the message in the prompt, with the server's words.

Nothing typed is lost either way. The queued text and the rules are the run machine's
(`chat.run_machine`); this is the UI around them.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Protocol

from agent_tui.chat.double_text import DoubleText, ServerStrategy
from agent_tui.chat.run_machine import STILL_SENDING, Join, Send
from agent_tui.client import ApiError, Conflict
from agent_tui.tui.chat.double_text_modal import DoubleTextScreen
from agent_tui.tui.chat.run import (
    ChatRun,
    InputRefused,
    RunHost,
    RunNotHandedOver,
    hand_to_server,
)

if TYPE_CHECKING:
    from agent_tui.chat.items import RunState

BUSY_MESSAGE = "A run is streaming on this thread: wait, or press esc to cancel it"
QUEUED_LABELS: dict[DoubleText, str] = {
    "queue": "queued: sent when this run ends (esc drops it)",
    "enqueue": "enqueued on the server: runs when this run ends",
    "interrupt": "sent with interrupt: the server stops this run, then runs it",
    "rollback": "sent with rollback: the server undoes this run, then runs it",
    "reject": "sent: runs next",
}


class QueueHost(RunHost, Protocol):
    """What the queue needs of the chat pane beyond a run's needs."""

    @property
    def running(self) -> bool: ...
    def send(self, text: str) -> None: ...
    def start_run(self, run: ChatRun) -> None: ...
    def hand_over(self, text: str, how: ServerStrategy) -> object: ...


class MessageQueue:
    """The pane's queue of at most one message (`text`, kept by the run machine)."""

    def __init__(self, pane: QueueHost) -> None:
        self.pane = pane

    def offer_or_queue(self, text: str) -> None:
        """`enter` with `text` while a run is active: ask how to send it."""
        if self._refused():
            return
        self.pane.app.push_screen(DoubleTextScreen(text), partial(self._chosen, text))

    def _chosen(self, text: str, how: DoubleText | None) -> None:
        pane = self.pane
        if how is None:
            return  # the message stays in the prompt
        if not pane.running:
            pane.send(text)  # the run ended while the user chose: an ordinary send
            return
        if self._refused():
            return
        if how == "queue":
            self._take_from_prompt(text)
            pane.transcript.show_queued(text, QUEUED_LABELS[how])
            pane.machine.enqueue(text)
            return
        pane.hand_over(text, how)

    async def hand_over(self, text: str, how: ServerStrategy) -> None:
        """The body of the pane's hand-over worker: the message to the server as a run
        with strategy `how`; followed once the active run ends (now, if it has)."""
        pane = self.pane
        try:
            run = await hand_to_server(pane, text, how)
        except Conflict as error:
            pane.notify(
                f"The server refused it ({how}): {error.message}",
                title="Not sent",
                severity="warning",
                markup=False,
            )
            return
        except InputRefused:
            return  # said under the prompt, where the text stays
        except RunNotHandedOver:
            pane.notify("No assistant picked: nothing sent.", markup=False)
            return
        except ApiError as error:
            pane.screen_report(error, "send the message")
            return
        self._take_from_prompt(text)
        if pane.running:
            pane.transcript.show_queued(text, QUEUED_LABELS[how])
            pane.machine.enqueue(text, how, run.run_id)
        else:
            pane.start_run(ChatRun(pane, Join(run.run_id, reload=how == "rollback")))

    def _refused(self) -> bool:
        """Whether a message cannot wait now (one already does, or this one is still
        being sent); the user is told why."""
        refusal = self.pane.machine.queue_refusal()
        if refusal is not None:
            self._warn(refusal, "Not sent" if refusal == STILL_SENDING else "Not queued")
        return refusal is not None

    def _take_from_prompt(self, text: str) -> None:
        """`text` left the prompt: clear it, unless the user has typed on since."""
        prompt = self.pane.prompt
        if prompt.text == text:
            prompt.accept()  # the user may type the next one meanwhile
        elif not prompt.input_history or prompt.input_history[-1] != text:
            prompt.input_history.append(text)

    def drop(self, reason: str = "Queued message dropped") -> bool:
        """Forget the queued message, giving its text back; False when none is queued
        here (one handed to the server is a run there: R lists it, x cancels it)."""
        if self.pane.machine.queued_run_id is not None:
            return False
        text = self.pane.machine.drop_queued()
        if text is None:
            return False
        self.pane.transcript.drop_queued()
        self.give_back(text, reason)
        return True

    def next_run(self, ended: RunState | None) -> ChatRun | None:
        """The run of the queued message, if the run that just ended lets it go."""
        machine = self.pane.machine
        how, run_id = machine.queued_how, machine.queued_run_id
        text, why = machine.take_queued(ended)
        if text is None:
            return None
        self.pane.transcript.drop_queued()
        if run_id is not None:  # the server has it: follow its run
            return ChatRun(self.pane, Join(run_id, reload=how == "rollback"))
        if why:
            self.give_back(text, why)
            return None
        return ChatRun(self.pane, Send(text, queued=True))

    def give_back(self, text: str, reason: str) -> None:
        """`text` was not sent: back into an empty prompt, else in its history (up)."""
        prompt = self.pane.prompt
        if not prompt.text.strip():
            prompt.load_text(text)
            prompt.move_cursor(prompt.document.end)
            where = "it is back in the prompt"
        else:
            if not prompt.input_history or prompt.input_history[-1] != text:
                prompt.input_history.append(text)
            where = "up in the prompt brings it back"
        self.pane.notify(f"{reason}: {where}.", title="Not sent", markup=False)

    def _warn(self, message: str, title: str) -> None:
        self.pane.notify(message, title=title, severity="warning", markup=False)
