"""A new cron as typed in a form (headless): every field checked in words for the user,
and the server's refusals put back under the field they are about.

Fields (their ids, shared by the form and the errors): `assistant` (an assistant id or a
graph name), `thread` (blank: each run on a new thread, "stateless"), `input` (message
text, or JSON), `schedule`, `timezone` (IANA, blank: UTC) and `end_time` (a date or a
date and time, UTC unless it names an offset).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from agent_tui.client.errors import ApiError, NotFound, ValidationFailed
from agent_tui.client.form_errors import body_loc
from agent_tui.crons.schedule import ScheduleCheck, check_schedule
from agent_tui.text.time_text import utc_minutes
from agent_tui.text.user_json import JsonTextError, parse_json

FIELDS = ("assistant", "thread", "input", "schedule", "timezone", "end_time")

END_TIME_HINT = "a date (2027-01-31) or a date and time (2027-01-31 18:00), in UTC"


class CronDraftError(ValueError):
    """What is wrong with the form: field id → the reason, for every field at once."""

    def __init__(self, problems: dict[str, str]) -> None:
        super().__init__("; ".join(f"{name}: {why}" for name, why in problems.items()))
        self.problems = problems


@dataclass(frozen=True, slots=True)
class CronDraft:
    assistant_id: str
    schedule: str
    thread: str | None = None  # as typed (a full or a short id); None: stateless
    input: Any = None
    timezone: str | None = None
    end_time: datetime | None = None
    # Stateless crons only: "keep" each run's new thread, or "delete" it once the run
    # ends (the server's default); None leaves it to the server.
    on_run_completed: str | None = None
    next_runs: tuple[datetime, ...] = field(default=())

    def options(self) -> dict[str, Any]:
        """The keywords of `client.crons.create(...)` beyond assistant and schedule."""
        options: dict[str, Any] = {}
        if self.input is not None:
            options["input"] = self.input
        if self.timezone:
            options["timezone"] = self.timezone
        if self.end_time is not None:
            options["end_time"] = self.end_time
        if self.on_run_completed and self.thread is None:
            options["on_run_completed"] = self.on_run_completed
        return options


def message_input(text: str) -> dict[str, Any]:
    """A message typed as text, as the input of a chat graph (what the chat sends)."""
    return {"messages": [{"role": "user", "content": text}]}


def timezone_problem(text: str) -> str | None:
    """Why `text` is not a timezone the server knows (None when it is, or blank)."""
    name = text.strip()
    if not name:
        return None
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return f"unknown timezone {name!r}: use an IANA name such as Europe/Paris"
    return None


def parse_end_time(text: str) -> datetime | None:
    """`2027-01-31`, `2027-01-31 18:00` or ISO with an offset; UTC unless it names one.
    None for blank text; `ValueError` in words for the user."""
    value = text.strip()
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"not a date: write {END_TIME_HINT}") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def schedule_preview(
    schedule: str, *, timezone: str = "", end_time: str = "", now: datetime | None = None
) -> ScheduleCheck:
    """The schedule as the form shows it while typing: its error, or its next three runs
    (within the end time when that parses; an unknown timezone is the timezone field's
    problem, so the schedule is then read in UTC)."""
    try:
        end = parse_end_time(end_time)
    except ValueError:
        end = None
    zone = timezone.strip() if timezone_problem(timezone) is None else ""
    return check_schedule(schedule, now=now, count=3, timezone=zone or None, end_time=end)


def preview_text(check: ScheduleCheck, *, end_time_set: bool = False) -> str:
    """`next runs (UTC): 2027-01-01 00:00 · …`, or what is wrong."""
    if check.error:
        return check.error
    if not check.next_runs:
        return "never runs: the end time comes before the first run"
    runs = " · ".join(utc_minutes(moment) for moment in check.next_runs)
    more = "" if len(check.next_runs) == 3 or not end_time_set else " (then the end time)"
    return f"next runs (UTC): {runs}{more}"


def read_draft(
    *,
    assistant: str | None,
    schedule: str,
    thread: str = "",
    input_text: str = "",
    input_is_json: bool = False,
    timezone: str = "",
    end_time: str = "",
    on_run_completed: str | None = None,
    now: datetime | None = None,
) -> CronDraft:
    """The cron the fields describe; `CronDraftError` naming every field that is wrong.
    Empty input sends none (the graph runs on its defaults)."""
    problems: dict[str, str] = {}
    if not assistant:
        problems["assistant"] = "pick the assistant (or graph) to run"
    payload: Any = None
    if input_text.strip():
        if input_is_json:
            try:
                payload = parse_json(input_text, "the input")
            except JsonTextError as error:
                problems["input"] = str(error)
        else:
            payload = message_input(input_text)
    zone_problem = timezone_problem(timezone)
    if zone_problem:
        problems["timezone"] = zone_problem
    end: datetime | None = None
    try:
        end = parse_end_time(end_time)
    except ValueError as error:
        problems["end_time"] = str(error)
    check = schedule_preview(schedule, timezone=timezone, end_time=end_time, now=now)
    if check.error:
        problems["schedule"] = check.error
    elif not check.next_runs and "end_time" not in problems:
        problems["end_time"] = "before the schedule's first run: the cron would never run"
    if problems:
        raise CronDraftError(problems)
    return CronDraft(
        assistant_id=assistant or "",
        schedule=schedule.strip(),
        thread=thread.strip() or None,
        input=payload,
        timezone=timezone.strip() or None,
        end_time=end,
        on_run_completed=on_run_completed,
        next_runs=check.next_runs,
    )


# The agent server's own words, by the field they are about: its 422s are plain
# strings ("Invalid cron schedule: …", "Invalid timezone: …", a JSON schema failure
# naming `schema["properties"]["input"]`), its 404s name the assistant or thread.
_SCHEMA_FIELD = re.compile(r'schema\["properties"\]\["(\w+)"\]')
_BY_WORDS = (
    ("Invalid cron schedule", "schedule"),
    ("Invalid timezone", "timezone"),
    ("Assistant", "assistant"),
    ("Thread", "thread"),
)
_API_FIELDS = {"assistant_id": "assistant", "thread_id": "thread"}


def refused_fields(error: ApiError) -> dict[str, str]:
    """The form fields a server error is about, each with the server's words (empty
    when it names none: the form shows the error whole)."""
    if not isinstance(error, ValidationFailed | NotFound):
        return {}
    found: dict[str, str] = {}
    for item in getattr(error, "errors", ()):
        loc = body_loc(item.loc)
        name = _API_FIELDS.get(loc[0], loc[0]) if loc else ""
        if name in FIELDS:
            found[name] = f"{found[name]}; {item.msg}" if name in found else item.msg
    if found:
        return found
    message = error.message
    schema = _SCHEMA_FIELD.search(message)
    if schema and schema.group(1) in FIELDS:
        return {schema.group(1): message.split("\n", 1)[0]}
    for words, name in _BY_WORDS:
        if message.startswith(words):
            return {name: message}
    return {}
