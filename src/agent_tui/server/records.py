"""The runtime's own records (threads, runs, assistants, crons, retry counts)
are saved before any answer acknowledges a change to them.

langgraph-api has no setting for where the in-memory runtime keeps them: it pickles each
dictionary whole (``PersistentDict``) from a thread every 10 s. Here, through the public
``http.app`` setting (a Starlette app whose middleware langgraph-api puts outside its own
routes, and whose lifespan it runs after its own start), an ASGI middleware holds the
first message of the answer to any changing request until what changed in those
dictionaries is written to a database of ours (`record_table`: a save costs what changed;
a save that finds nothing changed writes nothing). An answer sent as it is made (``runs/wait``, a
run's stream) is saved before its first message too (a write that fails is ``507``, never a
``200`` cut short) and is acknowledged by its end, so a save comes before its last message.
While writes fail (here, or in the checkpointer or store: `Saver.report`), changing
requests are refused with ``507`` before they reach the runtime, until a 64 KiB file can be
written again; the log says so once, and once more when writes work again.

Saves are shared: every request that asks before a save starts is answered by it.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import pickle
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.responses import JSONResponse
from starlette.types import Message, Receive, Scope, Send

from agent_tui.local.disk_problem import DISK_PROBLEM, DISK_RECOVERED, PROBLEM_END
from agent_tui.server import record_table, upstream
from agent_tui.server.damage import mark_stopped
from agent_tui.server.names import OPS_FILE
from agent_tui.server.record_table import RecordTable

logger = logging.getLogger("agent_tui.server.records")
AsyncContext = contextlib.AbstractAsyncContextManager[Any]

FOLDER = os.getcwd()
"""The data folder (the server's working folder), read before the blocking-call guard."""
# Before the blocking-call guard wraps them (the room check runs on the event loop).
_open, _write, _close, _unlink = os.open, os.write, os.close, os.unlink
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
READ_SUFFIXES = ("/search", "/count", "/namespaces", "/versions", "/history")


class SaveError(OSError):
    pass


class Saver:
    """Writes the runtime's dictionaries; `saved` shares one write between callers."""

    BACKGROUND_DELAY = 0.1

    def __init__(self) -> None:
        self.problem: str | None = None
        self._conn: record_table.Connection | None = None
        self._tables: dict[str, RecordTable] = {}
        self._handle: asyncio.Handle | asyncio.TimerHandle | None = None
        self._urgent = False  # whether the save `_handle` brings is an urgent one
        self._pending: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.saves = 0
        self.seconds = 0.0
        self.closed = False

    def close(self) -> None:
        """No save from now on: the server is stopping, and the runtime's clean stop
        clears its dictionaries once it has written them to its own files. A save after
        that would record every thread deleted, newer than those files (so the next
        start would load it): a run cut off by the stop ends after this, and its save
        came 0.1 s later, which a slow stop can outlast."""
        self.closed = True

    def save(self) -> None:
        began = time.perf_counter()
        try:
            if self.problem is not None:
                room_check()  # a save that writes nothing proves nothing
            if self._conn is None:
                self._conn = record_table.connect()
            for kept in upstream.runtime_stores():
                if kept.default_factory is int:
                    continue  # the retry counts: the runtime never loads them (0.34-0.36)
                if kept.filename not in self._tables:
                    self._tables[kept.filename] = RecordTable(
                        self._conn, kept.filename, upstream.records_that_end(kept.filename)
                    )
                self._tables[kept.filename].write(kept)
            self._conn.commit()  # one transaction: the save is kept whole or not at all
        except (OSError, sqlite3.Error) as exc:
            if self._conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.rollback()
            for table in self._tables.values():
                table.forget()
            reason = os_reason(exc)
            self.report(reason)
            raise SaveError(getattr(exc, "errno", None) or 0, reason) from exc
        finally:
            self.saves += 1
            self.seconds += time.perf_counter() - began
        if self.problem is not None:
            self.problem = None
            logger.warning(DISK_RECOVERED)

    def report(self, reason: str) -> None:
        """Writes fail (here, or in the checkpointer or store): changes are refused until
        a save succeeds again. Logged once, not at every refused request."""
        if self.problem is None:
            logger.error("%s in %s: %s; %s", DISK_PROBLEM, FOLDER, reason, PROBLEM_END)
        self.problem = reason

    def saved(self, *, urgent: bool = True) -> asyncio.Future[None]:
        """Done when a save that started after this call has ended (`urgent`: within two
        turns of the loop; else within `BACKGROUND_DELAY`, or with the next urgent one)."""
        loop = self._loop = asyncio.get_running_loop()
        if self.closed:
            done = loop.create_future()
            done.set_result(None)
            return done
        if self._pending is None:
            self._pending = loop.create_future()
            # Its outcome read even when nobody waits (no "exception never retrieved").
            self._pending.add_done_callback(lambda done: done.cancelled() or done.exception())
        if self._handle is not None and urgent and not self._urgent:
            # A background save, not due yet: now instead. (Told by a flag, not by the
            # handle's class: uvloop's timer handles are no `asyncio.TimerHandle`.)
            self._handle.cancel()
            self._handle = None
        if self._handle is None:
            self._urgent = urgent
            if urgent:
                # Two turns of the loop later: answers that start in those turns (runs
                # started together) share the save (a third fewer saves, 8 at a time).
                self._handle = loop.call_soon(loop.call_soon, self._save_now)
            else:
                self._handle = loop.call_later(self.BACKGROUND_DELAY, self._save_now)
        return self._pending

    def soon_from_any_thread(self) -> None:
        """A save within `BACKGROUND_DELAY` (a run ended: a stream's end, answered just
        after, usually saves it first)."""
        if self._loop is not None and not self.closed:
            self._loop.call_soon_threadsafe(lambda: self.saved(urgent=False))

    def _save_now(self) -> None:
        pending, self._pending, self._handle = self._pending, None, None
        assert pending is not None
        try:
            if not self.closed:
                self.save()
        except SaveError as exc:
            pending.set_exception(exc)
        except Exception as exc:  # never leave an answer waiting
            logger.exception("agent-tui: saving failed")
            pending.set_exception(SaveError(0, repr(exc)))
        else:
            pending.set_result(None)


ROOM_CHECK = os.path.join(FOLDER, ".langgraph_api", "room-check")
ROOM_CHECK_BYTES = 64 * 1024


def room_check() -> None:
    """Raises OSError unless a 64 KiB file can be written in the data folder (while writes
    fail: the disk may have room again)."""
    descriptor = _open(ROOM_CHECK, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        left = memoryview(bytes(ROOM_CHECK_BYTES))
        while left:  # a write short of room writes what fits; the next one fails
            left = left[_write(descriptor, left) :]
    finally:
        _close(descriptor)
        _unlink(ROOM_CHECK)


def full_disk(exc: BaseException) -> bool:
    """SQLite's word for a failed write for want of room (SQLITE_FULL)."""
    return "disk is full" in str(exc) or getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL"


NO_ROOM = os.strerror(errno.ENOSPC)


def os_reason(exc: BaseException) -> str:
    """Why a write failed, in the system's words: SQLite says "disk I/O error" for most
    (a file-size limit, say), so the room check asks the system."""
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    if full_disk(exc):
        return NO_ROOM
    try:
        room_check()
    except OSError as found:
        return found.strerror or str(found)
    return str(exc)


def restore(early: bool) -> None:
    """Before the runtime loads its files: each of its files we saved becomes the runtime's
    file when ours is newer (the runtime writes its own at a clean stop), with the runs a
    crash cut off back in the queue (`upstream.requeue_cut_off_runs`; a clean stop leaves
    none: it puts the runs it stops back itself). `early`: the store's items and vectors,
    before langgraph-api is imported (it loads them at import); else `names.OPS_FILE`, whose
    records name classes of langgraph-api (restored from the ``http.app`` module)."""
    database = record_table.DATABASE
    if not os.path.exists(database):
        return
    saved_at = max(os.path.getmtime(p) for p in (database, database + "-wal") if os.path.exists(p))
    with contextlib.closing(record_table.connect()) as conn:
        for filename in record_table.files(conn):
            if early == filename.endswith(OPS_FILE):
                continue
            with contextlib.suppress(FileNotFoundError):
                if saved_at < os.path.getmtime(filename):
                    continue
            mapping, lost = record_table.read(conn, filename)
            if lost:
                logger.error(
                    "agent-tui: %d saved record(s) of %s could not be read", lost, filename
                )
            if requeued := upstream.requeue_cut_off_runs(mapping):
                logger.warning(
                    "agent-tui: runs cut off when the server last stopped run again: %s",
                    ", ".join(requeued),
                )
            with open(filename + ".restoring", "wb") as file:
                pickle.dump(mapping, file, 5)
            os.replace(filename + ".restoring", filename)


SAVER = Saver()


def changes(method: str, path: str) -> bool:
    if method in READ_METHODS:
        return False
    return not (method == "POST" and path.rstrip("/").endswith(READ_SUFFIXES))


class SaveBeforeAnswer:
    """ASGI middleware: a changing request's answer waits for `SAVER`."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not changes(scope["method"], scope["path"]):
            await self.app(scope, receive, send)
            return
        if SAVER.problem is not None and not await _saved_or_refused(scope, receive, send):
            return
        refused = streamed = False

        async def send_after_save(message: Message) -> None:
            nonlocal refused, streamed
            if message["type"] == "http.response.start":
                streamed = _streamed(message)
                # Before any 200, streams included: a write that cannot be kept is
                # answered 507, never a 200 cut short.
                refused = not await _saved_or_refused(scope, receive, send)
            elif streamed and not refused and not message.get("more_body", False):
                await SAVER.saved()  # a failure cuts the answer short
            if not refused:
                await send(message)

        await self.app(scope, receive, send_after_save)


def _streamed(start: Message) -> bool:
    names = {name.lower() for name, _ in start.get("headers", ())}
    return start.get("status") not in (204, 304) and b"content-length" not in names


async def _saved_or_refused(scope: Scope, receive: Receive, send: Send) -> bool:
    """Whether `SAVER` saved; if not, the answer is ``507`` with the reason, sent here."""
    try:
        await SAVER.saved()
    except SaveError as exc:
        await JSONResponse({"detail": exc.strerror}, 507)(scope, receive, send)
        return False
    return True


@contextlib.asynccontextmanager
async def lifespan(app: Any, own: Callable[[Any], AsyncContext]) -> AsyncIterator[Any]:
    """Around the app's ``own`` lifespan; run by langgraph-api after its own start
    (``combine_lifespans(lifespan, custom)``): the runtime has loaded and registered its
    dictionaries and started its writer."""
    upstream.stop_runtime_writer()
    with contextlib.suppress(SaveError):
        SAVER.save()  # an unwritable folder is told before any request
    try:
        async with own(app) as state:
            yield state
    finally:
        # The runtime's stop follows: what it changes from here on (the runs it cuts
        # off, put back in the queue) is in the file it writes, newer than ours.
        with contextlib.suppress(SaveError):
            SAVER.save()
        SAVER.close()
    mark_stopped()
    logger.info(
        "agent-tui: %d saves, %.1f ms each", SAVER.saves, SAVER.seconds / max(1, SAVER.saves) * 1000
    )
