"""Every time the app shows is UTC, whatever the machine's zone, in one of a few shapes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from agent_tui.text.time_text import (
    time_ago,
    updated_text,
    utc_clock,
    utc_file_stamp,
    utc_minutes,
    utc_seconds,
    utc_seconds_of_text,
)

PLUS_TWO = timezone(timedelta(hours=2))
LOCAL = datetime(2026, 1, 2, 5, 4, 5, tzinfo=PLUS_TWO)  # 03:04:05 UTC


def test_tables_show_utc_to_the_second() -> None:
    assert utc_seconds(LOCAL) == "2026-01-02 03:04:05"
    assert utc_seconds(datetime(2026, 1, 2, tzinfo=UTC)) == "2026-01-02 00:00:00"
    assert utc_seconds(None) == "—"


def test_a_naive_time_is_taken_as_utc_not_as_the_machines_zone() -> None:
    assert utc_seconds(datetime(2026, 1, 2, 3, 4, 5)) == "2026-01-02 03:04:05"


def test_narrow_columns_show_utc_to_the_minute() -> None:
    assert utc_minutes(LOCAL) == "2026-01-02 03:04"
    assert utc_minutes(None) == "—"
    assert utc_minutes(None, missing="") == ""


def test_iso_text_from_the_server_is_shown_in_utc_or_as_given() -> None:
    assert utc_seconds_of_text("2026-11-21T18:34:55.123+02:00") == "2026-11-21 16:34:55"
    assert utc_seconds_of_text("not a time") == "not a time"
    assert utc_seconds_of_text(None) == "—"
    assert utc_seconds_of_text("") == "—"


def test_clock_and_file_stamps_are_utc() -> None:
    assert utc_clock(LOCAL) == "03:04:05"
    assert utc_file_stamp(LOCAL) == "20260102-030405"


def test_time_ago_counts_the_largest_unit() -> None:
    now = datetime(2026, 1, 2, 12, 0, tzinfo=UTC)
    assert time_ago(now - timedelta(seconds=30), now) == "just now"
    assert time_ago(now - timedelta(minutes=5), now) == "5m ago"
    assert time_ago(now - timedelta(hours=3, minutes=59), now) == "3h ago"
    assert time_ago(now - timedelta(days=2), now) == "2d ago"
    assert time_ago(None, now) == "—"


def test_updated_text_lines_the_utc_dates_up() -> None:
    now = datetime(2026, 1, 2, 12, 0, tzinfo=UTC)
    assert updated_text(LOCAL, now).plain == "8h ago   2026-01-02 03:04"
    assert updated_text(None, now).plain == "—"
