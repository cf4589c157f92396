"""agent-tui's long-lived children (the agent server, `agent_tui.server.main`; the trace
collector, `local.trace_collector.child`) never outlive it: end-of-file on stdin, or
(Linux) the parent-death signal, shuts them down. The parent holds the write end of the
child's stdin, so even its ``kill -9`` closes it."""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading

_PR_SET_PDEATHSIG = 1


def exit_when_parent_goes(grace: float) -> None:
    """Run on a thread: returns when stdin ends, having asked the process to stop (SIGTERM:
    uvicorn shuts down cleanly), with a hard exit ``grace`` seconds later."""
    # The raw descriptor, not `sys.stdin.buffer`: a read blocked in the buffered reader
    # holds its lock, and when the server stops (or fails to start) while we wait, the
    # interpreter's shutdown cannot take that lock and aborts ("Fatal Python error:
    # _enter_buffered_busy", exit code -6).
    try:
        while os.read(0, 65536):
            pass  # Nothing (more) is sent; reading only waits for end-of-file.
    except OSError:
        pass
    # Nobody reads our output any more: writing to the dead pipe would only raise.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    request_shutdown()
    # A daemon timer: it must not keep a cleanly stopped process alive until it fires.
    deadline = threading.Timer(grace, os._exit, args=(1,))
    deadline.daemon = True
    deadline.start()


def request_shutdown() -> None:
    # SIGTERM lets uvicorn shut down cleanly. We lead our own process group, so this also
    # reaches processes the graphs started.
    if hasattr(os, "killpg") and os.getpgrp() == os.getpid():
        os.killpg(os.getpgrp(), signal.SIGTERM)
    else:
        os.kill(os.getpid(), signal.SIGTERM)


def set_parent_death_signal(parent_pid: int) -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        return
    # The parent may have died before the signal was armed.
    if os.getppid() != parent_pid:
        request_shutdown()
