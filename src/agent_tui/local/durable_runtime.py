"""Acknowledged writes survive a crash of the embedded server (`server_process` applies
this before it starts langgraph-api).

The in-memory runtime (langgraph-runtime-inmem 0.36.7) pickles its stores every 10 s from
a background thread, and its checkpoints only at a clean stop: a ``kill -9`` lost up to
10 s of threads, runs, assistants and store items, and every checkpoint since the last
start. Here:

- checkpoints stay in the runtime's in-memory saver and go to a log (`durable_checkpointer`,
  through langgraph-api's public ``checkpointer`` setting), flushed by the commit before
  each answer (below) and within 0.1 s of their write otherwise;
- the runtime's stores are written by a `Committer` (`durable_commits`), and a request
  that may change them (any method but GET/HEAD/OPTIONS, except the searches and counts
  sent as POST) is answered only once they are on disk: an ASGI wrapper holds the
  response's first message until the commit is done; for an answer sent as it is made
  (``runs/wait``'s result, a run's stream: no length), it holds the last one instead (a
  client has the answer only at its end; a commit that fails cuts it short). A commit
  that fails (a full disk) turns the answer into ``507 Insufficient Storage``: the change
  is not acknowledged; while saving fails, changing requests are refused (507) before they
  reach the runtime, so they are not made; only the change whose commit failed first stays
  in memory (refused, and saved with the next commit that succeeds);
- changes made without a request (a run's status, its thread's state, the runs the cron
  scheduler makes) are committed when each run starts and ends, within
  `Committer.BACKGROUND_DELAY` (sooner when an answer's commit takes them along);
- the requests a run is made of (creating a thread, creating a run on one) and a run's
  start and end change only their thread's records and records they add (`changed_threads`),
  so their commits compare only those (`Committer.request(threads=…)`): a counter run's
  commits cost microseconds, not a pass over every thread and run kept;
- the runtime's own flush thread is stopped, so two writers never race on a file, and the
  runtime's final save at a clean stop is kept (our commits stop first).

Only the stores' registration, flush loop, ``start_pool``/``stop_pool``, the worker entry
point, the retry counter's ``increment`` and the blocking-call guard's allowances of the
pinned runtime are touched, and
``uvicorn.run`` (to wrap the app), only in the server process.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from agent_tui.local.durable_commits import (
    RUNTIME_FILES,
    CommitError,
    Committer,
    Source,
    restore_committed,
)

logger = logging.getLogger("agent_tui.local.durable")

DURABLE_CHECKPOINTER = "agent_tui.local.durable_checkpointer.checkpointer"
"""`durable_checkpointer.checkpointer` as langgraph-api's ``checkpointer.path`` names it
(``module.attribute``: a ``module:attribute`` without a slash is not understood)."""

ALLOWED_BLOCKING = (
    # (The commits' own writes go around the guard: `unguarded`.)
    # The checkpointer's start: its tables read, what its log holds beyond them applied
    # (`durable_checkpointer.open_saver`). Its writes after that are a `pwrite` of the log
    # (`unguarded`), and the tables are written by a thread of their own.
    (("sqlite3.", "os.", "io."), "agent_tui/local/durable_checkpointer.py", ("open_saver",)),
)
"""Calls (names, or a prefix ending in a dot) langgraph-api's blocking-call guard lets
through when made in the named functions of a file: small writes to the operating
system's cache, cheaper in place than a trip to a worker thread (see the modules)."""

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
READ_SUFFIXES = ("/search", "/count", "/namespaces", "/versions", "/history")
"""POST endpoints that only read (their answers need no commit)."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def runtime_sources() -> list[Source]:
    """The runtime's stores and their files, read anew each time (``set_store_config``
    replaces the store)."""
    from langgraph_runtime_inmem import database, store

    return [
        # The retry counter first: a crash between the two over-counts an attempt
        # rather than letting a retried run skip one (the runtime's own order).
        (database.RETRY_COUNTER_FILENAME, database.GLOBAL_RETRY_COUNTER._counters),
        (database.OPS_FILENAME, database.GLOBAL_STORE),
        (store._STORE_FILE, store.STORE._data),
        (store._VECTOR_FILE, store.STORE._vectors),
    ]


def make_runtime_durable(generations: dict[str, tuple[int, int]]) -> Committer | None:
    """Patch the in-memory runtime (imported here) and uvicorn; return the committer.
    ``generations``: what `restore_committed` found, before the runtime was imported.
    None (and a warning) if the runtime keeps its files elsewhere than expected."""
    import uvicorn
    from langgraph_runtime_inmem import _persistence, checkpoint, database, lifespan

    if tuple(name for name, _ in runtime_sources()) != RUNTIME_FILES:
        logger.warning("langgraph-runtime-inmem changed: its stores are saved every 10 s")
        return None
    committer = Committer(runtime_sources, generations)
    _tell_retry_counts(committer, database)
    # The runtime's flush thread started when its store was imported: stop it, and keep
    # it from starting again (it would write the same files from another thread).
    _persistence.stop_flush_loop()

    def register(_: Any) -> None:
        pass

    for module in (_persistence, database, checkpoint):
        module.register_persistent_dict = register

    original_start, original_stop = lifespan.start_pool, lifespan.stop_pool
    main_loop: list[asyncio.AbstractEventLoop] = []  # the server's, once it runs

    async def start_pool() -> None:
        main_loop[:] = [asyncio.get_running_loop()]
        # The ops store's last commit, where the runtime is about to load it.
        restore_committed([database.OPS_FILENAME])
        await original_start()
        # Saved at once: a folder that cannot be written is told before any request.
        with contextlib.suppress(CommitError):
            committer.commit()

    async def stop_pool() -> None:
        with contextlib.suppress(CommitError):
            committer.commit()
        committer.close()  # the runtime saves, then empties, its stores
        await original_stop()

    lifespan.start_pool = database.start_pool = start_pool
    lifespan.stop_pool = database.stop_pool = stop_pool

    original_run = uvicorn.run

    # `run_server` passes only the options `uvicorn.run`'s signature names (`fd` among
    # them): `wraps` keeps that signature visible.
    @functools.wraps(original_run)
    def run(app: Any, *args: Any, **kwargs: Any) -> Any:
        # Called by `run_server` once it has set the environment langgraph-api's config
        # reads when imported: only now may its modules be imported.
        _commit_after_each_run(committer, main_loop)
        _allow_our_writes()
        if isinstance(app, str):  # langgraph-api names its app by import string
            app = DurableCommits(_import_app(app), committer)
        return original_run(app, *args, **kwargs)

    uvicorn.run = run
    return committer


def _tell_retry_counts(committer: Committer, database: Any) -> None:
    """The retry counter changes only in `InMemoryRetryCounter.increment` (a run's
    attempt, when it starts): it tells the committer so (`Committer.tells`)."""
    filename = database.RETRY_COUNTER_FILENAME
    original = database.InMemoryRetryCounter.increment

    async def increment(self: Any, run_id: Any) -> int:
        count: int = await original(self, run_id)
        committer.changed(filename)  # after the change: no commit comes in between
        return count

    database.InMemoryRetryCounter.increment = increment
    committer.tells(filename)


def _allow_our_writes() -> None:
    """`ALLOWED_BLOCKING` under langgraph-api's blocking-call guard (blockbuster, on
    unless ``--allow-blocking``), as the guard lets the runtime's own
    ``PersistentDict.sync`` rename its files."""
    from langgraph_runtime_inmem import queue

    original = queue._enable_blockbuster

    def enable() -> Any:
        guard = original()
        for names, where, functions in ALLOWED_BLOCKING:
            for name, function in guard.functions.items():
                if any(name == n or (n.endswith(".") and name.startswith(n)) for n in names):
                    function.can_block_in(where, functions)
        return guard

    queue._enable_blockbuster = enable


def _commit_after_each_run(committer: Committer, loops: list[asyncio.AbstractEventLoop]) -> None:
    from langgraph_api import worker

    original_worker = worker.worker

    async def run_worker(*args: Any, **kwargs: Any) -> Any:
        run = args[0] if args else kwargs.get("run")
        thread = run.get("thread_id") if isinstance(run, dict) else None
        threads = None if thread is None else (str(thread),)
        _commit_soon(committer, loops, threads)  # the run is now running
        try:
            return await original_worker(*args, **kwargs)
        finally:
            _commit_soon(committer, loops, threads)  # its status, its thread's state

    worker.worker = run_worker


class DurableCommits:
    """ASGI wrapper: a changing request's answer waits for a commit (`Committer.request`), and
    becomes ``507`` if that fails. An answer sent as it is made (no length: ``runs/wait``,
    a run's stream) is acknowledged only by its end, which waits for the commit instead:
    the run's result is saved before the client has read it all, and a commit that fails
    cuts the answer short."""

    def __init__(self, app: ASGIApp, committer: Committer) -> None:
        self.app = app
        self.committer = committer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not changes(scope["method"], scope["path"]):
            await self.app(scope, receive, send)
            return
        threads = changed_threads(scope["method"], scope["path"])
        if self.committer.problem is not None:
            # Saving failed last time: a change is let in only once what is waiting can
            # be saved, so a refused change is never made (a 507, and the item the user
            # tried to delete still there).
            try:
                await self.committer.request()
            except CommitError as exc:
                await _refuse(send, str(exc.strerror))
                return
        refused = False
        streamed = False

        async def send_after_commit(message: Message) -> None:
            nonlocal refused, streamed
            if refused:
                # The client has its 507: the rest of the answer goes nowhere. (Raising
                # here would make uvicorn drop the connection under a client that may
                # send its next request on it.)
                return
            if message["type"] == "http.response.start":
                streamed = _streamed(message)
                if not streamed:
                    try:
                        await self.committer.request(threads=threads)
                    except CommitError as exc:
                        refused = True
                        await _refuse(send, str(exc.strerror))
                        return
            elif streamed and not message.get("more_body", False):
                # The end of an answer sent as it is made (`runs/wait`'s result, a run's
                # stream): the client has not had it until then, so its commit comes
                # here, before it has it all (the run made, run and ended, its thread,
                # its checkpoints: one commit). If it cannot be saved, the answer is cut
                # short (the client sees an error, not the result).
                await self.committer.request(threads=threads)
            await send(message)

        await self.app(scope, receive, send_after_commit)


def _streamed(start: Message) -> bool:
    """Whether an answer is sent as it is made: a body and no length (a 204 or 304 has
    no body, and so no length either)."""
    if start.get("status") in (204, 304):
        return False
    return not any(name.lower() == b"content-length" for name, _ in start.get("headers", ()))


def changes(method: str, path: str) -> bool:
    """Whether a request may change the stores (its answer then waits for a commit)."""
    if method in READ_METHODS:
        return False
    return not (method == "POST" and path.rstrip("/").endswith(READ_SUFFIXES))


def changed_threads(method: str, path: str) -> tuple[str, ...] | None:
    """The only threads whose records a changing request may change, where the
    runtime's code shows it (the requests a run is made of): creating a thread changes
    none (it adds one), creating a run on a thread changes that thread's (it adds the
    run; ``multitask_strategy`` may interrupt or drop the thread's other runs). None: any
    (a record added or dropped is seen whatever this says)."""
    parts = path.strip("/").split("/")
    if method != "POST" or not parts or parts[0] != "threads":
        return None
    if len(parts) == 1:
        return ()
    if len(parts) in (3, 4) and parts[2] == "runs" and parts[3:] in ([], ["wait"], ["stream"]):
        try:
            return (str(uuid.UUID(parts[1])),)  # as the records' ids print
        except ValueError:
            return None
    return None


async def _refuse(send: Send, reason: str) -> None:
    body = json.dumps({"detail": reason}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 507,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _commit_soon(
    committer: Committer,
    loops: list[asyncio.AbstractEventLoop],
    threads: tuple[str, ...] | None,
) -> None:
    """Commit on the server's loop (a run may end on another one)."""
    if not loops:
        return
    loop = loops[0]
    loop.call_soon_threadsafe(functools.partial(committer.request, urgent=False, threads=threads))


def _import_app(target: str) -> ASGIApp:
    module_name, _, attribute = target.partition(":")
    import importlib

    app: ASGIApp = getattr(importlib.import_module(module_name), attribute)
    return app
