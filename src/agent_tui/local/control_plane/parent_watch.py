"""Build children that never outlive the control plane that started them.

The deployer (`build_children`) starts ``build_check`` and ``environment_build`` with
``--die-with-parent``, in a new session (so their process group holds everything they
start: uv, its build backends, processes a graph starts while importing) and with a pipe
as stdin whose write end only the control plane holds. `die_with_parent` then kills the whole group when:

- stdin reaches end-of-file: the control plane is gone, however it ended (even SIGKILL:
  the kernel closes its end of the pipe);
- on Linux, ``PR_SET_PDEATHSIG`` delivers SIGTERM when the thread that started the child
  ends (the control plane's event loop thread: the control plane has stopped).

Standard library only: ``build_check`` runs with the project's interpreter.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
from types import FrameType

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> None:
    """Kill this process and its group once the parent (``parent_pid``) is gone."""
    threading.Thread(target=_watch_stdin, name="parent-watchdog", daemon=True).start()
    if sys.platform.startswith("linux"):
        signal.signal(signal.SIGTERM, _on_sigterm)
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    # The parent may have died before the watch began.
    if os.getppid() != parent_pid:
        kill_own_group()


def kill_own_group() -> None:
    """SIGKILL for this process and everything in its process group (when it leads one)."""
    if hasattr(os, "killpg") and os.getpgrp() == os.getpid():
        os.killpg(os.getpgrp(), signal.SIGKILL)
    os._exit(1)


def _watch_stdin() -> None:
    # The file descriptor, not sys.stdin: a daemon thread blocked inside sys.stdin's
    # buffered reader holds its lock, and the interpreter aborts at exit (SIGABRT) when
    # it cannot take that lock.
    try:
        while os.read(0, 65536):
            pass  # nothing is ever sent: reading only waits for end-of-file
    except OSError:
        pass
    kill_own_group()


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    kill_own_group()
