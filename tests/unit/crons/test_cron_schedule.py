"""Cron schedules as the create form checks them and the tables show their next runs."""

from __future__ import annotations

from datetime import UTC, datetime

from agent_tui.crons.schedule import check_schedule, next_run

MONDAY_NOON = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def test_next_three_runs_are_in_utc_after_now() -> None:
    check = check_schedule("30 6 * * 1", now=MONDAY_NOON)
    assert check.ok
    assert [d.isoformat() for d in check.next_runs] == [
        "2026-11-30T06:30:00+00:00",
        "2026-12-07T06:30:00+00:00",
        "2026-12-14T06:30:00+00:00",
    ]


def test_every_five_minutes() -> None:
    assert next_run("*/5 * * * *", now=MONDAY_NOON) == datetime(2026, 11, 23, 12, 5, tzinfo=UTC)


def test_wrong_field_count_says_what_a_schedule_is() -> None:
    check = check_schedule("0 9 * *", now=MONDAY_NOON)
    assert (
        check.error
        == "4 fields given; a schedule is five: minute hour day-of-month month day-of-week"
    )
    assert check.next_runs == ()


def test_bad_values_are_refused_with_a_reason() -> None:
    for text in ("61 * * * *", "* * * * funday", "a b c d e"):
        check = check_schedule(text, now=MONDAY_NOON)
        assert not check.ok and check.error, text
    assert not check_schedule("   ", now=MONDAY_NOON).ok


def test_a_timezone_moves_the_runs_and_an_unknown_one_is_named() -> None:
    check = check_schedule("0 9 * * *", now=MONDAY_NOON, timezone="Europe/Paris")
    assert check.next_runs[0] == datetime(2026, 11, 24, 8, 0, tzinfo=UTC)
    assert check_schedule("0 9 * * *", timezone="Mars/Olympus").error == (
        "unknown timezone 'Mars/Olympus'"
    )


def test_end_time_cuts_the_runs_short() -> None:
    end = datetime(2026, 12, 1, tzinfo=UTC)
    check = check_schedule("30 6 * * 1", now=MONDAY_NOON, end_time=end)
    assert len(check.next_runs) == 1


def test_a_timezone_typed_halfway_is_unknown_not_a_crash() -> None:
    # `Asia` is a folder of the zone database: ZoneInfo raised IsADirectoryError while
    # the user was typing `Asia/Tokyo`.
    for partial in ("Asia", "Asia/", "../etc"):
        assert check_schedule("0 9 * * *", timezone=partial).error == (
            f"unknown timezone {partial!r}"
        )
