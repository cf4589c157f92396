"""One embedded server per data folder: a lock, and a note saying where that server runs.

Headless. Two servers on one data folder would each load the runtime's files and save
over each other's, losing threads; so the server that owns a data folder holds an
exclusive lock on ``<data_dir>/server.lock`` for as long as it runs, and records in
``<data_dir>/server.json`` who it is and, once ``/ok`` answers, its URL. A second copy
of agent-tui (or ``agent-tui serve``) on the same project reads the note and connects
to that server instead of starting another.

The lock is an ``flock`` (POSIX) on an open file, so the kernel lets go of it when the
last process holding the file exits, whatever way it dies: a lock or note left behind by
a dead process counts as nobody's, and the next ``acquire`` takes over. The supervisor
hands the lock's file to the server process too, so the lock is only free once the
server itself has exited and saved its data. Elsewhere ``msvcrt`` locks the file's
first byte, held by the supervisor only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from agent_tui.client.tls import loopback_tls_context
from agent_tui.settings.atomic_file import write_private_text

LOCK_FILE = "server.lock"
INFO_FILE = "server.json"

if sys.platform == "win32":  # pragma: no cover
    import msvcrt
else:
    import fcntl

# A prober's shared lock lives for microseconds; an owner's exclusive one for the
# server's life. How often `acquire` looks again when it only met a prober.
_PROBER_RETRIES = 200


class ServerLockError(RuntimeError):
    """The data folder's lock cannot be used (e.g. the folder is not writable)."""


@dataclass(frozen=True, slots=True)
class RunningServer:
    """The server that holds a data folder's lock, as its ``server.json`` describes it."""

    data_dir: Path
    url: str | None
    """None while it starts (no ``/ok`` answer yet), or while it shuts down."""
    pid: int | None
    """The process that started it and owns it (agent-tui or ``agent-tui serve``)."""
    server_pid: int | None = None
    config: str | None = None
    started_at: str | None = None

    @property
    def starting(self) -> bool:
        return self.url is None


class ServerLockHeld(ServerLockError):
    """Another live process holds the lock: ``running`` says which, and where it serves."""

    def __init__(self, running: RunningServer) -> None:
        self.running = running
        where = f"at {running.url}" if running.url else "(starting)"
        super().__init__(f"a server for {running.data_dir} already runs {where}")


class ServerLock:
    """The held lock of one data folder; ``release()`` (or process exit) frees it."""

    def __init__(self, data_dir: Path, fd: int) -> None:
        self.data_dir = data_dir
        self._fd: int | None = fd
        self._config: str | None = None
        self._started_at = datetime.now(UTC).isoformat(timespec="seconds")

    @classmethod
    def acquire(cls, data_dir: Path, *, config: Path | None = None) -> ServerLock:
        """Take the lock of ``data_dir`` (created if needed) without waiting.

        Raises `ServerLockHeld` when another process holds it, `ServerLockError` when the
        lock file cannot be opened. The note then names this process as the owner.
        """
        fd = _open_lock_file(data_dir)
        try:
            for _ in range(_PROBER_RETRIES):
                if _try_lock(fd, exclusive=True):
                    break
                if not _held_exclusively(data_dir):
                    time.sleep(0.001)  # only a `running_server` probe was looking
                    continue
                raise ServerLockHeld(_read_running(data_dir))
            else:
                raise ServerLockHeld(_read_running(data_dir))
        except BaseException:
            os.close(fd)
            raise
        lock = cls(data_dir, fd)
        lock._config = str(config) if config is not None else None
        # Written at once, so a second copy can say which process it is waiting for.
        lock._write(url=None, server_pid=None)
        return lock

    @property
    def held(self) -> bool:
        return self._fd is not None

    def fileno(self) -> int:
        """The lock file's descriptor: pass it to the server process to share the lock."""
        if self._fd is None:
            raise ServerLockError("the server lock was released")
        return self._fd

    def record(self, *, url: str, server_pid: int | None, config: Path | str | None) -> None:
        """Note where the server answers, once it does: attaching copies connect there."""
        if config is not None:
            self._config = str(config)
        self._write(url=url, server_pid=server_pid)

    def release(self) -> None:
        """Remove the note and let go of the lock; safe to call more than once."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        # Before unlocking: once unlocked, the note may already be someone else's.
        with contextlib.suppress(OSError):
            (self.data_dir / INFO_FILE).unlink()
        with contextlib.suppress(OSError):
            _unlock(fd)
        os.close(fd)

    def _write(self, *, url: str | None, server_pid: int | None) -> None:
        note = {
            "url": url,
            "pid": os.getpid(),
            "server_pid": server_pid,
            "config": self._config,
            "started_at": self._started_at,
        }
        try:
            write_private_text(self.data_dir / INFO_FILE, json.dumps(note, indent=2) + "\n")
        except OSError as exc:
            raise ServerLockError(f"cannot write {self.data_dir / INFO_FILE}: {exc}") from exc

    def __repr__(self) -> str:
        return f"<ServerLock {self.data_dir} {'held' if self.held else 'released'}>"


def running_server(data_dir: Path) -> RunningServer | None:
    """The server that owns ``data_dir`` now, or None when no process holds its lock."""
    if not (data_dir / LOCK_FILE).exists():
        return None
    return _read_running(data_dir) if _held_exclusively(data_dir) else None


async def wait_for_running_server(
    data_dir: Path, timeout: float, *, poll: float = 0.1
) -> RunningServer | None:
    """Wait until the owner of ``data_dir`` has recorded its URL and ``/ok`` answers there.

    Returns that server, or None as soon as nobody holds the lock any more (the owner
    failed or stopped: start a server of your own). Raises `TimeoutError` after
    ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient(trust_env=False, verify=loopback_tls_context()) as client:
        while True:
            running = running_server(data_dir)
            if running is None:
                return None
            if running.url is not None:
                with contextlib.suppress(httpx.HTTPError):
                    response = await client.get(f"{running.url}/ok", timeout=2.0)
                    if response.status_code == 200:
                        return running
            if time.monotonic() >= deadline:
                state = f"at {running.url} does not answer" if running.url else "is not ready"
                raise TimeoutError(
                    f"the local agent server of process {running.pid} {state} after {timeout:g} s"
                )
            await asyncio.sleep(poll)  # polls another process's progress: no event to wait on


