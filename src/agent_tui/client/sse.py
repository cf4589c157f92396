"""Server-sent events: httpx-sse's `EventSource` parses them, with our guards around it.

httpx-sse (0.4.3) follows the WHATWG rules for lines and fields; what it does not do, or
does in a way a run stream cannot use, is handled here:

- It keeps whatever a server sends: a line or an event that never ends grows without
  bound. `EventBounds` sits between the response's text and the parser: once the event
  in progress outgrows `max_event_bytes` it drops the rest of it as it comes, up to the
  blank line that ends it, and ends the part the parser already holds with an event
  named `OVERSIZED`, which is dropped and counted in `skipped`. An event that arrives
  whole in one read but is too large is dropped too.
- It holds a CR that ends a read back until the next read, and the event it ends with
  it (until the next heartbeat, for a server that ends lines with CR alone); `EventBounds`
  passes such a CR on as CRLF and drops the LF that may open the next read.
- It does not strip a UTF-8 byte order mark at the start of the stream (the first field
  name would become "\\ufeffevent" and the first event be lost); `EventBounds` strips it.
- Once an `id:` was seen, every blank line dispatches an event, so each `: heartbeat`
  comment comes out as an empty `message` event; those are dropped. (So is an event that
  is really an empty `message`: a run stream never sends one.)
- Its `ServerSentEvent.id` is the stream's last event ID ("" before any), which is what a
  rejoin sends as `Last-Event-ID`.

An event cut off by the end of the stream (no blank line after it) is discarded, as the
spec says; `EventBounds.unfinished` tells the run stream, which calls that a cut stream
(a rejoin replays the event). Sizes count characters of the decoded text, which for the
JSON a run streams is about its bytes.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator
from contextlib import aclosing
from typing import cast

import httpx
from httpx_sse import EventSource, ServerSentEvent, SSEError

__all__ = [
    "MAX_EVENT_BYTES",
    "OVERSIZED",
    "EventBounds",
    "SSEError",
    "ServerSentEvent",
    "aiter_sse",
]

#: The largest event kept: a `values` event carries a whole thread state, so be generous.
MAX_EVENT_BYTES = 32 * 1024 * 1024

#: The name given to what the parser holds of an event that grew too large; the NUL
#: keeps it apart from any name a server means.
OVERSIZED = "\0agent-tui: oversized event"
_END_OVERSIZED = f"\0\nevent: {OVERSIZED}\n\n"
# Endings that are certainly a line end and a blank line, whatever came before.
_EVENT_ENDS = ("\r\n\r\n", "\n\r\n", "\n\n", "\r\r")


def _blank_line_end(text: str, before: str, *, first: bool = False) -> int:
    """The index just past the last (or `first`) blank line in `text` — a line end right
    after another, a CRLF counting as one — or -1 if there is none. `before` is the line
    end that came just before `text`, if any: a blank line may straddle two reads."""
    at_start = -1
    if before and text[0] in "\r\n" and not (before == "\r" and text[0] == "\n"):
        at_start = 2 if text[:2] == "\r\n" else 1
        if first:
            return at_start
    if first:
        found = [i for i in (text.find("\n\n"), text.find("\r\r"), text.find("\n\r")) if i >= 0]
        i = min(found, default=-1)
    else:
        # Each search only looks after the best match so far: in a CRLF stream the first
        # finds the last event's start and the other two scan only that event.
        i = -1
        for pair in ("\n\r", "\n\n", "\r\r"):
            i = max(i, text.rfind(pair, i + 1))
    if i < 0:
        return at_start
    end = i + 2
    if text[end - 1] == "\r" and text[end : end + 1] == "\n":
        end += 1
    return end


class EventBounds:
    """Bounds what a stream's parser can be made to keep; strips a leading BOM.

    `feed()` takes the response's text as it comes and returns what the parser may see:
    the text itself, unless the event in progress (its unfinished line included) has
    outgrown `max_event_bytes`. Reuse one for every stream of a run: `skipped` adds up.
    """

    def __init__(self, max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self.max_event_bytes = max_event_bytes
        #: Events dropped for being larger than `max_event_bytes` (over every stream).
        self.skipped = 0
        self.start_stream()

    def start_stream(self) -> None:
        self._first = True
        self._size = 0  # of the event in progress, as passed on so far
        self._skipping = False  # dropping the rest of an event that grew too large
        self._last = ""  # the last character seen, if it ended a line
        self._lf_sent = False  # a CR ended the last read and a LF was added to it
        self._pending = False  # text after the last blank line, other than line ends

    @property
    def unfinished(self) -> bool:
        """The stream so far stops inside an event: a stream that ends here was cut."""
        return self._pending or self._skipping

    def feed(self, text: str) -> str:
        if self._first and text:
            self._first = False
            if text[0] == "\ufeff":
                text = text[1:]
        if self._lf_sent:
            # The CR that ended the last read was passed on as CRLF: its LF is not new.
            self._lf_sent = False
            if text[:1] == "\n":
                text = text[1:]
        if not text:
            return ""
        if text[-1] == "\r":
            # httpx-sse holds a CR that ends a read back until the next read (to see whether
            # a LF follows), and with it an event that ends there: end the line now.
            text += "\n"
            self._lf_sent = True
        # A blank line may straddle two reads: remember the line end before this text.
        last, self._last = self._last, (text[-1] if text[-1] in "\r\n" else "")
        if self._skipping:
            # The oversized event ends at its blank line; what follows is new.
            end = _blank_line_end(text, last, first=True)
            if end < 0:
                return ""
            self._skipping = False
            text, last = text[end:], ""
            if not text:
                return ""
        # Where the last event in this text starts, if one ends in it. Most reads end with
        # a blank line (langgraph-api writes one event per chunk): no search then. (The
        # text is passed on whole, not cut: slicing a str that is not ASCII costs a scan.)
        start = len(text) if text.endswith(_EVENT_ENDS) else _blank_line_end(text, last)
        self._size = len(text) - start if start >= 0 else self._size + len(text)
        if start >= 0:
            self._pending = start < len(text) and bool(text[start:].strip("\r\n"))
        else:
            self._pending = self._pending or bool(text.strip("\r\n"))
        if self._size > self.max_event_bytes:
            return self._overflow(text[:start] if start > 0 else "")
        return text

    def _overflow(self, passed: str) -> str:
        # The event in progress is too large: drop the rest of it as it comes, and end
        # what the parser already holds of it under a name that marks it for dropping.
        # The NUL first ends the line the parser may be in the middle of, harmlessly:
        # a field with a NUL in it sets nothing that outlives the event (an `id:` with
        # a NUL is ignored, so a cut id cannot become the resume point).
        self._skipping = True
        self._size = 0
        return passed + _END_OVERSIZED


class _BoundedBody:
    """What `EventSource` reads of a response — its headers and its text — with the text
    passed through `EventBounds`, and read from `text` when given (the run stream reads
    each piece under its stall deadline)."""

    def __init__(
        self, response: httpx.Response, bounds: EventBounds, text: AsyncIterable[str] | None
    ) -> None:
        self.headers = response.headers
        self._text = text if text is not None else response.aiter_text()
        self._bounds = bounds

    async def aiter_text(self) -> AsyncIterator[str]:
        feed = self._bounds.feed
        async for piece in self._text:
            lines = feed(piece)
            if lines:
                yield lines


async def aiter_sse(
    response: httpx.Response,
    *,
    bounds: EventBounds | None = None,
    text: AsyncIterable[str] | None = None,
) -> AsyncGenerator[ServerSentEvent, None]:
    """The events of an SSE response, through httpx-sse's `EventSource`, bounded.

    Raises `SSEError` (an `httpx.TransportError`) if the response is not
    `text/event-stream`. `text`: read the body from here instead of
    `response.aiter_text()`.
    """
    if bounds is None:
        bounds = EventBounds()
    bounds.start_stream()
    limit = bounds.max_event_bytes
    # EventSource reads only `headers` and `aiter_text()` of what it is given.
    source = EventSource(cast(httpx.Response, _BoundedBody(response, bounds, text)))
    async with aclosing(source.aiter_sse()) as events:
        async for sse in events:
            data = sse.data
            if not data and sse.event == "message":
                continue  # a heartbeat after an id (see the module's docstring)
            if sse.event == OVERSIZED or len(data) > limit:
                bounds.skipped += 1
                continue
            yield sse
