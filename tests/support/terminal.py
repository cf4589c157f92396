"""agent-tui in a real pseudo-terminal, as a user runs it: the bytes it writes, its
children, its end."""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

# CSI (with private modes), OSC (ended by BEL or ST) and two-character escapes.
_SEQUENCE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-_])")


class PtyApp:
    """``python -m agent_tui ARGV`` on a pseudo-terminal of ``columns`` x ``rows``.

    ``prelude``: Python run first in the app's process, for a fault no real input makes
    (e.g. a screen made to raise)."""

    def __init__(
        self,
        cwd: Path,
        *argv: str,
        env: Mapping[str, str],
        columns: int = 120,
        rows: int = 40,
        prelude: str = "",
    ) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self._master = master
        run = f"import runpy, sys\nsys.argv[1:] = {list(argv)!r}\n"
        run += "runpy.run_module('agent_tui', run_name='__main__', alter_sys=True)"
        command = ["-c", f"{prelude}\n{run}"] if prelude else ["-m", "agent_tui", *argv]
        self.process = subprocess.Popen(
            [sys.executable, *command],
            cwd=cwd,
            env={**env, "TERM": "xterm-256color", "COLUMNS": str(columns), "LINES": str(rows)},
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,  # the terminal's session, as a shell starts it
        )
        os.close(slave)
        self._output = bytearray()
        self._changed = threading.Condition()
        self._hanging_up = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @property
    def output(self) -> bytes:
        with self._changed:
            return bytes(self._output)

    @property
    def text(self) -> str:
        """What the output reads as: its escape sequences (styles, cursor moves, modes)
        taken out."""
        return _SEQUENCE.sub("", self.output.decode(errors="replace"))

    def wait_for_output(self, found: Callable[[bytes], bool], timeout: float, what: str) -> None:
        with self._changed:
            seen = self._changed.wait_for(lambda: found(bytes(self._output)), timeout)
        assert seen, f"{what} not written within {timeout} s:\n{self.output[-2000:]!r}"

    def descendants(self) -> list[int]:
        """The processes the app started (and theirs), still running."""
        parents: dict[int, int] = {}
        for proc in Path("/proc").glob("[0-9]*"):
            try:
                stat = (proc / "stat").read_text()
            except OSError:
                continue
            parents[int(proc.name)] = int(stat.rsplit(")", 1)[1].split()[1])
        found: list[int] = []
        frontier = [self.process.pid]
        while frontier:
            parent = frontier.pop()
            children = [pid for pid, ppid in parents.items() if ppid == parent]
            found += children
            frontier += children
        return found

    def wait_for_descendant(self, text: str, timeout: float) -> int:
        """The pid of a process the app started whose command line holds ``text``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for pid in self.descendants():
                try:
                    command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
                except OSError:
                    continue
                if text.encode() in command:
                    return pid
            time.sleep(0.05)  # another process's start: nothing to wait on
        raise AssertionError(f"no child running {text} after {timeout} s:\n{self.output[-2000:]!r}")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self._reader.join(10)  # reads to the end: EIO once nothing holds the terminal
        self._hanging_up.set()
        self._reader.join(10)
        if self._master >= 0:
            os.close(self._master)
            self._master = -1

    def hang_up(self) -> None:
        """Close the terminal, as a closed terminal window does (the app's writes fail from
        then on); the test sends the SIGHUP that comes with it."""
        self._hanging_up.set()
        self._reader.join(10)
        os.close(self._master)
        self._master = -1

    def _read(self) -> None:
        while not self._hanging_up.is_set():
            if not select.select([self._master], [], [], 0.1)[0]:
                continue  # nothing yet: look whether the terminal is being closed
            try:
                chunk = os.read(self._master, 65536)
            except OSError:  # EIO: every end of the terminal's other side is closed
                chunk = b""
            if not chunk:
                break
            with self._changed:
                self._output += chunk
                self._changed.notify_all()
