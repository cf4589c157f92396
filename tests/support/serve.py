"""`agent-tui serve` as a real process, as a user starts it in a terminal."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path

START_TIMEOUT = 90.0


class Serve:
    """A running `agent-tui serve`: its stdout lines in a queue, its stderr collected."""

    def __init__(
        self,
        home: Path,
        cwd: Path,
        *argv: str,
        env: Mapping[str, str] | None = None,
        python: Path | str = sys.executable,
    ) -> None:
        """``env``: the environment (default: this one), with ``AGENT_TUI_HOME`` ``home``;
        ``python``: the interpreter agent-tui runs on (another environment's:
        `tests.support.api_envs`)."""
        self.process = subprocess.Popen(
            [str(python), "-m", "agent_tui", "serve", *argv],
            cwd=cwd,
            env={**(os.environ if env is None else env), "AGENT_TUI_HOME": str(home)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.stdout: queue.Queue[str | None] = queue.Queue()
        self._stderr: list[str] = []
        self._changed = threading.Condition()
        assert self.process.stdout is not None and self.process.stderr is not None
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def url(self) -> str:
        line = self.stdout.get(timeout=START_TIMEOUT)
        assert line is not None, f"serve exited without a URL:\n{self.stderr}"
        return line.rstrip("\n")

    @property
    def stderr(self) -> str:
        with self._changed:
            return "".join(self._stderr)

    def wait_for_stderr(self, text: str, timeout: float = 30) -> None:
        with self._changed:
            found = self._changed.wait_for(lambda: text in "".join(self._stderr), timeout)
        assert found, f"{text!r} not on stderr:\n{self.stderr}"

    def stop(self, sig: signal.Signals = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(30)

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.stdout.put(line)
        self.stdout.put(None)

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self._changed:
                self._stderr.append(line)
                self._changed.notify_all()
