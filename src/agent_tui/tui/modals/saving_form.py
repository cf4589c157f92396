"""What every form that saves to a server does the same way: the base of those forms.

Saving (`action_save`: the form's save key, its `#save` button, or enter where the form
wants it) reads the fields (`read_form`: None after showing what is wrong, nothing
sent), then sends the request (`send`) in a worker. From the moment it is sent until the server answers, the button
is disabled and the key does nothing: a second press would otherwise start a second
request beside the first (and, with an exclusive worker, cancel the first after the
server had already acted: two resources made, one of them unseen).

On success the form closes with the result. On failure it stays open with everything
typed still there and says why: a 422 naming this form's fields goes under them
(`field_of`, sorted by `form_errors`) with a count in the error line; any other server
error is said whole in the error line (`error_messages.describe_error`); a `NotSaved`
raised by `send` says its own message. An unexpected exception re-enables saving and
goes to the app's handler like any worker failure (`ReportsWorkerFailures`).

    class CronFormScreen(SavingForm[CronDraft, Cron]):
        SAVE_GROUP = "cron-form-save"
        doing = "create the cron"
        def read_form(self) -> CronDraft | None: ...
        async def send(self, draft: CronDraft) -> Cron: ...
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Generic, TypeVar

from textual import on
from textual.screen import ModalScreen
from textual.widgets import Button, Static
from textual.worker import Worker

from agent_tui.client import ApiError, ValidationFailed
from agent_tui.client.error_text import describe_error
from agent_tui.client.form_errors import FieldErrors, Loc, sort_field_errors
from agent_tui.tui.widgets.key_order import after_typed_keys
from agent_tui.tui.widgets.text import server_text
from agent_tui.tui.widgets.worker_failures import ReportsWorkerFailures

BodyT = TypeVar("BodyT")
ResultT = TypeVar("ResultT")


class NotSaved(Exception):
    """Raised by a form's `send` when the save failed in a way only the form can word
    (e.g. no thread has the id typed): `message` goes in the error line, `problems`
    (field id → what is wrong) under the fields."""

    def __init__(self, message: str, problems: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.problems = dict(problems or {})


class SavingForm(ReportsWorkerFailures, ModalScreen[ResultT | None], Generic[BodyT, ResultT]):
    """A modal form that sends one request and closes with its result (None on cancel).

    Each form gives `SAVE_GROUP`, `doing`, `read_form` and `send`, and, when a 422 can
    name its fields, `field_of` and `show_problems`. It binds its save key to the
    `save` action; its `#save` button is wired here.
    """

    SAVE_GROUP: ClassVar[str]  # the save worker's group (named in the log if it raises)
    ERROR_LINE: ClassVar[str] = "#form-error"  # a Static under the fields

    def __init__(self) -> None:
        super().__init__()
        self.error: str | None = None  # what the error line says, if anything
        self._saving = False

    # -- what each form says ------------------------------------------------------------

    @property
    def doing(self) -> str:
        """What a save does, to end "Could not …" (e.g. "create the cron")."""
        raise NotImplementedError

    def read_form(self) -> BodyT | None:
        """The request from the fields; None when there is nothing to send now (a
        problem shown, or a question asked first whose answer calls `send_now`)."""
        raise NotImplementedError

    async def send(self, body: BodyT) -> ResultT:
        """The request itself; raises `ApiError` (or `NotSaved`) when it fails."""
        raise NotImplementedError

    def field_of(self, loc: Loc) -> str | None:
        """The field of this form a 422's `loc` points at (None: no field shows it)."""
        return None

    def show_problems(self, problems: dict[str, str]) -> None:
        """Each problem (field id → message) under its field."""

    def focus_field(self, field: str) -> None:
        """Put the cursor in `field` (the first one refused)."""
        found = self.query(f"#{field}")
        widget = found.first() if found else None
        if widget is not None and widget.focusable:
            widget.focus()

    def show_error(self, message: str | None) -> None:
        """The line under the fields: why nothing was saved (None hides it)."""
        self.error = message
        widget = self.query_one(self.ERROR_LINE, Static)
        widget.update(server_text(message or ""))
        widget.display = message is not None

    # -- saving -------------------------------------------------------------------------

    @property
    def saving(self) -> bool:
        """A request is on its way: saving again does nothing until it is answered."""
        return self._saving

    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        if not self._saving:
            # Checked again once the keys typed before are in: a second press may be
            # queued behind the first.
            after_typed_keys(self, self._read_and_send)

    def _read_and_send(self) -> None:
        if self._saving:
            return
        body = self.read_form()
        if body is not None:
            self.send_now(body)

    def send_now(self, body: BodyT) -> None:
        """Send `body`: saving is off (button and key) from now until the answer."""
        if self._saving:
            return
        self._set_saving(True)
        self.show_error(None)
        self.run_worker(self._save(body), group=self.SAVE_GROUP, exit_on_error=False)

    async def _save(self, body: BodyT) -> None:
        try:
            result = await self.send(body)
        except NotSaved as refused:
            self._set_saving(False)
            self.mark_refused(refused.problems)
            self.show_error(refused.message)
            return
        except ApiError as error:
            self._set_saving(False)
            self.show_server_error(error)
            return
        self.dismiss(result)

    def worker_failed(self, worker: Worker[object]) -> None:
        if worker.group == self.SAVE_GROUP:
            self._set_saving(False)  # the app says what went wrong; the user may retry

    def _set_saving(self, saving: bool) -> None:
        self._saving = saving
        self.query_one("#save", Button).disabled = saving

    # -- saying why it failed -----------------------------------------------------------

    def describe(self, error: ApiError) -> str:
        """`Could not <doing>: <what>` and the server's details."""
        title, body = describe_error(error, self.doing)
        return f"{title}\n{body}".strip()

    def show_server_error(self, error: ApiError) -> None:
        """A 422's fields under them, counted in the error line; anything else whole."""
        refused = (
            sort_field_errors(error.errors, self.field_of)
            if isinstance(error, ValidationFailed)
            else FieldErrors()
        )
        if refused.problems:
            self.show_error(refused.summary(self.doing))
            self.mark_refused(refused.problems)
        else:
            self.show_error(self.describe(error))

    def mark_refused(self, problems: dict[str, str]) -> None:
        """Each problem under its field, and the cursor in the first."""
        if problems:
            self.show_problems(problems)
            self.focus_field(next(iter(problems)))
