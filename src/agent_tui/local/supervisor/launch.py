"""How an embedded agent server process is launched and ended: its listening socket,
command line and ``Popen`` options, the prewarmed process a restart may use instead
(`ServerStandby`), and the signals that stop it (`embedded_server` decides when).

On POSIX the listening socket is bound here, on a free port, and handed to the child, so
no other process can take the port between choosing it and listening on it. Elsewhere
the port is chosen by binding port 0 and releasing it (`free_port`), and the supervisor
retries a lost race. The child leads its own session, so Ctrl-C in the terminal reaches
only agent-tui, and a stop signals its whole process group.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_tui.local.langgraph_config import (
    LangGraphConfig,
    LangGraphConfigError,
    load_langgraph_config,
)
from agent_tui.local.server_environment import server_environment
from agent_tui.local.standby import Standby
from agent_tui.local.supervisor import forked
from agent_tui.local.supervisor.errors import EmbeddedServerError
from agent_tui.local.supervisor.forked import ServerProcess

SOCKET_INHERITANCE = os.name == "posix"
"""The child gets its listening socket (and the data folder's lock) from us by fd."""


def read_config(config_path: Path) -> LangGraphConfig:
    """The project's ``langgraph.json``, read for a start; `EmbeddedServerError` with the
    reason when it is not usable."""
    try:
        return load_langgraph_config(config_path)
    except LangGraphConfigError as exc:
        raise EmbeddedServerError(f"cannot start the agent server: {exc}") from None


def listen(host: str, port: int | None) -> socket.socket:
    """A listening socket on ``host`` and ``port`` (None: a free one), for the child."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        # Lets a restart reuse its old port while the previous connections linger.
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # uvicorn takes this socket by fd as if it were AF_UNIX, so asyncio never sets
        # TCP_NODELAY on the connections; accepted sockets inherit it from here. Without
        # it every small response waits ~40 ms (Nagle against delayed ACK): GET /ok took
        # 44 ms on keep-alive connections, 1 ms with it.
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        listener.bind((host, port or 0))
        listener.listen(128)
    except OSError as exc:
        listener.close()
        where = f"{host}:{port or 0}"
        raise EmbeddedServerError(f"cannot listen on {where}: {exc.strerror}") from exc
    return listener


def free_port(host: str) -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def launch_command(
    *,
    python: str,
    config_path: Path,
    data_dir: Path,
    host: str,
    port: int,
    jobs: int,
    env: Mapping[str, str],
    allow_blocking: bool,
    listener: socket.socket | None,
    lock_fd: int | None,
) -> tuple[list[str], dict[str, Any]]:
    """The server process's command line and ``Popen`` options (but stdin and the
    thread-dependent `thread_flags`). ``lock_fd``: the data folder's lock, if held."""
    command = [
        python,
        "-P",  # the working folder holds data, not modules: keep it off sys.path
        "-m",
        "agent_tui.server.main",
        "--config",
        str(config_path),
        "--host",
        host,
        "--port",
        str(port),
        "--jobs",
        str(jobs),
        "--parent-pid",
        str(os.getpid()),
    ]
    if listener is not None:
        command += ["--fd", str(listener.fileno())]
    inherited = [listener.fileno()] if listener is not None else []
    if lock_fd is not None and SOCKET_INHERITANCE:
        # The child keeps the lock until it has exited, whatever happens to us.
        inherited.append(lock_fd)
    if allow_blocking:
        command.append("--allow-blocking")
    options: dict[str, Any] = {
        "cwd": data_dir,
        "env": server_environment(os.environ, env),
        "stdout": subprocess.PIPE,
        "stderr": subprocess.STDOUT,
        "pass_fds": inherited,
        "start_new_session": SOCKET_INHERITANCE,
        "creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0),
    }
    return command, options


def thread_flags() -> list[str]:
    if threading.current_thread() is threading.main_thread():
        return ["--die-with-parent"]
    return []


