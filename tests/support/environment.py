"""The process's environment, and its stop signals' dispositions, put back after each
test (the autouse fixtures in tests/conftest.py).

The suite runs the CLI's `main` in its workers (`tests/support/cli.py`), and `main` may
set variables for its process (`--no-traces` sets ``AGENT_TUI_TRACES=0``); a test may
set one too. Left in place, such a variable changes every later test of the worker:
once an `export` turned tracing off for every server started after it, and a serve test
of another file failed. Put back here, a leak cannot reach another test.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator


@contextlib.contextmanager
def environment_restored() -> Iterator[None]:
    """``os.environ`` as it was when the block began, once it ends."""
    saved = dict(os.environ)
    try:
        yield
    finally:
        if os.environ != saved:
            for name in set(os.environ) - set(saved):
                del os.environ[name]
            for name, value in saved.items():
                if os.environ.get(name) != value:
                    os.environ[name] = value


STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def signals_restored() -> list[str]:
    """Put back the stop signals' dispositions a process inherits: what is ignored or
    blocked in the worker is ignored or blocked in every process it starts after (a
    follower that ctrl+c could not stop). What was found changed, said."""
    changed = []
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) == signal.SIG_IGN:
            default = signal.default_int_handler if sig == signal.SIGINT else signal.SIG_DFL
            signal.signal(sig, default)
            changed.append(f"{sig.name} ignored")
    if hasattr(signal, "pthread_sigmask"):
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, []) & set(STOP_SIGNALS)
        if blocked:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, blocked)
            changed += [f"{signal.Signals(sig).name} blocked" for sig in sorted(blocked)]
    return changed
