"""Thread search and creation input, checked and turned into client calls. Headless.

The Threads screen, its search and create forms, and headless subcommands share this:
what a user types (`graph_id=chat user="Ann Lee" n=3`, a status, a sort, a page size,
supersteps as JSON) becomes keyword arguments for `client.threads`, or a `QueryError`
whose message names the field and says what is allowed.

`last_message_preview` is the table's preview column. Search asks the server for
only the listed fields plus the last message (`select` + `extract`), so a page of big
threads costs the same as a page of small ones; a server that ignores those
(older versions) sends whole threads, and the preview then comes from `values`.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_tui.client.models import THREAD_STATUSES, Thread
from agent_tui.text.message_text import message_role, message_text
from agent_tui.text.sanitize import clean_text
from agent_tui.text.user_json import JsonTextError, json_or_text, parse_json
from agent_tui.threads.failure import was_cancelled

if TYPE_CHECKING:
    from agent_tui.client.threads import ThreadsClient

SORT_FIELDS = ("updated_at", "created_at", "state_updated_at", "thread_id", "status")
SORT_ORDERS = ("desc", "asc")
MAX_PAGE_SIZE = 1000  # the server's maximum `limit`
DEFAULT_PAGE_SIZE = 100
ATTENTION_STATUSES = ("interrupted", "error")

# What the table needs, and the last message under `extracted.last_message`.
LIST_FIELDS = ("thread_id", "status", "metadata", "created_at", "updated_at", "interrupts")
LAST_MESSAGE = "last_message"
LIST_EXTRACT = {LAST_MESSAGE: "values.messages[-1]"}


class QueryError(ValueError):
    """Input that cannot become a request; `field` says which input, `str()` why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


def parse_metadata(text: str, *, field: str = "metadata") -> dict[str, Any]:
    """`key=value` pairs separated by spaces, or one JSON object.

    Quote a value that holds spaces (`user="Ann Lee"`). Each value is JSON when it
    parses as JSON (`n=3` is the number 3, `ok=true` a boolean), else a string; write
    `n='"3"'` for the string "3". Empty text is no metadata.
    """
    text = text.strip()
    if not text:
        return {}
    if text.startswith("{"):
        try:
            value = parse_json(text)
        except JsonTextError as error:
            raise QueryError(field, str(error)) from None
        if not isinstance(value, dict):
            raise QueryError(field, "a JSON object is needed")
        return value
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise QueryError(field, f"{error} (quote values that hold spaces)") from None
    result: dict[str, Any] = {}
    for word in words:
        key, equals, value = word.partition("=")
        key = key.strip()
        if not equals or not key:
            raise QueryError(field, f"expected key=value, got {word!r}")
        if key in result:
            raise QueryError(field, f"{key!r} is given twice")
        result[key] = json_or_text(value)
    return result


def format_metadata(metadata: Mapping[str, Any]) -> str:
    """The inverse of `parse_metadata` for what a form shows: `key=value …`."""
    parts = []
    for key, value in metadata.items():
        text = value if isinstance(value, str) and json_or_text(value) == value else None
        if text is None:
            text = json.dumps(value, separators=(",", ":"))
        parts.append(f"{key}={shlex.quote(text)}" if text else f"{key}=''")
    return " ".join(parts)


def _choice(field: str, value: str | None, allowed: tuple[str, ...]) -> str | None:
    value = (value or "").strip().lower()
    if not value or value in ("any", "all"):
        return None
    if value not in allowed:
        raise QueryError(field, f"{value!r} is not one of {', '.join(allowed)}")
    return value


def check_status(value: str | None) -> str | None:
    """A thread status, or None for any; anything else is a `QueryError`."""
    return _choice("status", value, THREAD_STATUSES)


def check_sort_by(value: str | None) -> str | None:
    return _choice("sort by", value, SORT_FIELDS)


def check_sort_order(value: str | None) -> str | None:
    return _choice("order", value, SORT_ORDERS)


def check_page_size(value: str | int | None) -> int:
    if value is None or (isinstance(value, str) and not value.strip()):
        return DEFAULT_PAGE_SIZE
    try:
        size = int(value)
    except ValueError:
        raise QueryError("page size", f"{value!r} is not a whole number") from None
    if not 1 <= size <= MAX_PAGE_SIZE:
        raise QueryError("page size", f"must be between 1 and {MAX_PAGE_SIZE}, got {size}")
    return size


