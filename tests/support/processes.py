"""Whether a process or a port is still in use, for tests that start real servers."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agent_tui.local.supervisor import forked


def process_gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (an unreaped zombie has closed its files: gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return False


def gone_within(pids: list[int], timeout: float, *, groups: bool = False) -> bool:
    """True once every one of ``pids`` has stopped running (with ``groups``, and every
    process in the groups they led has been reaped), within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not all(process_gone(pid) and (not groups or group_gone(pid)) for pid in pids):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)  # another process's exit: nothing to wait on
    return True


def port_closed(port: int) -> bool:
    """True when nothing accepts connections on ``port`` of 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def pids_running(*texts: str) -> list[int]:
    """The processes whose command line holds every one of ``texts``."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if all(text in command for text in texts):
            found.append(int(proc.name))
    return found


def group_gone(pid: int) -> bool:
    """True when no process is left in the process group ``pid`` led."""
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return True
    return False


@contextmanager
def servers_forked(on: bool) -> Iterator[None]:
    """Inside, this process's agent servers and their standbys are forked (or started as
    the app starts them) whatever `tests/conftest.py` chose; as before afterwards."""
    was = forked.forking()
    forked.fork_servers(on)
    try:
        yield
    finally:
        forked.fork_servers(was)
