"""The chat's queued message: one message that waits for the active run.

`enter` during a run is refused with an offer, and `enter` again within `QUEUE_WINDOW`
seconds queues the prompt's text: the prompt is cleared for the next draft, and the
transcript shows the message dimmed at its end (`esc` drops it, the screen's key). It is
sent when the run ends `done`. A run that stops for a question (`interrupted`), fails or
is cancelled does not send it: the user's next message probably depends on that
outcome, so the text goes back into the prompt (or its history, if the user is typing
something else) with a notice. Nothing typed is lost either way.

The queued text and the rules (what may be queued, which endings send it) are the run
machine's (`chat.run_machine`); this is the UI around them: the offer, the prompt, the
dimmed line.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from agent_tui.chat.run_machine import STILL_SENDING, Send
from agent_tui.panes.chat_run import ChatRun, RunHost

if TYPE_CHECKING:
    from agent_tui.chat.items import RunState

BUSY_MESSAGE = "A run is streaming on this thread: wait, or press esc to cancel it"
QUEUE_WINDOW = 5.0  # seconds in which a second `enter` queues the refused message
QUEUE_OFFER = (
    f"{BUSY_MESSAGE}. Press enter again within {QUEUE_WINDOW:g} s to queue this message:"
    " it is sent when the run ends."
)


class MessageQueue:
    """The pane's queue of at most one message (`text`, kept by the run machine)."""

    def __init__(self, pane: RunHost) -> None:
        self.pane = pane
        self._offered_at: float | None = None  # when `enter` was refused with QUEUE_OFFER

    def offer_or_queue(self, text: str) -> None:
        """`enter` with `text` while a run is active: offer the queue, or take `text`."""
        pane = self.pane
        machine = pane.machine
        refusal = machine.queue_refusal()
        if refusal is not None:
            self._warn(refusal, "Not sent" if refusal == STILL_SENDING else "Not queued")
            return
        offered = self._offered_at
        if offered is None or time.monotonic() - offered > QUEUE_WINDOW:
            self._offered_at = time.monotonic()
            self._warn(QUEUE_OFFER, "Not sent")
            return
        self._offered_at = None
        pane.prompt.accept()  # the user may type the next one meanwhile
        pane.transcript.show_queued(text)
        machine.enqueue(text)

    def lapse_offer(self) -> None:
        """The run ended: an offer made during it no longer stands."""
        self._offered_at = None

    def drop(self, reason: str = "Queued message dropped") -> bool:
        """Forget the queued message, giving its text back; False when none is queued."""
        text = self.pane.machine.drop_queued()
        if text is None:
            return False
        self.pane.transcript.drop_queued()
        self.give_back(text, reason)
        return True

    def next_run(self, ended: RunState | None) -> ChatRun | None:
        """The run of the queued message, if the run that just ended lets it go."""
        text, why = self.pane.machine.take_queued(ended)
        if text is None:
            return None
        self.pane.transcript.drop_queued()
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
