"""The embedded server's output: the recent lines in memory, all of them in a log file.

Nothing goes to our own stdout or stderr, which belong to the TUI; a headless caller
(``agent-tui serve``) may copy the lines there through ``on_line``.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import IO

from agent_tui.local.child_processes import clean_line

MAX_LOG_FILE_BYTES = 5_000_000

LineListener = Callable[[str], None]


class ServerLog:
    """Collects the server's output lines from a reader thread."""

    def __init__(
        self, log_file: Path, *, keep: int = 500, on_line: LineListener | None = None
    ) -> None:
        """``on_line`` gets each cleaned line as it arrives, from the reader thread."""
        self.log_file = log_file
        self._on_line = on_line
        self._lines: deque[str] = deque(maxlen=keep)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def lines(self, last: int | None = None) -> list[str]:
        with self._lock:
            lines = list(self._lines)
        return lines if last is None else lines[-last:] if last > 0 else []

    def follow(self, stream: IO[bytes]) -> None:
        """Start reading ``stream`` (the server's stdout and stderr) until it closes."""
        self._thread = threading.Thread(
            target=self._read,
            args=(stream, _open_log(self.log_file)),
            name="agent-server-log",
            daemon=True,
        )
        self._thread.start()

    def join(self, timeout: float) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _read(self, stream: IO[bytes], log: IO[str] | None) -> None:
        # Keep reading even without a log file: a full pipe would block the server.
        with stream:
            for raw in stream:
                line = clean_line(raw)
                with self._lock:
                    self._lines.append(line)
                if log is not None:
                    log.write(line + "\n")
                if self._on_line is not None:
                    try:
                        self._on_line(line)
                    except Exception:  # reading must go on, or the pipe fills and blocks it
                        self._on_line = None
        if log is not None:
            log.close()


def _open_log(log_file: Path) -> IO[str] | None:
    try:
        log_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # One previous generation is enough to see why the last session failed.
        if log_file.exists() and log_file.stat().st_size > MAX_LOG_FILE_BYTES:
            log_file.replace(log_file.with_name(log_file.name + ".1"))
        fd = os.open(log_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        return os.fdopen(fd, "a", encoding="utf-8", buffering=1)
    except OSError:
        return None