def standby_launch(
    config_env: Mapping[str, str], command: list[str], options: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, str]]:
    """What a standby must have been started with to serve as this launch, and its
    environment; ``config_env`` is the ``env`` of the ``langgraph.json`` it will run.

    The config's ``env`` is in the standby's environment from the start, where
    ``run_server`` puts it before it imports LangGraph: some of it is read at import
    (``LANGGRAPH_DEFAULT_RECURSION_LIMIT``), so a standby only serves the same values.
    """
    env = {**options["env"], **config_env}
    key = (tuple(command), tuple(sorted(env.items())), tuple(options["pass_fds"]))
    return key, env


class ServerStandby:
    """At most one prewarmed server process (`standby`) waiting for the next launch. Its
    owner (`embedded_server.EmbeddedAgentServer`) calls it under its own lock."""

    def __init__(self) -> None:
        self._waiting: Standby[ServerProcess] | None = None

    @property
    def pid(self) -> int | None:
        waiting = self._waiting
        return waiting.pid if waiting is not None else None

    def prepare(
        self,
        command: list[str],
        options: dict[str, Any],
        config_env: Mapping[str, str],
        imports: Sequence[str] = (),
    ) -> None:
        """Start one for this launch (`launch_command`'s, for a config with this
        ``env``), unless one waits for it already; it imports ``imports`` ahead."""
        key, env = standby_launch(config_env, command, options)
        waiting = self._waiting
        if waiting is not None:
            if waiting.key == key and waiting.process.poll() is None and not waiting.loaded:
                return
            self.discard()
        command = command + thread_flags()
        self._waiting = Standby.spawn_with(
            forked.start, key, command, imports, **{**options, "env": env}
        )

    def load(self) -> None:
        """Tell the waiting one, if any, to run the project's graph files now: the code
        as it is, which the next `take` serves (or `prepare` discards)."""
        if self._waiting is not None and not self._waiting.loaded:
            self._waiting.load()

    def take(
        self, command: list[str], options: dict[str, Any], config_env: Mapping[str, str]
    ) -> ServerProcess | None:
        """The waiting one, told to go, if it was started for this launch; else None
        (and it is discarded): launch a cold one."""
        waiting, self._waiting = self._waiting, None
        if waiting is None:
            return None
        return waiting.go(standby_launch(config_env, command, options)[0])

    def discard(self) -> None:
        """Kill the waiting one, if any."""
        waiting, self._waiting = self._waiting, None
        if waiting is not None:
            waiting.discard()


def end_server(process: ServerProcess, timeout: float) -> None:
    """SIGTERM (a graceful shutdown: the runtime saves its data), wait up to ``timeout``
    seconds, then SIGKILL; and SIGKILL for what is left in its process group."""
    if process.poll() is None:
        signal_server(process, force=False)
        try:
            wait_for_exit(process, timeout)
        except subprocess.TimeoutExpired:
            signal_server(process, force=True)
            process.wait(5.0)
    # Processes the graphs started may still be in the group.
    signal_server(process, force=True)


def wait_for_exit(process: ServerProcess, timeout: float) -> None:
    """``process.wait(timeout)``, returning as soon as the process exits where the OS
    tells (a Linux pidfd): `Popen.wait` with a timeout polls, up to 50 ms late, and a
    reload waits for the old server's exit before the new one may read the data."""
    deadline = time.monotonic() + timeout
    if process.returncode is None and hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(process.pid)
        except OSError:
            pidfd = None  # reaped already, or no pidfd here: the wait below finds out
        if pidfd is not None:
            try:
                select.select([pidfd], [], [], timeout)
            finally:
                os.close(pidfd)
    process.wait(max(0.0, deadline - time.monotonic()))


def signal_server(process: ServerProcess, *, force: bool) -> None:
    try:
        if SOCKET_INHERITANCE:  # POSIX: the child leads its own process group
            os.killpg(process.pid, signal.SIGKILL if force else signal.SIGTERM)
        elif not force:
            process.terminate()
        elif process.poll() is None:
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass  # already gone
