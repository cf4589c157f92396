"""Server-sent events: an incremental decoder that follows the WHATWG spec.

https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation

The decoder works on bytes and splits whole chunks with `bytes.splitlines()` (which, for
bytes, breaks only on CR, LF and CRLF — exactly the SSE line ends), so the per-byte work
happens in C. Field values are decoded as UTF-8 once per line or per event; a line end
is always an ASCII byte, so splitting before decoding can never cut a character.

Deliberate choices where the spec leaves room or where a run stream needs more:

- `ServerSentEvent.id` is the `id:` field of *that* event, or None when it had none;
  the spec's persistent "last event ID" (what a reconnect sends as `Last-Event-ID`) is
  `SSEDecoder.last_event_id`.
- An event with a non-empty `event:` name but no `data:` line is dispatched with
  `data == ""`. The spec drops it, but a bare `event: end` must not be lost.
- At the end of the stream an event without its terminating blank line is discarded,
  as the spec says; `SSEDecoder.truncated` tells that it happened, and
  `flush(dispatch_incomplete=True)` returns it instead.
- What is buffered is bounded: an event whose data (or a line that) grows past
  `max_event_bytes` is skipped whole — its bytes are dropped as they come, and
  `SSEDecoder.skipped` counts it — so a server that never ends a line or an event
  cannot grow the client without bound.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass

__all__ = ["MAX_EVENT_BYTES", "SSEDecoder", "ServerSentEvent", "aiter_sse"]

#: The largest event kept: a `values` event carries a whole thread state, so be generous.
MAX_EVENT_BYTES = 32 * 1024 * 1024

_BOM = b"\xef\xbb\xbf"
_CR = ord("\r")
_COLON = ord(":")
_D, _E, _I = ord("d"), ord("e"), ord("i")


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One dispatched event.

    `id` is this event's own `id:` field (None without one; `SSEDecoder.last_event_id`
    is the one that persists) and `retry` its valid `retry:` field, if any.
    """

    event: str = "message"
    data: str = ""
    id: str | None = None
    retry: int | None = None


# A frozen dataclass's __init__ assigns each field through object.__setattr__; setting
# the slots through their descriptors builds the same immutable object 2-3x faster,
# which shows when a run streams thousands of tokens a second.
_new_object = object.__new__
_set_event = ServerSentEvent.__dict__["event"].__set__
_set_data = ServerSentEvent.__dict__["data"].__set__
_set_id = ServerSentEvent.__dict__["id"].__set__
_set_retry = ServerSentEvent.__dict__["retry"].__set__


def _make_event(event: str, data: str, id: str | None, retry: int | None) -> ServerSentEvent:
    sse: ServerSentEvent = _new_object(ServerSentEvent)
    _set_event(sse, event)
    _set_data(sse, data)
    _set_id(sse, id)
    _set_retry(sse, retry)
    return sse


