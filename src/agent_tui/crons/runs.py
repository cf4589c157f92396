"""What a cron runs, when it runs next, and the runs it started (headless).

How a run is tied to its cron, as langgraph-api 0.16.7 records it (checked with crons
that fired on the real server): the scheduler starts each run with the cron's id in
`kwargs.config.configurable.cron_id` (also copied into `kwargs.context`). Nothing else
links them: a stateless cron's new thread has only `graph_id` and `assistant_id` in its
metadata, and there is no search of runs across threads. So:

- a thread cron: that thread's runs, kept when their `cron_id` is this cron's;
- a stateless cron: the threads of its assistant made since the cron was created
  (newest first, up to `THREADS_LOOKED_AT`), and their runs likewise. With the server's
  default `on_run_completed: "delete"` each such thread is deleted when its run ends,
  so there is nothing left to find; `CronRuns.note` says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from agent_tui.crons.schedule import next_run
from agent_tui.text.short_ids import short_thread_id

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient
    from agent_tui.client.models import Cron, Run

STATELESS = "stateless"
THREADS_LOOKED_AT = 100  # a stateless cron's threads read at most
RUNS_LOOKED_AT = 500  # a thread cron's runs read at most
_RUN_PAGE = 100
_THREAD_PAGE = 50
_RUNS_PER_THREAD = 20
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def run_cron_id(run: Run) -> str | None:
    """The id of the cron that started `run`, if one did."""
    kwargs: dict[str, Any] = run.run_kwargs or {}
    config = kwargs.get("config")
    configurable = config.get("configurable") if isinstance(config, dict) else None
    for place in (configurable, kwargs.get("context")):
        if isinstance(place, dict) and isinstance(place.get("cron_id"), str):
            return str(place["cron_id"])
    return None


def cron_thread_text(cron: Cron) -> str:
    """`…9dee15cc` for a thread cron, `stateless` for one that makes a thread per run."""
    return short_thread_id(cron.thread_id) if cron.thread_id else STATELESS


def upcoming_run(cron: Cron, now: datetime | None = None) -> datetime | None:
    """When the cron runs next, in UTC, from its schedule (its timezone honoured); None
    once its end time has passed. A schedule that does not parse here falls back on the
    server's own `next_run_date`. (The table, the detail and `agent-tui crons list`.)"""
    moment = next_run(cron.schedule, now=now, timezone=cron.timezone)
    if moment is None:
        moment = cron.next_run_date
    if moment is not None and cron.end_time is not None and moment > cron.end_time:
        return None
    return moment


@dataclass(slots=True)
class CronRuns:
    """The runs a cron started that the server still has, newest first."""

    runs: list[Run] = field(default_factory=list)
    threads_read: int = 0
    cut: bool = False  # True: stopped at a limit, older runs may exist
    note: str = ""  # what the user should know about what could be found


async def runs_of_cron(client: AgentServerClient, cron: Cron) -> CronRuns:
    """The runs `cron` started, as far as the server lets them be found (module docstring)."""
    if cron.thread_id:
        found = await _runs_on_thread(client, cron)
    else:
        found = await _runs_on_new_threads(client, cron)
    found.runs.sort(key=lambda run: run.created_at or _EPOCH, reverse=True)
    return found


async def _runs_on_thread(client: AgentServerClient, cron: Cron) -> CronRuns:
    found = CronRuns(threads_read=1)
    thread_id = cron.thread_id or ""
    for offset in range(0, RUNS_LOOKED_AT, _RUN_PAGE):
        page = await client.runs.list(thread_id, limit=_RUN_PAGE, offset=offset)
        found.runs.extend(run for run in page if run_cron_id(run) == cron.cron_id)
        if len(page) < _RUN_PAGE:
            return found
    found.cut = True
    found.note = f"only the thread's latest {RUNS_LOOKED_AT} runs were read"
    return found


async def _runs_on_new_threads(client: AgentServerClient, cron: Cron) -> CronRuns:
    found = CronRuns()
    if cron.on_run_completed in (None, "delete"):
        found.note = (
            "each run's thread is deleted when the run ends (on_run_completed: delete), "
            "so the server keeps none of this cron's runs once they finish"
        )
    metadata = {"assistant_id": cron.assistant_id} if cron.assistant_id else None
    for offset in range(0, THREADS_LOOKED_AT, _THREAD_PAGE):
        threads = await client.threads.search(
            metadata=metadata,
            limit=_THREAD_PAGE,
            offset=offset,
            sort_by="created_at",
            sort_order="desc",
            select=["thread_id", "created_at"],
        )
        for thread in threads:
            if cron.created_at and thread.created_at and thread.created_at < cron.created_at:
                return found  # older than the cron: it cannot have made these
            found.threads_read += 1
            runs = await client.runs.list(thread.thread_id, limit=_RUNS_PER_THREAD)
            found.runs.extend(run for run in runs if run_cron_id(run) == cron.cron_id)
        if len(threads) < _THREAD_PAGE:
            return found
    found.cut = True
    extra = f"only the latest {THREADS_LOOKED_AT} threads of its assistant were searched"
    found.note = f"{found.note}; {extra}" if found.note else extra
    return found
