"""Why the embedded agent server is not there: it could not start, or another process's
server owns its data folder (`server_lock`)."""

from __future__ import annotations

import signal
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent_tui.local.disk_problem import DISK_PROBLEM

if TYPE_CHECKING:
    from pathlib import Path

    from agent_tui.local.server_lock import RunningServer


class EmbeddedServerError(RuntimeError):
    """The embedded server could not start or stopped early; ``log_lines`` tell why."""

    def __init__(self, reason: str, log_lines: Sequence[str] = ()) -> None:
        self.reason = reason
        self.log_lines = list(log_lines)
        message = reason
        if self.log_lines:
            message += "\n--- last server log lines ---\n" + "\n".join(self.log_lines)
        super().__init__(message)


class ServerExited(EmbeddedServerError):
    """The server process exited before it answered (a graph that does not import, a bad
    option): the project, not the machine, is usually at fault."""


class ServerAlreadyRunning(EmbeddedServerError):
    """Another process's server owns the data folder; connect to ``running`` instead."""

    def __init__(self, running: RunningServer, config_path: Path) -> None:
        self.running = running
        where = f"runs at {running.url}" if running.url else "is starting"
        super().__init__(
            f"a local agent server for {config_path} already {where} (pid {running.pid})"
        )


def ended_how(code: int) -> str:
    """A process's end from its exit status: "exited with code 1", "was killed by SIGKILL"."""
    if code >= 0:
        return f"exited with code {code}"
    try:
        return f"was killed by {signal.Signals(-code).name}"
    except ValueError:
        return f"was killed by signal {-code}"


def why_it_exited(code: int, lines: Sequence[str]) -> str:
    """ "exited with code 1", or what the server said on its way out when it could not
    write its data ("cannot save the server's data in …: No space left on device; free
    some space, then start it again"): the advice a user needs, not an exit code."""
    said = next((line for line in reversed(lines) if DISK_PROBLEM in line), None)
    if said is None:
        return ended_how(code)
    return said[said.index(DISK_PROBLEM) + len("agent-tui: ") :]
