"""Ordering SSE event ids of resumable runs, and telling replayed events from new ones.

langgraph-api gives resumable events Redis-style ids `"<ms>-<seq>"`. The in-memory runtime
(langgraph-runtime-inmem 0.36.7) always uses seq 0, so events sent in the same
millisecond SHARE an id, and a rejoin with `Last-Event-ID: X` replays only ids > X: the
events after the last one received that share its id would be lost. `ReplayFilter` rejoins
from the previous distinct id instead and drops, by counting, the events it already has —
exact on servers with unique ids, and on the in-memory one but for one corner case.

An event without an `id:` line of its own (`end`, say) carries the stream's last event id
(`RunEvent.id`, as the SSE spec and httpx-sse define it); the event does not say whether
the id was its own. `ReplayFilter` takes an event whose id equals the previous event's
on the same connection as such an id-less event. With ordered ids that changes nothing
(events sharing the newest id are told apart by content anyway); with ids that have no
order, only an id seen on an EARLIER event marks a replay, so an id-less event after one
with an id is never taken for a duplicate of it. The cost: a server whose unordered ids
repeat on consecutive events would have the second one kept rather than dropped — a
duplicate shown is better than a new event lost.
"""

from __future__ import annotations

from typing import Any

from agent_tui.client.events import RunEvent

REPLAY_ALL = "-1"
# What is remembered is bounded, so that a stream that never ends cannot grow it: events
# under one id (a real server shares an id between the events of one millisecond), and
# ids without an order.
MAX_GROUP = 1_000
MAX_UNORDERED_IDS = 10_000


def event_order(event_id: str | None) -> tuple[int, int] | None:
    """`"1795290128227-0"` → `(1795290128227, 0)`; a plain integer id → `(n, 0)`; None when
    the id has another shape (then ids can only be compared for equality)."""
    if not event_id:
        return None
    ms, _, seq = event_id.partition("-")
    try:
        return int(ms), int(seq or 0)
    except ValueError:
        return None


class ReplayFilter:
    """Tells events already received from new ones, across rejoins of one run.

    With ordered ids, an id older than the newest one received is a replay. Events that
    share the newest id are told apart by content: besides rejoin replays, langgraph-api
    (0.16.7, in-memory runtime) sends the events published while a rejoin was being set
    up twice on the same connection — once replayed from its store, once from the live
    queue it subscribed to first. Two identical events in the same millisecond would be
    taken for one (the run's final state still repairs the transcript).
    """

    def __init__(self) -> None:
        self._newest: tuple[int, int] | None = None
        self._group: list[tuple[str, Any]] = []  # (event name, data) of the newest id
        self._resend_at: int | None = None  # where a re-send of the group would continue
        self._unordered: dict[str, None] = {}  # ids without an order, oldest first
        self._last_ids: list[str] = []  # the last two distinct ids, in arrival order
        self._rejoined = False  # re-sends only happen on a rejoin's connection
        self._previous_id: str | None = None  # the last event's id on this connection

    def resume_from(self) -> str:
        """The `Last-Event-ID` for a rejoin: the id before the last distinct one, so that
        events sharing the last id are replayed (and recognised) rather than lost."""
        self._resend_at = 0
        self._rejoined = True
        self._previous_id = None  # a new connection: the first event's id is its own
        return self._last_ids[0] if len(self._last_ids) == 2 else REPLAY_ALL

    def is_duplicate(self, event: RunEvent) -> bool:
        """Record an event; True when it was received before."""
        event_id = event.id
        inherited = event_id is not None and event_id == self._previous_id
        self._previous_id = event_id
        if event_id is None:
            return False
        order = event_order(event_id)
        if order is None:
            if inherited:
                return False  # no id line of its own (see the module doc): not judged by id
            if event_id in self._unordered:
                return True
            self._unordered[event_id] = None
            if len(self._unordered) > MAX_UNORDERED_IDS:
                del self._unordered[next(iter(self._unordered))]
            self._note_id(event_id)
            return False
        if self._newest is not None and order < self._newest:
            self._resend_at = 0  # a re-send of older events: the newest group follows
            return True
        content = (event.raw_event, event.data)
        if order != self._newest:
            self._newest, self._group, self._resend_at = order, [content], None
            self._note_id(event_id)
            return False
        at = self._resend_at
        if at is not None and at < len(self._group) and self._group[at] == content:
            self._resend_at = at + 1
            return True
        if self._rejoined and content in self._group:
            # A re-send that started inside the group (the live queue's first events).
            self._resend_at = self._group.index(content) + 1
            return True
        if len(self._group) < MAX_GROUP:
            self._group.append(content)
        self._resend_at = None
        return False

    def _note_id(self, event_id: str) -> None:
        if not self._last_ids or self._last_ids[-1] != event_id:
            self._last_ids = [*self._last_ids[-1:], event_id]