def wait_for_running_url(data_dir: Path, timeout: float) -> str | None:
    """`wait_for_running_server` for code without an event loop: the URL, or None."""
    running = asyncio.run(wait_for_running_server(data_dir, timeout))
    return running.url if running is not None else None


# -- the note --------------------------------------------------------------------------------


def _read_running(data_dir: Path) -> RunningServer:
    try:
        note: Any = json.loads((data_dir / INFO_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        note = {}
    if not isinstance(note, dict):
        note = {}
    pid = _int_or_none(note.get("pid"))
    url = note.get("url") if isinstance(note.get("url"), str) else None
    if pid is None or not _pid_alive(pid):
        # A note from a dead owner: either a new owner has not rewritten it yet, or the
        # server outlived its owner and is shutting down. Its URL is of no use either way.
        url = None
    return RunningServer(
        data_dir=data_dir,
        url=url,
        pid=pid,
        server_pid=_int_or_none(note.get("server_pid")),
        config=note.get("config") if isinstance(note.get("config"), str) else None,
        started_at=note.get("started_at") if isinstance(note.get("started_at"), str) else None,
    )


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _pid_alive(pid: int) -> bool:
    if sys.platform == "win32":  # pragma: no cover - signal 0 means CTRL_C_EVENT there
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


# -- the lock ----------------------------------------------------------------------------------


def _open_lock_file(data_dir: Path) -> int:
    try:
        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        # Not inheritable (Python's default): only the server process gets it, by pass_fds.
        return os.open(data_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise ServerLockError(f"cannot open {data_dir / LOCK_FILE}: {exc}") from exc


def _held_exclusively(data_dir: Path) -> bool:
    """Whether some process holds the lock, found by briefly taking a shared lock."""
    try:
        fd = os.open(data_dir / LOCK_FILE, os.O_RDWR)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise ServerLockError(f"cannot open {data_dir / LOCK_FILE}: {exc}") from exc
    try:
        # A shared lock coexists with other probes and fails only against an owner.
        if not _try_lock(fd, exclusive=False):
            return True
        _unlock(fd)
        return False
    finally:
        os.close(fd)


def _try_lock(fd: int, *, exclusive: bool) -> bool:
    if sys.platform == "win32":  # pragma: no cover - no shared locks there
        os.lseek(fd, 0, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _unlock(fd: int) -> None:
    if sys.platform == "win32":  # pragma: no cover
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
