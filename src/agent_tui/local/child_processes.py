"""The children agent-tui starts (the server, the graph check, uv): what they print, made
plain text, and how to end them with all they started.

Their output is shown on screen and written to logs (`clean_line`): it must not act on
the terminal. The graph check and uv run in a new session (on POSIX), so their process
group holds everything they start (a build backend, a process a graph starts while
importing) and a kill of the group ends it all: nothing is left running when a reload or
a build stops.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
from collections.abc import Callable

# ESC sequences (CSI, OSC, other two-byte escapes) and C0/C1 controls other than tab:
# a child's output is shown on screen, and must not act on the terminal.
_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI ... final byte
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL or ST
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC ... ST
    r"|\x1b[@-Z\\-_]?"  # other escapes, or a lone ESC
    r"|[\x00-\x08\x0a-\x1f\x7f-\x9f]"
    r"|[\u202a-\u202e\u2066-\u2069]"  # bidi overrides: they reorder what follows
)


def clean_line(raw: bytes) -> str:
    """One output line as plain, printable text."""
    return _CONTROL.sub("", raw.decode("utf-8", errors="replace").rstrip("\r\n"))


NEW_SESSION = os.name == "posix"
"""Pass as ``start_new_session``: the child leads a process group `kill_group` can end."""


def kill_group(pid: int, kill_process: Callable[[], None]) -> None:
    """Kill the child ``pid`` and whatever it started (its process group, on POSIX)."""
    if NEW_SESSION:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        kill_process()
