"""A thread's checkpoints, page by page, as rows for a list. Headless.

`ThreadHistory(client, thread_id, page_size)` loads the history most recent first with
`before=<oldest loaded checkpoint>` (the form langgraph-api accepts is in
`client.threads.checkpoint_config`), so a thread with thousands of checkpoints opens with
one small request and the rest loads as the user scrolls (`load_more()`).

Which nodes wrote a checkpoint (`checkpoint_writes`) comes, best source first, from:

1. `metadata.writes` — older LangGraph versions record it; LangGraph 1.x does not;
2. the input checkpoint's own `__start__` task, whose result is the input (`__input__`);
3. the parent's tasks: each task that ran from the parent carries its `result`, i.e. what
   that node wrote to make this checkpoint — used when it agrees with the values (it does
   for `loop` steps and for supersteps; a replay's branch may differ from the first run);
4. the difference between this checkpoint's values and its parent's (`update` steps made
   by `update_state`, forks): the keys are known, the node is not (for a `loop` step, the
   node is the parent's task).

A row whose parent is on a page not loaded yet is completed when that page arrives.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from agent_tui.client.models import ThreadState
from agent_tui.text.short_ids import short_checkpoint_id
from agent_tui.text.time_text import utc_seconds_of_text
from agent_tui.text.value_diff import is_message, is_message_list

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient

WritesSource = Literal["metadata", "input", "tasks", "delta"]
INPUT_NODE = "__input__"
START_NODE = "__start__"
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000  # langgraph-api refuses a larger history `limit` (422)


@dataclass(frozen=True, slots=True)
class Writes:
    """What was written to make a checkpoint: node → values, and where that was learnt."""

    nodes: dict[str, Any]
    source: WritesSource
    known_nodes: bool = True  # False: a delta whose node is not known (under the key "")


def checkpoint_interrupts(state: ThreadState) -> list[dict[str, Any]]:
    """Interrupts waiting at this checkpoint (top-level, else from its tasks)."""
    if state.interrupts:
        return list(state.interrupts)
    return [interrupt for task in state.tasks for interrupt in task.interrupts]


def checkpoint_writes(state: ThreadState, parent: ThreadState | None) -> Writes:
    """What was written to make `state` (see the module docstring for the order)."""
    if state.writes:
        return Writes(dict(state.writes), "metadata")
    if state.source == "input":
        for task in state.tasks:
            if task.name == START_NODE and task.result is not None:
                return Writes({INPUT_NODE: task.result}, "input")
        return Writes({INPUT_NODE: {}}, "input")
    before = parent.values if parent is not None else {}
    if parent is not None:
        ran = {task.name: task.result for task in parent.tasks if task.result is not None}
        if ran and _agrees(before, ran, state.values):
            return Writes(
                {
                    node: _with_message_ids(result, before, state.values)
                    for node, result in ran.items()
                },
                "tasks",
            )
        if state.source == "loop" and len(ran) == 1:
            # The node ran, but its result is not what made this checkpoint: a replay
            # from the same parent (the parent keeps one result per task) or a reducer
            # that transforms what it gets. The node is right; the values come from
            # the difference.
            return Writes({next(iter(ran)): delta_values(before, state.values)}, "delta")
    return Writes({"": delta_values(before, state.values)}, "delta", known_nodes=False)


def _agrees(before: Any, writes: Mapping[str, Any], after: Any) -> bool:
    """Whether `writes` applied to `before` can give `after` (every changed key written,
    every written value present in `after`)."""
    if not isinstance(before, Mapping) or not isinstance(after, Mapping):
        return False
    written: set[str] = set()
    for value in writes.values():
        if not isinstance(value, Mapping):
            return False
        for key, item in value.items():
            written.add(key)
            if key not in after or not _contains(after[key], item):
                return False
    changed = {key for key in after if before.get(key) != after[key]}
    return changed <= written


def _contains(result: Any, written: Any) -> bool:
    if result == written:
        return True
    if isinstance(result, list) and isinstance(written, list):
        if is_message_list(result):
            # A reducer may add ids to written messages: compare by content.
            contents = [message.get("content") for message in result]
            return all(
                isinstance(item, Mapping) and item.get("content") in contents for item in written
            )
        return len(written) <= len(result) and result[len(result) - len(written) :] == written
    return False


def _with_message_ids(result: Any, before: Any, after: Any) -> Any:
    """A node's result with message lists replaced by the messages as stored (with the ids
    the reducer gave them), so replaying the write gives the same ids."""
    if not isinstance(result, Mapping) or not isinstance(after, Mapping):
        return result
    fixed = dict(result)
    for key, value in result.items():
        stored = after.get(key)
        if isinstance(value, list) and isinstance(stored, list) and is_message_list(stored):
            old = before.get(key) if isinstance(before, Mapping) else None
            fixed[key] = _new_messages(old if isinstance(old, list) else [], stored)
    return fixed


def _new_messages(before: list[Any], after: list[Any]) -> list[Any]:
    old = {m["id"]: m for m in before if is_message(m)}
    return [m for m in after if old.get(m["id"]) != m]


def delta_values(before: Any, after: Any) -> dict[str, Any]:
    """An update that turns `before` into `after` through LangGraph's usual reducers.

    Changed keys only. A message list gives the new or changed messages (add_messages
    merges by id); another list that grows at the end gives the new items (operator.add);
    anything else the new value. A key that disappeared cannot be written: it is left out.
    """
    if not isinstance(after, Mapping):
        return {}
    old = before if isinstance(before, Mapping) else {}
    delta: dict[str, Any] = {}
    for key, value in after.items():
        previous = old.get(key)
        if key in old and previous == value:
            continue
        if isinstance(value, list) and isinstance(previous, list):
            if is_message_list(value):
                delta[key] = _new_messages(previous, value)
                continue
            if previous and value[: len(previous)] == previous:
                delta[key] = value[len(previous) :]
                continue
        delta[key] = value
    return delta


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
            new = [state for state in page if state.checkpoint_id not in self._held]
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