@dataclass(frozen=True, slots=True)
class ThreadQuery:
    """One server-side thread search; `kwargs(offset)` gives each page's request."""

    status: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    sort_by: str = "updated_at"
    sort_order: str = "desc"
    page_size: int = DEFAULT_PAGE_SIZE
    light: bool = True  # only the listed fields and the last message, not whole states

    @classmethod
    def from_input(
        cls,
        *,
        status: str | None = None,
        metadata: str = "",
        sort_by: str | None = None,
        sort_order: str | None = None,
        page_size: str | int | None = None,
    ) -> ThreadQuery:
        """A query from what a user typed; raises `QueryError` naming the first bad field."""
        return cls(
            status=check_status(status),
            metadata=parse_metadata(metadata),
            sort_by=check_sort_by(sort_by) or "updated_at",
            sort_order=check_sort_order(sort_order) or "desc",
            page_size=check_page_size(page_size),
        )

    def kwargs(self, offset: int = 0, limit: int | None = None) -> dict[str, Any]:
        """Keyword arguments for `client.threads.search` for the page at `offset`."""
        kwargs: dict[str, Any] = {
            "limit": limit or self.page_size,
            "offset": offset,
            "sort_by": self.sort_by,
            "sort_order": self.sort_order,
        }
        if self.status:
            kwargs["status"] = self.status
        if self.metadata:
            kwargs["metadata"] = dict(self.metadata)
        if self.light:
            kwargs["select"] = list(LIST_FIELDS)
            kwargs["extract"] = dict(LIST_EXTRACT)
        return kwargs

    def count_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for `client.threads.count` (same filters)."""
        kwargs: dict[str, Any] = {}
        if self.status:
            kwargs["status"] = self.status
        if self.metadata:
            kwargs["metadata"] = dict(self.metadata)
        return kwargs

    def describe(self) -> str:
        """One line for the screen's title bar: what this search shows."""
        parts = [f"status={self.status}" if self.status else "any status"]
        if self.metadata:
            parts.append(format_metadata(self.metadata))
        parts.append(f"by {self.sort_by} {self.sort_order}")
        parts.append(f"{self.page_size}/page")
        return " · ".join(parts)


# -- what the table shows -------------------------------------------------------------


def graph_of(thread: Thread) -> str:
    graph = thread.metadata.get("graph_id")
    return clean_text(str(graph)) if graph is not None else ""


def last_message(thread: Thread) -> Any:
    """The thread's last message: from `extracted` when searched light, else its values."""
    extracted = getattr(thread, "extracted", None)
    if isinstance(extracted, dict) and LAST_MESSAGE in extracted:
        return extracted[LAST_MESSAGE]
    values = thread.values
    if isinstance(values, dict):
        messages = values.get("messages")
        if isinstance(messages, list) and messages:
            return messages[-1]
    return None


def last_message_preview(thread: Thread, width: int = 60) -> str:
    """`ai: the last message, on one line…`, cleaned of control codes, at most `width` long."""
    message = last_message(thread)
    if message is None:
        return ""
    text = " ".join(clean_text(message_text(message)).split())
    role = clean_text(message_role(message))
    if role:
        text = f"{role}: {text}"
    return truncate(text, width)


