"""Acknowledged writes survive a crash of the embedded server (`server_process` applies
this before it starts langgraph-api).

The in-memory runtime (langgraph-runtime-inmem 0.36.7) pickles its stores every 10 s from
a background thread, and its checkpoints only at a clean stop: a ``kill -9`` lost up to
10 s of threads, runs, assistants and store items, and every checkpoint since the last
start. Here:

- checkpoints go to SQLite (`durable_checkpointer`, through langgraph-api's public
  ``checkpointer`` setting), one transaction per checkpoint;
- the runtime's stores are written by a `Committer` (`durable_commits`), and a request
  that may change them (any method but GET/HEAD/OPTIONS, except the searches and counts
  sent as POST) is answered only once they are on disk: an ASGI wrapper holds the
  response's first message until the commit is done. A commit that fails (a full disk)
  turns the answer into ``507 Insufficient Storage``: the change is not acknowledged;
- changes made without a request (a run's end, its status, the cron scheduler) are
  committed when each run ends and at most `SWEEP_SECONDS` later;
- the runtime's own flush thread is stopped, so two writers never race on a file, and the
  runtime's final save at a clean stop is kept (our commits stop first).

Only the stores' registration, flush loop, ``start_pool``/``stop_pool`` and the worker
entry point of the pinned runtime are touched, and only in the server process.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from agent_tui.local.durable_commits import CommitError, Committer, Source

logger = logging.getLogger("agent_tui.local.durable")

DURABLE_CHECKPOINTER = "agent_tui.local.durable_checkpointer.checkpointer"
"""`durable_checkpointer.checkpointer` as langgraph-api's ``checkpointer.path`` names it
(``module.attribute``: a ``module:attribute`` without a slash is not understood)."""

SWEEP_SECONDS = 0.5
"""How often changes made outside requests are looked for (a pickle when nothing
changed: the files are rewritten only when their bytes differ)."""

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


def make_runtime_durable() -> Committer:
    """Patch the in-memory runtime (imported here) and uvicorn; return the committer."""
    import uvicorn
    from langgraph_runtime_inmem import _persistence, checkpoint, database, lifespan

    committer = Committer(runtime_sources)
    # The runtime's flush thread started when its store was imported: stop it, and keep
    # it from starting again (it would write the same files from another thread).
    _persistence.stop_flush_loop()

    def register(_: Any) -> None:
        pass

    for module in (_persistence, database, checkpoint):
        module.register_persistent_dict = register  # type: ignore[attr-defined]

    original_start, original_stop = lifespan.start_pool, lifespan.stop_pool
    sweeper: list[asyncio.Task[None]] = []

    async def start_pool() -> None:
        await original_start()
        # Saved at once: a folder that cannot be written is told before any request.
        with contextlib.suppress(CommitError):
            await committer.commit()
        sweeper.append(asyncio.create_task(_sweep(committer), name="agent-tui-commits"))

    async def stop_pool() -> None:
        for task in sweeper:
            task.cancel()
        with contextlib.suppress(CommitError):
            await committer.commit()
        await committer.close()  # the runtime saves, then empties, its stores
        await original_stop()

    lifespan.start_pool = database.start_pool = start_pool  # type: ignore[attr-defined]
    lifespan.stop_pool = database.stop_pool = stop_pool  # type: ignore[attr-defined]

    main_loop: list[asyncio.AbstractEventLoop] = []
    original_run = uvicorn.run

    # `run_server` passes only the options `uvicorn.run`'s signature names (`fd` among
    # them): `wraps` keeps that signature visible.
    @functools.wraps(original_run)
    def run(app: Any, *args: Any, **kwargs: Any) -> Any:
        # Called by `run_server` once it has set the environment langgraph-api's config
        # reads when imported: only now may its modules be imported.
        _commit_after_each_run(committer, main_loop)
        if isinstance(app, str):  # langgraph-api names its app by import string
            app = DurableCommits(_import_app(app), committer, main_loop)
        return original_run(app, *args, **kwargs)

    uvicorn.run = run  # type: ignore[assignment]
    return committer


def _commit_after_each_run(committer: Committer, loops: list[asyncio.AbstractEventLoop]) -> None:
    from langgraph_api import worker

    original_worker = worker.worker

    async def run_worker(*args: Any, **kwargs: Any) -> Any:
        try:
            return await original_worker(*args, **kwargs)
        finally:
            _commit_soon(committer, loops)

    worker.worker = run_worker


class DurableCommits:
    """ASGI wrapper: a changing request's answer waits for `Committer.commit`, and
    becomes ``507`` if that fails."""

    def __init__(
        self, app: ASGIApp, committer: Committer, loops: list[asyncio.AbstractEventLoop]
    ) -> None:
        self.app = app
        self.committer = committer
        self._loops = loops

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._loops:
            self._loops.append(asyncio.get_running_loop())
        if scope["type"] != "http" or not changes(scope["method"], scope["path"]):
            await self.app(scope, receive, send)
            return
        refused = False

        async def send_after_commit(message: Message) -> None:
            nonlocal refused
            if refused:
                # The client has its 507; stop the handler (a stream) from going on.
                raise OSError("the change was refused: it could not be saved")
            if message["type"] == "http.response.start":
                try:
                    await self.committer.commit()
                except CommitError as exc:
                    refused = True
                    await _refuse(send, str(exc.strerror))
                    return
            await send(message)

        await self.app(scope, receive, send_after_commit)


def changes(method: str, path: str) -> bool:
    """Whether a request may change the stores (its answer then waits for a commit)."""
    if method in READ_METHODS:
        return False
    return not (method == "POST" and path.rstrip("/").endswith(READ_SUFFIXES))


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


async def _sweep(committer: Committer) -> None:
    while True:
        await asyncio.sleep(SWEEP_SECONDS)
        with contextlib.suppress(CommitError):
            await committer.commit()


_PENDING: set[asyncio.Task[None]] = set()


def _commit_soon(committer: Committer, loops: list[asyncio.AbstractEventLoop]) -> None:
    """Commit on the server's loop (a run may end on another one)."""
    if not loops:
        return
    loop = loops[0]

    async def commit() -> None:
        with contextlib.suppress(CommitError):
            await committer.commit()

    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        task = loop.create_task(commit())
        _PENDING.add(task)  # a task nobody holds may be collected before it ends
        task.add_done_callback(_PENDING.discard)
    else:
        asyncio.run_coroutine_threadsafe(commit(), loop)


def _import_app(target: str) -> ASGIApp:
    module_name, _, attribute = target.partition(":")
    import importlib

    app: ASGIApp = getattr(importlib.import_module(module_name), attribute)
    return app


def disk_problem_probe(folder: str) -> str | None:
    """Why a file cannot be written in ``folder`` now (None: it can)."""
    probe = os.path.join(folder, f".agent-tui-probe.{os.getpid()}")
    try:
        with open(probe, "wb") as file:
            file.write(b"\0" * 4096)
        os.remove(probe)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.remove(probe)
        return exc.strerror or str(exc)
    return None