class SSEDecoder:
    """Incremental SSE decoder: `feed()` network chunks, then `flush()` at end of stream.

    Pass `last_event_id` when resuming, so `last_event_id` stays right even if the new
    stream sends no ids. After `flush()` the decoder can decode a new stream (a
    reconnect): `last_event_id` and `retry` carry over, everything else starts afresh.
    An event larger than `max_event_bytes` is skipped (see `skipped`).
    """

    __slots__ = (
        "_data",
        "_data_size",
        "_event",
        "_head",
        "_id",
        "_retry",
        "_skip_lf",
        "_skipping",
        "_tail",
        "_tail_size",
        "last_event_id",
        "max_event_bytes",
        "retry",
        "skipped",
        "truncated",
    )

    def __init__(
        self, *, last_event_id: str | None = None, max_event_bytes: int = MAX_EVENT_BYTES
    ) -> None:
        #: The spec's last event ID buffer: persists across events; "" after an empty `id:`.
        self.last_event_id: str | None = last_event_id
        #: The reconnection time in milliseconds from the latest valid `retry:` field.
        self.retry: int | None = None
        #: Set by `flush()`: the stream ended inside an event (or inside a line).
        self.truncated = False
        self.max_event_bytes = max_event_bytes
        #: Events dropped for being larger than `max_event_bytes` (over every stream).
        self.skipped = 0
        self._reset_stream()

    def _reset_stream(self) -> None:
        # Bytes seen while it is still undecided whether the stream starts with a BOM.
        self._head: bytes | None = b""
        # Pieces of the current unterminated line; a list so a long line that arrives in
        # many chunks is joined once, not re-copied on every chunk.
        self._tail: list[bytes] = []
        self._tail_size = 0
        # The previous chunk ended with CR: a LF opening the next chunk is its CRLF pair.
        self._skip_lf = False
        self._reset_event()

    def _reset_event(self) -> None:
        self._data: list[bytes] = []
        self._data_size = 0
        self._event = ""
        self._id: str | None = None
        self._retry: int | None = None
        # The current event outgrew `max_event_bytes`: drop its lines until it ends.
        self._skipping = False

    @property
    def pending(self) -> ServerSentEvent | None:
        """The event a blank line would dispatch now, built from the complete lines so far."""
        if not self._data and not self._event:
            return None
        return ServerSentEvent(
            self._event or "message",
            b"\n".join(self._data).decode("utf-8", "replace"),
            self._id,
            self._retry,
        )

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """Decode one network chunk; return the events it completed (often none)."""
        if not chunk:
            return []  # and keep the CR state: the LF of a CRLF may still come
        if self._head is not None:
            # Decide on the BOM only once three bytes are in: it may arrive a byte at a time.
            head = self._head + chunk
            if len(head) < 3 and _BOM.startswith(head):
                self._head = head
                return []
            self._head = None
            chunk = head[3:] if head.startswith(_BOM) else head
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        if not chunk:
            return []
        last = chunk[-1]
        if last in b"\r\n":
            lines = chunk.splitlines()
            self._skip_lf = last == _CR
            if self._tail:
                self._tail.append(lines[0])
                lines[0] = b"".join(self._tail)
                self._tail = []
                self._tail_size = 0
        elif b"\n" in chunk or b"\r" in chunk:
            lines = chunk.splitlines()
            rest = lines.pop()
            if self._tail:
                self._tail.append(lines[0])
                lines[0] = b"".join(self._tail)
            self._tail = [rest]
            self._tail_size = len(rest)
            events = self._lines(lines)
            if self._tail_size > self.max_event_bytes:
                self._drop_tail()
            return events
        elif self._skipping:
            # This line belongs to the skipped event: keep nothing of it.
            self._drop_tail()
            return []
        else:
            self._tail.append(chunk)
            self._tail_size += len(chunk)
            if self._tail_size > self.max_event_bytes:
                self._drop_tail()
            return []
        return self._lines(lines)

    def _drop_tail(self) -> None:
        # A line longer than any event we keep: skip its event. One placeholder byte
        # stays so that the line's end is not mistaken for a blank line.
        self._tail = [b"-"]
        self._tail_size = 1
        self._overflow()

    def _overflow(self) -> None:
        if not self._skipping:
            self.skipped += 1
        self._reset_event()
        self._skipping = True

    def flush(self, *, dispatch_incomplete: bool = False) -> list[ServerSentEvent]:
        """End of stream: an event without its blank line is discarded (see `truncated`).

        With `dispatch_incomplete=True` it is returned instead — useful to show what a
        dropped connection cut off. A final line without a line end counts as complete.
        """
        rest = b"".join(self._tail) if self._head is None else self._head
        self._tail = []
        if rest:
            # The stream never decided on a BOM if it was under three bytes long.
            self._lines([rest.removeprefix(_BOM)])
        self.truncated = bool(
            rest or self._data or self._event or self._id is not None or self._retry is not None
        )
        incomplete = self.pending if dispatch_incomplete else None
        self._reset_stream()
        return [incomplete] if incomplete is not None else []

    def _lines(self, lines: list[bytes]) -> list[ServerSentEvent]:
        if self._skipping:
            # The oversized event ends at the next blank line; what follows is new.
            try:
                end = lines.index(b"")
            except ValueError:
                return []
            self._reset_event()
            lines = lines[end + 1 :]
        events: list[ServerSentEvent] = []
        data = self._data
        size = self._data_size
        limit = self.max_event_bytes
        for line in lines:
            if not line:
                if size > limit:
                    # Dispatched in one chunk but too big all the same: skip it.
                    self.skipped += 1
                    data = self._data = []
                    self._event = ""
                    size = 0
                elif data or self._event:
                    events.append(
                        _make_event(
                            self._event or "message",
                            data[0].decode("utf-8", "replace")
                            if len(data) == 1
                            else b"\n".join(data).decode("utf-8", "replace"),
                            self._id,
                            self._retry,
                        )
                    )
                    data = self._data = []
                    self._event = ""
                    size = 0
                self._id = self._retry = None
                continue
            # Fast paths for the `name: value` form servers send, picked by the first byte
            # (an int compare) rather than by trying each prefix in turn.
            first = line[0]
            if first == _D and line.startswith(b"data: "):
                data.append(line[6:])
                size += len(line)
                continue
            if first == _E and line.startswith(b"event: "):
                self._event = line[7:].decode("utf-8", "replace")
                continue
            if first == _I and line.startswith(b"id: ") and b"\0" not in line:
                self._id = self.last_event_id = line[4:].decode("utf-8", "replace")
                continue
            if first == _COLON:
                continue  # a comment, e.g. the server's `: heartbeat`
            name, _, value = line.partition(b":")
            if value[:1] == b" ":
                value = value[1:]
            if name == b"data":
                data.append(value)
                size += len(line)
            elif name == b"event":
                self._event = value.decode("utf-8", "replace")
            elif name == b"id" and b"\0" not in value:
                self._id = self.last_event_id = value.decode("utf-8", "replace")
            elif name == b"retry" and value.isdigit():
                # The spec wants ASCII digits only; int() would also take "+1", " 1", "1_0".
                self._retry = self.retry = int(value)
            # Any other field is ignored, as the spec says.
        self._data_size = size
        if size > limit:
            # The event is still open and already too big: stop keeping its data.
            self._overflow()
        return events


async def aiter_sse(
    chunks: AsyncIterable[bytes], *, decoder: SSEDecoder | None = None
) -> AsyncIterator[ServerSentEvent]:
    """Decode a byte stream (e.g. `response.aiter_bytes()`) into events.

    Pass your own `decoder` to read `last_event_id`, `retry` or `truncated` afterwards.
    """
    if decoder is None:
        decoder = SSEDecoder()
    feed = decoder.feed
    async for chunk in chunks:
        for event in feed(chunk):
            yield event
    for event in decoder.flush():
        yield event