def truncate(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    return text[: max(width - 1, 0)] + "…"


# -- creation -------------------------------------------------------------------------


def parse_supersteps(text: str) -> list[dict[str, Any]]:
    """Supersteps from JSON: a list of `{"updates": [{"values": …, "as_node": "…"}]}`.

    Also accepted: `{"supersteps": [...]}` (a thread export) and a single superstep
    object. Raises `QueryError` saying where the JSON or the shape is wrong.
    """
    if not text.strip():
        raise QueryError("supersteps", "empty: give a JSON list of supersteps")
    try:
        data = parse_json(text)
    except JsonTextError as error:
        raise QueryError("supersteps", str(error)) from None
    if isinstance(data, dict) and "supersteps" in data:
        data = data["supersteps"]
    elif isinstance(data, dict) and "updates" in data:
        data = [data]
    if not isinstance(data, list) or not data:
        raise QueryError("supersteps", 'a non-empty JSON list is needed: [{"updates": [...]}]')
    for number, step in enumerate(data, 1):
        where = f"superstep {number}"
        if not isinstance(step, dict) or not isinstance(step.get("updates"), list):
            raise QueryError("supersteps", f'{where}: an object with an "updates" list is needed')
        for index, update in enumerate(step["updates"], 1):
            spot = f"{where}, update {index}"
            if not isinstance(update, dict):
                raise QueryError("supersteps", f"{spot}: an object is needed")
            if not isinstance(update.get("as_node"), str) or not update["as_node"]:
                raise QueryError("supersteps", f'{spot}: "as_node" (a node name) is needed')
            unknown = set(update) - {"values", "as_node", "command"}
            if unknown:
                raise QueryError("supersteps", f"{spot}: unknown keys {sorted(unknown)}")
    return data


@dataclass(frozen=True, slots=True)
class ThreadDraft:
    """What the create form sends: `client.threads.create(**draft.kwargs())`."""

    metadata: dict[str, Any] = field(default_factory=dict)
    supersteps: list[dict[str, Any]] | None = None

    @classmethod
    def from_input(cls, *, metadata: str = "", supersteps: str = "") -> ThreadDraft:
        meta = parse_metadata(metadata)
        steps = parse_supersteps(supersteps) if supersteps.strip() else None
        if steps is not None and "graph_id" not in meta:
            raise QueryError(
                "metadata",
                "supersteps need the graph to apply them to: add graph_id=<graph> to the metadata",
            )
        return cls(metadata=meta, supersteps=steps)

    def kwargs(self) -> dict[str, Any]:
        return {"metadata": self.metadata or None, "supersteps": self.supersteps}


# -- paging ---------------------------------------------------------------------------


class ThreadPager:
    """Pages through one or more searches in turn (offset paging), for a growing table.

    Several queries list one after the other: the attention list is the `error` threads,
    then the `interrupted` ones (the server filters on one status at a time).
    """

    def __init__(self, queries: Sequence[ThreadQuery]) -> None:
        if not queries:
            raise ValueError("at least one query is needed")
        self.queries = list(queries)
        self._index = 0
        self._offset = 0

    @property
    def exhausted(self) -> bool:
        return self._index >= len(self.queries)

    async def next_page(self, threads: ThreadsClient, limit: int | None = None) -> list[Thread]:
        """Up to `limit` more threads (default: a page of the current query), read on
        into the next query when one ends, so only the very last page is short."""
        found: list[Thread] = []
        while not self.exhausted:
            query = self.queries[self._index]
            want = (limit or query.page_size) - len(found)
            if want <= 0:
                break
            page = await threads.search(**query.kwargs(self._offset, min(want, query.page_size)))
            found += page
            self._offset += len(page)
            if len(page) < min(want, query.page_size):
                self._index, self._offset = self._index + 1, 0
            elif limit is None:
                break
        return found

    async def count(self, threads: ThreadsClient) -> int:
        """How many threads all the queries match (one count request per query)."""
        total = 0
        for query in self.queries:
            total += await threads.count(**query.count_kwargs())
        return total


def attention_reason(thread: Thread, error: str | None = None, width: int = 80) -> str:
    """Why a thread needs attention, on one line: `waiting: <the question>` for an
    `interrupt()`, `failed: <error>`, `cancelled: …` for a cancelled run and `paused: …`
    for a run stopped at a breakpoint — the server gives all four the status `interrupted`
    or `error`, and they need different things."""
    if thread.status == "error":
        text = f"failed: {error}" if error else "failed (the error is on the thread's last task)"
    elif thread.status == "interrupted":
        values = [
            item.get("value") if isinstance(item, dict) else item
            for items in thread.interrupts.values()
            for item in (items if isinstance(items, list) else [items])
        ]
        if values:
            first = values[0]
            question = first.get("question") if isinstance(first, dict) else None
            shown = question if isinstance(question, str) else json.dumps(first, default=str)
            more = f" (+{len(values) - 1} more)" if len(values) > 1 else ""
            text = f"waiting: {shown}{more}"
        elif was_cancelled(thread):
            text = "cancelled: its last run was cancelled before it finished"
        else:
            text = "paused: its next node waits to run (a breakpoint)"
    else:
        text = thread.status
    return truncate(" ".join(clean_text(text).split()), width)
