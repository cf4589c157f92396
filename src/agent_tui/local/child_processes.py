"""Children that run in a process group of their own, and how to end them with it.

The graph check and uv run in a new session (on POSIX), so their process group holds
everything they start (a build backend, a process a graph starts while importing) and a
kill of the group ends it all: nothing is left running when a reload or a build stops.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable

NEW_SESSION = os.name == "posix"
"""Pass as ``start_new_session``: the child leads a process group `kill_group` can end."""


def kill_group(pid: int, kill_process: Callable[[], None]) -> None:
    """Kill the child ``pid`` and whatever it started (its process group, on POSIX)."""
    if NEW_SESSION:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        kill_process()
