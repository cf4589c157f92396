"""A thread's checkpoints, page by page, as rows for a list. Headless.

`ThreadHistory(client, thread_id, page_size)` loads the history most recent first with
`before=<oldest loaded checkpoint>` (the form langgraph-api accepts is in
`client.threads.checkpoint_config`), so a thread with thousands of checkpoints opens with
one small request and the rest loads as the user scrolls (`load_more()`).

Which nodes wrote a checkpoint comes from `threads.writes`.

A row whose parent is on a page not loaded yet is completed when that page arrives.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_tui.client.models import ThreadState
from agent_tui.text.short_ids import short_checkpoint_id
from agent_tui.text.time_text import utc_seconds_of_text
from agent_tui.threads.writes import (
    WritesSource,
    checkpoint_interrupts,
    checkpoint_writes,
)

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000  # langgraph-api refuses a larger history `limit` (422)


class StateNotKept(LookupError):
    """A checkpoint's state was let go to keep memory flat (`ThreadHistory(keep_states=)`):
    `ThreadHistory.load_state` reads it again."""


class HeldState:
    """A row's hold on its checkpoint's state: emptied when the history lets it go."""

    __slots__ = ("state",)

    def __init__(self, state: ThreadState | None) -> None:
        self.state = state


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One checkpoint, as the history list shows it."""

    checkpoint_id: str
    parent_checkpoint_id: str | None
    step: int | None
    source: str | None
    writers: tuple[str, ...]  # nodes that wrote; () when not known (see `written_keys`)
    written_keys: tuple[str, ...]  # top-level state keys written
    writes_source: WritesSource | None  # None: the parent is not loaded yet
    next: tuple[str, ...]
    interrupts: tuple[Any, ...]  # the interrupt values
    created_at: str | None
    held: HeldState = field(repr=False, compare=False)
    run_id: str | None = None  # the run that wrote it (`metadata.run_id`)
    # Task name → the namespace of the subgraph checkpoints it ran in.
    namespaces: tuple[tuple[str, str], ...] = ()

    @property
    def state(self) -> ThreadState:
        """The checkpoint's whole state; `StateNotKept` once the history let it go."""
        if self.held.state is None:
            raise StateNotKept(self.checkpoint_id)
        return self.held.state

    @property
    def subgraph_namespaces(self) -> dict[str, str]:
        """Task name → the namespace of the subgraph checkpoints it ran in (`chat:<task
        id>`), for the tasks of this checkpoint that ran a subgraph."""
        return dict(self.namespaces)

    @classmethod
    def of(
        cls,
        state: ThreadState,
        parent: ThreadState | None,
        parent_loaded: bool,
        held: HeldState | None = None,
    ) -> HistoryRow:
        writes = checkpoint_writes(state, parent) if parent_loaded else None
        writers: tuple[str, ...] = ()
        keys: list[str] = []
        if writes is not None:
            writers = tuple(writes.nodes) if writes.known_nodes else ()
            for value in writes.nodes.values():
                if isinstance(value, Mapping):
                    keys += [str(key) for key in value if str(key) not in keys]
        run_id = state.metadata.get("run_id")
        namespaces = []
        for task in state.tasks:
            namespace = (task.checkpoint or {}).get("checkpoint_ns")
            if isinstance(namespace, str) and namespace:
                namespaces.append((task.name, namespace))
        return cls(
            checkpoint_id=state.checkpoint_id or "",
            parent_checkpoint_id=state.parent_checkpoint_id,
            step=state.step,
            source=state.source,
            writers=writers,
            written_keys=tuple(keys),
            writes_source=writes.source if writes is not None else None,
            next=tuple(state.next),
            interrupts=tuple(i.get("value") for i in checkpoint_interrupts(state)),
            created_at=state.created_at,
            held=held or HeldState(state),
            run_id=run_id if isinstance(run_id, str) and run_id else None,
            namespaces=tuple(namespaces),
        )

    @property
    def short_id(self) -> str:
        return short_checkpoint_id(self.checkpoint_id)

    @property
    def time(self) -> str:
        return utc_seconds_of_text(self.created_at)

    @property
    def wrote(self) -> str:
        """The "wrote" column: node names, else the keys an update changed."""
        if self.writers:
            return ", ".join(self.writers)
        if self.written_keys:
            return "(" + ", ".join(self.written_keys) + ")"
        return "" if self.writes_source else "…"

    def as_json(self) -> dict[str, Any]:
        return {
            "checkpoint_id": self.checkpoint_id,
            "parent_checkpoint_id": self.parent_checkpoint_id,
            "step": self.step,
            "source": self.source,
            "writers": list(self.writers),
            "written_keys": list(self.written_keys),
            "writes_source": self.writes_source,
            "next": list(self.next),
            "interrupts": list(self.interrupts),
            "created_at": self.created_at,
        }


