"""The new-cron form: what to run (assistant, thread or stateless, input), and when.

The schedule is checked as it is typed, with the server's own parser (`crons.schedule`):
under the field either what is wrong with it, or its next three runs in UTC (in its
timezone, before its end time). Saving checks every field first; the server's refusals
(a 422, an unknown assistant or thread) go under the field they are about. The form
stays open on any error with everything typed still there. Dismisses with the new
`Cron`, or None on cancel.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Footer, Label, Static

from agent_tui.assistants.fetch import fetch_all_assistants
from agent_tui.client import AgentServerClient, ApiError
from agent_tui.client.error_text import describe_error, nothing_sent
from agent_tui.client.models import Cron
from agent_tui.crons.draft import (
    FIELDS,
    CronDraft,
    CronDraftError,
    parse_end_time,
    preview_text,
    read_draft,
    refused_fields,
    schedule_preview,
    timezone_problem,
)
from agent_tui.text.time_text import Clock, now_utc
from agent_tui.threads.lookup import ThreadNotFound, resolve_thread_id
from agent_tui.tui.agent_screen import refuse_if_readonly
from agent_tui.tui.modals.saving_form import NotSaved, SavingForm
from agent_tui.tui.widgets.inert import Input, Select, TextArea
from agent_tui.tui.widgets.text import server_text

MESSAGE = "message"
JSON = "json"
EXAMPLE_SCHEDULE = "0 9 * * 1-5"


class CronFormScreen(SavingForm[CronDraft, Cron]):
    DEFAULT_CSS = """
    CronFormScreen { align: center middle; }
    CronFormScreen > Vertical {
        width: 90%; max-width: 110; height: 95%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    CronFormScreen #form-title { text-style: bold; padding: 0 1; background: $primary 30%; }
    CronFormScreen #form-body { height: 1fr; padding: 0 1; }
    CronFormScreen Label { margin-top: 1; }
    CronFormScreen .pair, CronFormScreen .pair > Vertical { height: auto; }
    CronFormScreen .pair > Vertical { width: 1fr; }
    CronFormScreen .pair > #input-kind-column { width: 22; }
    CronFormScreen .pair > #threads-column { width: 28; }
    CronFormScreen #input { height: 4; }
    CronFormScreen .field-note { color: $text-muted; height: auto; }
    CronFormScreen .field-note.-error { color: $text-error; }
    CronFormScreen .field-note.-ok { color: $text-success; }
    CronFormScreen #form-error { color: $text-error; height: auto; max-height: 8; }
    CronFormScreen .buttons { height: auto; align-horizontal: right; }
    CronFormScreen Button { margin-left: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="cron_form.cancel"),
        Binding("ctrl+s", "save", "Create", priority=True, id="cron_form.save"),
    ]
    SAVE_GROUP = "cron-form-save"
    doing = "create the cron"

    def __init__(
        self,
        client: AgentServerClient,
        *,
        assistant_id: str | None = None,
        thread_id: str = "",
        clock: Clock = now_utc,
    ) -> None:
        super().__init__()
        self.client = client
        self.initial_assistant = assistant_id
        self.initial_thread = thread_id
        self.clock = clock
        self.problems: dict[str, str] = {}  # field id → what is wrong, as shown

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("New cron", id="form-title")
            with VerticalScroll(id="form-body"):
                yield Label("Assistant (or graph) to run")
                yield Select[str]([], prompt="loading the assistants…", id="assistant")
                yield Static(classes="field-note", id="assistant-note")
                with Horizontal(classes="pair"):
                    with Vertical():
                        yield Label("Thread id")
                        yield Input(
                            self.initial_thread,
                            placeholder="blank: a new thread per run",
                            id="thread",
                        )
                        yield Static(classes="field-note", id="thread-note")
                    with Vertical(id="threads-column"):
                        yield Label("A stateless run's thread")
                        yield Select(
                            [("is deleted after", "delete"), ("is kept", "keep")],
                            allow_blank=False,
                            value="delete",
                            id="on_run_completed",
                        )
                    with Vertical(id="input-kind-column"):
                        yield Label("Input as")
                        yield Select(
                            [("message text", MESSAGE), ("JSON", JSON)],
                            allow_blank=False,
                            value=MESSAGE,
                            id="input-kind",
                        )
                yield Label("Input")
                yield TextArea(id="input", soft_wrap=True)
                yield Static(classes="field-note", id="input-note")
                yield Label("Schedule (minute hour day-of-month month day-of-week)")
                yield Input(placeholder=EXAMPLE_SCHEDULE, id="schedule")
                yield Static(classes="field-note", id="schedule-note")
                with Horizontal(classes="pair"):
                    with Vertical():
                        yield Label("Timezone of the schedule")
                        yield Input(placeholder="UTC, or Europe/Paris…", id="timezone")
                        yield Static(classes="field-note", id="timezone-note")
                    with Vertical():
                        yield Label("End time (optional, UTC)")
                        yield Input(placeholder="2027-01-31 or 2027-01-31 18:00", id="end_time")
                        yield Static(classes="field-note", id="end_time-note")
            yield Static(id="form-error")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Create (ctrl+s)", id="save", variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        self.show_error(None)
        for name in FIELDS:
            self._note(name, "")
        self._update_input_note()
        self._update_schedule_note()
        self.query_one("#assistant", Select).focus()
        self._load_assistants()

    # -- the fields ---------------------------------------------------------------------

    def value(self, name: str) -> str:
        """What field `name` holds, as typed."""
        if name == "input":
            return self.query_one("#input", TextArea).text
        if name == "assistant":
            chosen = self.query_one("#assistant", Select).value
            return chosen if isinstance(chosen, str) else ""
        return self.query_one(f"#{name}", Input).value

    @property
    def keep_or_delete(self) -> str:
        """What becomes of a stateless run's thread: "delete" (the server's default) or
        "keep" (then `enter` on the cron finds its runs)."""
        chosen = self.query_one("#on_run_completed", Select).value
        return chosen if isinstance(chosen, str) else "delete"

    @property
    def input_is_json(self) -> bool:
        return self.query_one("#input-kind", Select).value == JSON

    @work(exclusive=True, group="cron-form-assistants", exit_on_error=False)
    async def _load_assistants(self) -> None:
        select: Select[str] = self.query_one("#assistant", Select)
        try:
            assistants, _cut = await fetch_all_assistants(self.client)
        except ApiError as error:
            title, body = describe_error(error, "list the assistants")
            self._note("assistant", f"{title}\n{body}", error=True)
            select.prompt = "no assistants"
            return
        ordered = sorted(assistants, key=lambda a: (a.graph_id, not a.is_default, a.name))
        select.set_options(
            (server_text(f"{a.name} · graph {a.graph_id}"), a.assistant_id) for a in ordered
        )
        select.prompt = "pick one" if ordered else "this server has no assistants"
        wanted = self.initial_assistant
        for assistant in ordered:
            if wanted in (
                assistant.assistant_id,
                assistant.graph_id if assistant.is_default else "",
            ):
                select.value = assistant.assistant_id
                break

    def _note(self, name: str, message: str, *, error: bool = False, ok: bool = False) -> None:
        widget = self.query_one(f"#{name}-note", Static)
        widget.update(server_text(message))
        widget.display = bool(message)
        widget.set_class(error, "-error")
        widget.set_class(ok, "-ok")
        if error:
            self.problems[name] = message
        else:
            self.problems.pop(name, None)

    @on(Input.Changed, "#schedule, #timezone, #end_time")
    def _timing_changed(self, event: Input.Changed) -> None:
        self._update_schedule_note()

    def _update_schedule_note(self) -> None:
        """The schedule as typed: its error, or its next three runs (UTC)."""
        timezone, end_time = self.value("timezone"), self.value("end_time")
        zone_problem = timezone_problem(timezone)
        self._note("timezone", zone_problem or "", error=bool(zone_problem))
        try:
            parse_end_time(end_time)
        except ValueError as error:
            self._note("end_time", str(error), error=True)
        else:
            self._note("end_time", "")
        schedule = self.value("schedule")
        if not schedule.strip():
            self._note("schedule", f"for example {EXAMPLE_SCHEDULE}: 09:00 on weekdays")
            return
        check = schedule_preview(schedule, timezone=timezone, end_time=end_time, now=self.clock())
        text = preview_text(check, end_time_set=bool(end_time.strip()))
        self._note("schedule", text, error=not check.ok, ok=check.ok and bool(check.next_runs))

    @on(Select.Changed, "#input-kind")
    @on(TextArea.Changed, "#input")
    def _update_input_note(self) -> None:
        hint = (
            "a JSON value, checked before saving (blank: no input)"
            if self.input_is_json
            else 'sent as a user message: {"messages": [{"role": "user", …}]} (blank: no input)'
        )
        self._note("input", hint)

    # -- saving -------------------------------------------------------------------------

    @on(Input.Submitted)
    def _enter_saves(self) -> None:
        self.action_save()

    def read_form(self) -> CronDraft | None:
        if refuse_if_readonly(self.app, "create a cron"):
            return None
        try:
            return read_draft(
                assistant=self.value("assistant"),
                thread=self.value("thread"),
                input_text=self.value("input"),
                input_is_json=self.input_is_json,
                schedule=self.value("schedule"),
                timezone=self.value("timezone"),
                end_time=self.value("end_time"),
                on_run_completed=self.keep_or_delete,
                now=self.clock(),
            )
        except CronDraftError as invalid:
            self.mark_refused(invalid.problems)
            self.show_error(nothing_sent(len(invalid.problems)))
            return None

    async def send(self, draft: CronDraft) -> Cron:
        if draft.thread is None:
            return await self.client.crons.create(
                draft.assistant_id, draft.schedule, **draft.options()
            )
        try:
            thread_id = await resolve_thread_id(self.client, draft.thread)
        except ThreadNotFound as missing:
            raise NotSaved(
                "Could not create the cron: no such thread.", {"thread": str(missing)}
            ) from None
        return await self.client.crons.create_for_thread(
            thread_id, draft.assistant_id, draft.schedule, **draft.options()
        )

    def show_server_error(self, error: ApiError) -> None:
        # The agent server's refusals are mostly plain strings: `refused_fields` finds
        # the field from its words, and the line keeps them whole.
        self.mark_refused(refused_fields(error))
        self.show_error(self.describe(error))

    def mark_refused(self, problems: dict[str, str]) -> None:
        # In the form's order, so the cursor goes to the first field on screen.
        super().mark_refused({name: problems[name] for name in FIELDS if name in problems})

    def show_problems(self, problems: dict[str, str]) -> None:
        for name, message in problems.items():
            self._note(name, message, error=True)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
