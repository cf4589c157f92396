"""Server processes a test fixture starts (PostgreSQL, Redis, Aegra) and how they end.

Each `Service` runs in a session of its own, so its process group holds whatever it
starts (PostgreSQL's backends, the uvicorn that ``aegra serve`` runs) and a stop ends it
all. Its output goes to a log file, whose tail a start failure quotes.

A `Watchdog` makes sure they die with the test process, even when pytest itself is
killed (SIGKILL, a crash): a small Python process, in its own session, reads the process
group ids of the services from a pipe whose only write end the test process holds. At
end-of-file (the test process is gone, or closed it after stopping everything) it kills
every group it was told about.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from tests.support.processes import gone_within

_WATCHDOG = """
import os, signal, sys
groups = []
for line in sys.stdin:
    groups.append(int(line))
for group in groups:
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass
"""


class ServiceStartError(RuntimeError):
    """A service did not start; the message ends with the tail of its log."""


class Watchdog:
    """Kills the process groups it is told about once the test process stops or closes it."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-c", _WATCHDOG],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C to pytest's group must not kill it first
            text=True,
        )

    def watch(self, group: int) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(f"{group}\n")
        self._process.stdin.flush()

    def close(self) -> None:
        if self._process.stdin is not None and not self._process.stdin.closed:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


class Service:
    """One server process: started in its own session, logged to ``log``."""

    def __init__(
        self,
        name: str,
        command: Sequence[str],
        *,
        log: Path,
        watchdog: Watchdog,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        user: str | None = None,
        stop_signal: signal.Signals = signal.SIGTERM,
        lifeline: bool = False,
    ) -> None:
        """``lifeline``: stdin is a pipe held open while the process runs (agent-tui's
        server exits when its stdin ends, as when agent-tui is gone)."""
        self.name = name
        self._lifeline = lifeline
        self.command = list(command)
        self.log = log
        self._watchdog = watchdog
        self._env = dict(env) if env is not None else None
        self._cwd = cwd
        self._user = user
        self._stop_signal = stop_signal
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        with self.log.open("ab") as output:
            self._process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE if self._lifeline else subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                env=self._env,
                cwd=self._cwd,
                user=self._user,
                group=self._user,
                extra_groups=[] if self._user else None,
                start_new_session=True,
            )
        self._watchdog.watch(self._process.pid)

    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def wait_until(self, ready: Callable[[], bool], timeout: float, what: str) -> None:
        """Poll ``ready()`` until it holds; fail at once if the process exits, or at ``timeout``."""
        deadline = time.monotonic() + timeout
        while not ready():
            if not self.running():
                raise self.start_error(f"{self.name} exited before {what}")
            if time.monotonic() > deadline:
                raise self.start_error(f"{self.name}: no {what} after {timeout:.0f} s")
            # Another process starting up: nothing to wait on but the clock.
            time.sleep(0.2)

    def start_error(self, message: str) -> ServiceStartError:
        return ServiceStartError(f"{message}; last lines of {self.log}:\n{self.log_tail()}")

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, timeout: float = 15.0) -> None:
        """Ask the whole group to stop; kill it after ``timeout`` seconds."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, self._stop_signal)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=timeout)
        if not gone_within([process.pid], 0, groups=True):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            gone_within([process.pid], timeout, groups=True)