class ThreadHistory:
    """The history of one thread, most recent first, loaded a page at a time.

    `keep_states`: how many checkpoints' whole states to hold at most (None: all). Every
    row stays; the states used least recently are let go (`HistoryRow.state` then raises
    `StateNotKept`, `state()` answers None) and `load_state` reads one again. A thread
    whose states grow with its length (a chat's messages) would otherwise hold the square
    of its length in memory once paged through.
    """

    def __init__(
        self,
        client: AgentServerClient,
        thread_id: str,
        page_size: int = DEFAULT_PAGE_SIZE,
        *,
        keep_states: int | None = None,
    ) -> None:
        if not 1 <= page_size <= MAX_PAGE_SIZE:
            raise ValueError(f"page_size must be between 1 and {MAX_PAGE_SIZE}, got {page_size}")
        self.client = client
        self.thread_id = thread_id
        self.page_size = page_size
        self.keep_states = keep_states
        self.rows: list[HistoryRow] = []
        self.exhausted = False
        self._held: dict[str, HeldState] = {}  # every checkpoint loaded
        self._parents: dict[str, str | None] = {}
        self._kept: OrderedDict[str, None] = OrderedDict()  # states held, least recent first
        self._incomplete: list[int] = []  # rows whose parent was not loaded yet

    def __len__(self) -> int:
        return len(self.rows)

    def state(self, checkpoint_id: str) -> ThreadState | None:
        """The checkpoint's state if it is held (loaded and not let go)."""
        held = self._held.get(checkpoint_id)
        if held is None or held.state is None:
            return None
        if checkpoint_id in self._kept:
            self._kept.move_to_end(checkpoint_id)
        return held.state

    async def load_state(self, checkpoint_id: str) -> ThreadState:
        """The checkpoint's state: held, else read from the server (and held again).
        Raises the client's errors."""
        state = self.state(checkpoint_id)
        if state is not None:
            return state
        state = await self.client.threads.get_state(self.thread_id, checkpoint_id)
        held = self._held.get(checkpoint_id)
        if held is not None:
            held.state = state
            self._keep(checkpoint_id)
        return state

    def parent_of(self, row: HistoryRow) -> ThreadState | None:
        parent = row.parent_checkpoint_id
        return self.state(parent) if parent else None

    async def load_more(self, limit: int | None = None) -> list[HistoryRow]:
        """The next (older) page of rows, also appended to `rows`; [] once exhausted.
        `limit`: this page's size instead of `page_size` (a first screenful)."""
        if self.exhausted:
            return []
        limit = min(limit or self.page_size, MAX_PAGE_SIZE)
        before = self.rows[-1].checkpoint_id if self.rows else None
        page = await self.client.threads.get_history(self.thread_id, limit=limit, before=before)
        if len(page) < limit:
            self.exhausted = True
        page = [state for state in page if state.checkpoint_id not in self._held]
        if not page:
            self.exhausted = True
            self._complete_earlier_rows()
            return []
        for state in page:
            self._hold(state)
        self._complete_earlier_rows()
        start = len(self.rows)
        for state in page:
            self.rows.append(self._row(state))
        self._incomplete += [
            index
            for index in range(start, len(self.rows))
            if self.rows[index].writes_source is None
        ]
        if self.keep_states is not None:
            # The page's newest checkpoints are the ones a cursor going down comes to
            # first (and the first page's first is shown on opening): let go last.
            for state in reversed(page):
                if (checkpoint_id := state.checkpoint_id or "") in self._kept:
                    self._kept.move_to_end(checkpoint_id)
        self._let_go()
        return self.rows[start:]

    async def load_newer(self) -> list[HistoryRow]:
        """Checkpoints made since the first load (a run, a fork, a replay), put at the top
        of `rows` and returned; the rows already loaded stay as they are."""
        if not self.rows:
            return await self.load_more()
        fresh: list[ThreadState] = []
        before: str | None = None
        while True:
            page = await self.client.threads.get_history(
                self.thread_id, limit=self.page_size, before=before
            )
            # Newest first: the new ones are those above the first one loaded already.
            # Below it are older ones not paged in yet (the rest of a first screenful's
            # page), which are not newer.
            new = list(itertools.takewhile(lambda s: s.checkpoint_id not in self._held, page))
            fresh += new
            # A checkpoint loaded while its tasks were still pending (an interrupt, a
            # running node) now has their results: the new rows read their writers
            # from them, so keep the newer copy (its own row does not change).
            for state in page:
                known = self._held.get(state.checkpoint_id or "")
                if known is not None and (known.state is None or known.state.tasks != state.tasks):
                    known.state = state
                    self._keep(state.checkpoint_id or "")
            if len(new) < len(page) or len(page) < self.page_size:
                break
            before = page[-1].checkpoint_id
        for state in fresh:
            self._hold(state)
        for state in fresh:
            # A parent let go meanwhile (the cursor went far down): read again, so the
            # new row knows its writers.
            parent = self._held.get(state.parent_checkpoint_id or "")
            if parent is not None and parent.state is None:
                await self.load_state(state.parent_checkpoint_id or "")
        rows = [self._row(state) for state in fresh]
        self.rows[:0] = rows
        self._incomplete = [index + len(rows) for index in self._incomplete]
        self._incomplete[:0] = [i for i, row in enumerate(rows) if row.writes_source is None]
        self._let_go()
        return rows

    def children_of(self, checkpoint_id: str) -> list[HistoryRow]:
        """The loaded checkpoints made on top of `checkpoint_id`: more than one is a fork."""
        return [row for row in self.rows if row.parent_checkpoint_id == checkpoint_id]

    def branch_end(self, checkpoint_id: str) -> str:
        """The newest loaded checkpoint of the branch `checkpoint_id` is on (at a fork,
        the newest branch): `checkpoint_id` itself when nothing was made on top of it."""
        newest_child: dict[str, str] = {}
        for row in reversed(self.rows):  # oldest first: a newer child replaces an older one
            if row.parent_checkpoint_id:
                newest_child[row.parent_checkpoint_id] = row.checkpoint_id
        cursor, seen = checkpoint_id, set()
        while cursor in newest_child and cursor not in seen:
            seen.add(cursor)
            cursor = newest_child[cursor]
        return cursor

    def lineage_ids(self, checkpoint_id: str | None = None) -> list[str]:
        """`checkpoint_id` (default: the latest) and its loaded ancestors, oldest first."""
        cursor = checkpoint_id or (self.rows[0].checkpoint_id if self.rows else None)
        chain: list[str] = []
        while cursor and cursor in self._parents and len(chain) <= len(self._parents):
            chain.append(cursor)
            cursor = self._parents[cursor]
        chain.reverse()
        return chain

    def lineage(self, checkpoint_id: str | None = None) -> list[ThreadState]:
        """`checkpoint_id` (default: the latest) and its loaded ancestors, oldest first:
        one branch of a forked thread (from the newest let go, if any, on)."""
        chain: list[ThreadState] = []
        for cursor in reversed(self.lineage_ids(checkpoint_id)):
            state = self._held[cursor].state
            if state is None:
                break
            chain.append(state)
        chain.reverse()
        return chain

    async def load_all(self) -> list[HistoryRow]:
        while not self.exhausted:
            await self.load_more()
        return list(self.rows)

    def _hold(self, state: ThreadState) -> None:
        checkpoint_id = state.checkpoint_id or ""
        self._held[checkpoint_id] = HeldState(state)
        self._parents[checkpoint_id] = state.parent_checkpoint_id
        self._keep(checkpoint_id)

    def _keep(self, checkpoint_id: str) -> None:
        if self.keep_states is not None:
            self._kept[checkpoint_id] = None
            self._kept.move_to_end(checkpoint_id)

    def _let_go(self) -> None:
        """Let go of the states used least recently beyond `keep_states`, but not those of
        rows still waiting for their parent (their writers are read from them)."""
        if self.keep_states is None or len(self._kept) <= self.keep_states:
            return
        waiting = {self.rows[index].checkpoint_id for index in self._incomplete}
        for checkpoint_id in list(self._kept):
            if len(self._kept) <= self.keep_states:
                break
            if checkpoint_id not in waiting:
                del self._kept[checkpoint_id]
                self._held[checkpoint_id].state = None

    def _row(self, state: ThreadState) -> HistoryRow:
        parent_id = state.parent_checkpoint_id
        parent = self.state(parent_id) if parent_id else None
        # Without a parent id this is the thread's first checkpoint: nothing to wait for.
        loaded = parent is not None or not parent_id or self.exhausted
        return HistoryRow.of(state, parent, loaded, self._held.get(state.checkpoint_id or ""))

    def _complete_earlier_rows(self) -> None:
        still: list[int] = []
        for index in self._incomplete:
            row = self._row(self.rows[index].state)
            self.rows[index] = row
            if row.writes_source is None:
                still.append(index)
        self._incomplete = still
