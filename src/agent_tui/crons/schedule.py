"""Cron schedules, headless: checked as the user types, and when they next fire (UTC).

The agent server reads schedules with croniter in UTC unless a cron names a timezone;
the same library here means a schedule we accept is one the server accepts, and the
next run times we show are the ones it will use.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from croniter import CroniterBadCronError, CroniterBadDateError, croniter

FIELDS = "minute hour day-of-month month day-of-week"


@dataclass(frozen=True, slots=True)
class ScheduleCheck:
    """A schedule as typed: `error` says what is wrong, else `next_runs` are when it fires."""

    schedule: str
    error: str | None = None
    next_runs: tuple[datetime, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None


def check_schedule(
    schedule: str,
    *,
    now: datetime | None = None,
    count: int = 3,
    timezone: str | None = None,
    end_time: datetime | None = None,
) -> ScheduleCheck:
    """Whether `schedule` is a five-field cron expression, and its next `count` runs in UTC
    (fewer, or none, when `end_time` comes first)."""
    text = schedule.strip()
    if not text:
        return ScheduleCheck(schedule, error=f"a schedule is five fields: {FIELDS}")
    fields = text.split()
    if len(fields) != 5:
        return ScheduleCheck(
            schedule,
            error=f"{len(fields)} field{'s' if len(fields) != 1 else ''} given; "
            f"a schedule is five: {FIELDS}",
        )
    try:
        zone = ZoneInfo(timezone) if timezone else UTC
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return ScheduleCheck(schedule, error=f"unknown timezone {timezone!r}")
    start = (now or datetime.now(UTC)).astimezone(zone)
    try:
        iterator = croniter(text, start)
        runs: list[datetime] = []
        for _ in range(count):
            moment = iterator.get_next(datetime).astimezone(UTC)
            if end_time is not None and moment > end_time:
                break
            runs.append(moment)
    except (CroniterBadCronError, CroniterBadDateError, ValueError, KeyError) as error:
        return ScheduleCheck(schedule, error=str(error) or "not a cron schedule")
    return ScheduleCheck(schedule, next_runs=tuple(runs))


def next_run(
    schedule: str, *, now: datetime | None = None, timezone: str | None = None
) -> datetime | None:
    """When `schedule` fires next, in UTC; None when it does not parse."""
    check = check_schedule(schedule, now=now, count=1, timezone=timezone)
    return check.next_runs[0] if check.next_runs else None
