"""A new cron read from form fields, and what the server's refusals are about (headless);
what a cron runs and when next, and which runs it started."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent_tui.client.errors import FieldError, NotFound, ValidationFailed
from agent_tui.client.models import Cron, Run
from agent_tui.crons.draft import (
    CronDraftError,
    parse_end_time,
    preview_text,
    read_draft,
    refused_fields,
    schedule_preview,
)
from agent_tui.crons.runs import cron_thread_text, run_cron_id, upcoming_run

SATURDAY_NOON = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def test_a_message_becomes_a_user_message_and_json_is_parsed() -> None:
    draft = read_draft(assistant="a1", schedule=" 0 9 * * 1-5 ", input_text="hi", now=SATURDAY_NOON)
    assert draft.schedule == "0 9 * * 1-5" and draft.thread is None
    assert draft.options() == {"input": {"messages": [{"role": "user", "content": "hi"}]}}
    assert draft.next_runs[0] == datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
    as_json = read_draft(
        assistant="a1",
        schedule="0 9 * * *",
        thread=" …abcd1234 ",
        input_text='{"n": 1}',
        input_is_json=True,
        timezone="Europe/Paris",
        end_time="2027-01-31",
        on_run_completed="keep",
        now=SATURDAY_NOON,
    )
    assert as_json.thread == "…abcd1234"
    # What becomes of a run's thread is a stateless cron's choice only.
    kept = read_draft(assistant="a1", schedule="0 9 * * *", on_run_completed="keep")
    assert kept.options() == {"on_run_completed": "keep"}
    assert as_json.options() == {
        "input": {"n": 1},
        "timezone": "Europe/Paris",
        "end_time": datetime(2027, 1, 31, tzinfo=UTC),
    }
    # Blank input sends none.
    assert read_draft(assistant="a1", schedule="0 9 * * *").options() == {}


def test_every_wrong_field_is_named_at_once() -> None:
    with pytest.raises(CronDraftError) as raised:
        read_draft(
            assistant=None,
            schedule="0 9 * *",
            input_text="{",
            input_is_json=True,
            timezone="Mars/Base",
            end_time="soon",
        )
    problems = raised.value.problems
    assert set(problems) == {"assistant", "input", "schedule", "timezone", "end_time"}
    assert problems["input"].startswith("the input is not valid JSON: ")
    assert problems["schedule"].startswith("4 fields given")
    assert problems["end_time"].startswith("not a date")


def test_an_end_time_before_the_first_run_is_refused() -> None:
    with pytest.raises(CronDraftError) as raised:
        read_draft(assistant="a1", schedule="0 0 1 1 *", end_time="2026-12-01", now=SATURDAY_NOON)
    assert raised.value.problems == {
        "end_time": "before the schedule's first run: the cron would never run"
    }


def test_end_times_are_utc_unless_they_say_otherwise() -> None:
    assert parse_end_time("") is None
    assert parse_end_time("2027-01-31 18:00") == datetime(2027, 1, 31, 18, tzinfo=UTC)
    assert parse_end_time("2027-01-31T18:00Z") == datetime(2027, 1, 31, 18, tzinfo=UTC)
    with_offset = parse_end_time("2027-01-31T18:00+01:00")
    assert with_offset is not None and with_offset.astimezone(UTC).hour == 17


def test_the_preview_reads_the_schedule_in_its_timezone_within_its_end() -> None:
    check = schedule_preview("0 9 * * *", timezone="Europe/Paris", now=SATURDAY_NOON)
    assert preview_text(check) == (
        "next runs (UTC): 2026-11-22 08:00 · 2026-11-23 08:00 · 2026-11-24 08:00"
    )
    short = schedule_preview("0 9 * * *", end_time="2026-11-23 12:00", now=SATURDAY_NOON)
    assert preview_text(short, end_time_set=True) == (
        "next runs (UTC): 2026-11-22 09:00 · 2026-11-23 09:00 (then the end time)"
    )
    # A timezone half typed is the timezone field's problem: the schedule reads as UTC.
    assert schedule_preview("0 9 * * *", timezone="Asia", now=SATURDAY_NOON).ok


def test_the_servers_refusals_are_put_under_their_fields() -> None:
    schedule = ValidationFailed("Invalid cron schedule: 'x'. Reason: …")
    assert refused_fields(schedule) == {"schedule": "Invalid cron schedule: 'x'. Reason: …"}
    zone = ValidationFailed("Invalid timezone: 'Mars'. Use IANA timezone format")
    assert list(refused_fields(zone)) == ["timezone"]
    schema = ValidationFailed(
        '3 is not valid under any of the schemas\n\nFailed validating "anyOf" in '
        'schema["properties"]["input"]'
    )
    assert refused_fields(schema) == {"input": "3 is not valid under any of the schemas"}
    listed = ValidationFailed(
        "invalid",
        errors=[FieldError(("body", "schedule"), "bad"), FieldError(("body", "thread_id"), "no")],
    )
    assert refused_fields(listed) == {"schedule": "bad", "thread": "no"}
    assert list(refused_fields(NotFound("Assistant 'nope' not found"))) == ["assistant"]
    assert list(refused_fields(NotFound("Thread with ID 'x' not found."))) == ["thread"]
    assert refused_fields(ValidationFailed("something else")) == {}


def _cron(**fields: object) -> Cron:
    return Cron.model_validate({"cron_id": "1f0c6a00-0000-7000-8000-00000000beef", **fields})


def test_next_run_comes_from_the_schedule_and_stops_at_the_end() -> None:
    assert upcoming_run(_cron(schedule="0 0 1 1 *"), SATURDAY_NOON) == datetime(
        2027, 1, 1, tzinfo=UTC
    )
    tokyo = _cron(schedule="0 0 1 1 *", timezone="Asia/Tokyo")
    assert upcoming_run(tokyo, SATURDAY_NOON) == datetime(2026, 12, 31, 15, tzinfo=UTC)
    ended = _cron(schedule="0 0 1 1 *", end_time="2026-12-01T00:00:00+00:00")
    assert upcoming_run(ended, SATURDAY_NOON) is None
    # A schedule not read here: the server's own date.
    odd = _cron(schedule="@yearly-ish", next_run_date="2027-01-01T00:00:00+00:00")
    assert upcoming_run(odd, SATURDAY_NOON) == datetime(2027, 1, 1, tzinfo=UTC)


def test_a_cron_runs_on_its_thread_or_stateless() -> None:
    assert cron_thread_text(_cron()) == "stateless"
    bound = _cron(thread_id="1f0c6a00-0000-7000-8000-0000deadbeef")
    assert cron_thread_text(bound) == "…deadbeef"


def test_an_end_time_the_server_stored_unread_does_not_break_the_cron() -> None:
    assert _cron(end_time="yesterday").end_time is None


def test_a_run_names_its_cron_in_its_config() -> None:
    by_cron = Run.model_validate(
        {"run_id": "r1", "kwargs": {"config": {"configurable": {"cron_id": "c1"}}}}
    )
    in_context = Run.model_validate({"run_id": "r2", "kwargs": {"context": {"cron_id": "c2"}}})
    plain = Run.model_validate({"run_id": "r3", "kwargs": {"config": None}})
    assert [run_cron_id(r) for r in (by_cron, in_context, plain)] == ["c1", "c2", None]
