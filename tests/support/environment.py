"""The process's environment put back after each test (the autouse fixture in
tests/conftest.py).

The suite runs the CLI's `main` in its workers (`tests/support/cli.py`), and `main` may
set variables for its process (`--no-traces` sets ``AGENT_TUI_TRACES=0``); a test may
set one too. Left in place, such a variable changes every later test of the worker:
once an `export` turned tracing off for every server started after it, and a serve test
of another file failed. Put back here, a leak cannot reach another test.
"""

from __future__ import annotations

import contextlib
import os
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
