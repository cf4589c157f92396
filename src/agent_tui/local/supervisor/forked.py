"""Agent server processes forked from a prewarmed one instead of started from nothing,
for a process that starts many (the test suite: hundreds of servers, each spending 2-3 s
of CPU importing LangGraph, LangChain and the web server before it reads its config).

Off unless `fork_servers()` turns it on, for this process only (not its children): an
app or ``agent-tui serve`` starts one server and gains nothing. Once on, a launch of
``python -P -m agent_tui.server.main`` on this process's own interpreter asks Python's
`multiprocessing` forkserver, which imported `standby.PREWARMED` and
`standby.SERVER_PREWARMED` once (the modules a standby imports ahead: none reads the
environment or the data at import), to fork a child; the child then does what
``python -P -m agent_tui.server.main`` would after its start: it takes its descriptors,
working folder, environment and ``sys.path``, leads a session of its own, and runs
`agent_tui.server.main.main` with the same arguments. Any other launch (another
interpreter: a project's environment) starts as before.

What the supervisor sees is a `ForkedServer`, which answers as the ``subprocess.Popen``
it replaces: ``pid`` (the leader of its own process group, so `launch.signal_server`
reaches what it started), ``stdin`` (the lifeline: end-of-file stops the server),
``stdout`` (its output, stderr included), ``poll``, ``wait``, ``returncode`` (negative:
the signal that ended it). Its parent is the forkserver, not us: ``--parent-pid`` names
the forkserver (which exits when we do), and the stdin lifeline works as ever.

Only for a process that holds no secret in its environment: the forkserver is started
with this process's environment, and although a forked server's ``os.environ`` is the
allow-listed one (`server_environment`), its ``/proc/PID/environ`` still shows what the
forkserver was started with; the process listing shows the forkserver's command line too.
The ``__main__`` of this process must be importable without side effects (multiprocessing
imports it in the forkserver's children): true of pytest and its workers.

Measured (`tests/ui/app` and `tests/functional/local`, 219 tests, alternating, two pairs):
a forked server's CPU to its first answer 0.6 s (median) against 2.4 s; the files' CPU
438 / 396 s against 539 / 619 s, their time 266 / 239 s against 288 / 337 s.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import multiprocessing
import multiprocessing.connection
import os
import runpy
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any, TypeAlias

from agent_tui.local.standby import PREWARMED, SERVER_PREWARMED

SERVER_MODULE = "agent_tui.server.main"
_MAX_SPEC = 1 << 20  # the child's working folder, environment and path, as JSON
_MAX_FDS = 64
_READY_TIMEOUT = 60.0  # seconds for a forked child to take its descriptors (a loaded machine)

_python: str | None = None
"""The interpreter the forkserver runs (this process's, when `fork_servers` was called):
a server asked for on another one (a project's environment) is started, not forked."""
_lock = threading.Lock()
"""Held around every start and every look at a child's exit: `multiprocessing` reads a
child's exit status from a pipe, once, and two threads reading at once would lose it."""
_clean_path: list[str] = []


def fork_servers(enabled: bool = True) -> None:
    """Fork this process's agent servers from a prewarmed one from now on (or not)."""
    global _python
    _python = sys.executable if enabled and os.name == "posix" else None
    if _python is not None:
        import multiprocessing.forkserver  # noqa: F401  (it takes the interpreter now)


def forking() -> bool:
    """Whether `fork_servers` is on in this process."""
    return _python is not None


def forks(command: Sequence[str]) -> bool:
    """Whether `start` forks this command line (else it is started with ``Popen``)."""
    return (
        _python is not None
        and len(command) > 3
        and command[0] == _python
        and list(command[1:4]) == ["-P", "-m", SERVER_MODULE]
    )


def start(command: Sequence[str], options: Mapping[str, Any]) -> ServerProcess:
    """The server process for ``command`` and ``launch.launch_command``'s ``options``,
    with its stdin a pipe: forked when `forks` says so, else ``Popen``."""
    if not forks(command):
        return subprocess.Popen(list(command), stdin=subprocess.PIPE, **options)
    return ForkedServer(
        list(command),
        cwd=os.fspath(options["cwd"]),
        env=dict(options["env"]),
        pass_fds=list(options.get("pass_fds") or ()),
    )


ServerProcess: TypeAlias = "subprocess.Popen[bytes] | ForkedServer"
"""What `start` gives: the process of an agent server, forked or not."""


def _context() -> Any:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([*PREWARMED, *SERVER_PREWARMED])
    return context


def _python_path() -> list[str]:
    """``sys.path`` as ``python -P`` starts it here (ours has the test folders too)."""
    if not _clean_path:
        out = subprocess.run(
            [
                _python or sys.executable,
                "-P",
                "-c",
                "import json, sys; print(json.dumps(sys.path))",
            ],
            capture_output=True,
            check=True,
        ).stdout
        _clean_path[:] = json.loads(out)
    return list(_clean_path)


class ForkedServer:
    """A server forked by the forkserver, answering as a ``subprocess.Popen[bytes]``."""

    def __init__(
        self, args: list[str], *, cwd: str, env: dict[str, str], pass_fds: list[int]
    ) -> None:
        self.args = args
        self.returncode: int | None = None
        spec = {"cwd": cwd, "env": env, "fds": pass_fds, "path": _python_path()}
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        stdin_read, stdin_write = os.pipe()
        stdout_read, stdout_write = os.pipe()
        try:
            with _lock:
                self._process = _context().Process(
                    target=_serve, args=(args[4:], theirs), name="agent-server", daemon=True
                )
                self._process.start()
            self.pid: int = self._process.pid
            theirs.close()
            socket.send_fds(
                ours, [json.dumps(spec).encode()], [stdin_read, stdout_write, *pass_fds]
            )
            ours.settimeout(_READY_TIMEOUT)
            if ours.recv(16) != b"ok":  # it has its descriptors and leads its session
                raise OSError("the forked agent server did not start")
        except BaseException:
            if hasattr(self, "pid"):
                self.kill()
            os.close(stdin_write)
            os.close(stdout_read)
            raise
        finally:
            ours.close()
            theirs.close()
            os.close(stdin_read)
            os.close(stdout_write)
        self.stdin: IO[bytes] | None = os.fdopen(stdin_write, "wb")
        self.stdout: IO[bytes] | None = os.fdopen(stdout_read, "rb")
        self.stderr: IO[bytes] | None = None

    def poll(self) -> int | None:
        with _lock:
            if self.returncode is None:
                self.returncode = self._process.exitcode
            return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
            multiprocessing.connection.wait([self._process.sentinel], left)
        return code

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def _serve(argv: list[str], control: socket.socket) -> None:
    """In the forked child: become what ``python -P -m agent_tui.server.main`` would be."""
    message, fds, _, _ = socket.recv_fds(control, _MAX_SPEC, _MAX_FDS)
    spec = json.loads(message)
    os.setsid()
    control.send(b"ok")  # it holds its descriptors and leads its own session
    control.close()
    stdin_fd, stdout_fd, *passed = fds
    os.dup2(stdin_fd, 0)
    os.dup2(stdout_fd, 1)
    os.dup2(stdout_fd, 2)
    os.close(stdin_fd)
    os.close(stdout_fd)
    # Each passed descriptor under the number the command line names (`--fd`): moved
    # above all of those numbers first, since what one arrived as may be another's.
    floor = max([2, *spec["fds"]]) + 1
    moved = [fcntl.fcntl(fd, fcntl.F_DUPFD, floor) for fd in passed]
    for fd in passed:
        os.close(fd)
    for fd, number in zip(moved, spec["fds"], strict=True):
        os.dup2(fd, number)
        os.close(fd)
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), write_through=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), write_through=True)
    os.chdir(spec["cwd"])
    os.environ.clear()
    os.environ.update(spec["env"])
    sys.path[:] = spec["path"]
    if "--parent-pid" in argv:  # our parent is the forkserver, which ends with the caller
        argv[argv.index("--parent-pid") + 1] = str(os.getppid())
    # As ``python -m`` runs it: as ``__main__``, its own ``sys.exit`` ending the child.
    sys.argv = [SERVER_MODULE, *argv]
    runpy.run_module(SERVER_MODULE, run_name="__main__", alter_sys=True)
