"""Why the embedded agent server is not there: it could not start, or another process's
server owns its data folder (`lock`)."""

from __future__ import annotations

import signal
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from agent_tui.local.supervisor.lock import RunningServer


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

    def __init__(
        self, reason: str, log_lines: Sequence[str] = (), *, said: str | None = None
    ) -> None:
        super().__init__(reason, log_lines)
        self.said = said
        """Why, in the server's own words (`server_said`), when it said."""


OWN_WORDS = "agent-tui: "
"""How the server process starts a line that says why it stops before serving (a
langgraph-api release it does not run on, a bad ``langgraph.json``, a busy port)."""


def exited_before_ready(
    code: int, config: Path, log_file: Path, log_lines: Sequence[str]
) -> ServerExited:
    """The server exited with ``code`` before it answered: its own words first when it
    said why (an unsupported langgraph-api release), then how it ended."""
    exited = (
        f"the agent server exited with code {code} before it was ready "
        f"(config {config}; full log in {log_file})"
    )
    said = server_said(log_lines)
    return ServerExited(f"{said}\n{exited}" if said else exited, log_lines, said=said)


def server_said(lines: Sequence[str]) -> str | None:
    """The last of ``lines`` in which the server said why it stops, without `OWN_WORDS`."""
    for line in reversed(lines):
        if line.startswith(OWN_WORDS):
            return line.removeprefix(OWN_WORDS).strip() or None
    return None


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
