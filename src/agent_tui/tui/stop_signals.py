"""SIGTERM, SIGHUP and SIGINT end the app as `q` does.

Python's default for SIGTERM and SIGHUP is to die at once: the terminal stays in the
alternate screen with mouse tracking on and the cursor hidden, and the embedded server,
its standby and the live-reload watcher are left to notice on their own that their
parent is gone. Textual handles neither. SIGINT (`kill -INT`: the `ctrl+c` key is a key
to the app, the terminal being in raw mode) ended it with code 0, as if the user had
quit, so a script could not tell it was stopped. Handlers on the running event loop
(`install`, from the app's ``on_load``, before the terminal is switched over) call
`App.exit` instead, so the normal shutdown runs: the screens close, the app stops what
it started (``on_unmount``) and Textual's driver restores the terminal. The return code
is the shell's for a death by that signal (128 + its number), so a script still sees
why the app ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable
from typing import Any

from textual.app import App

STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGINT") if hasattr(signal, name)
)


def signal_return_code(code: int | None) -> bool:
    """Whether ``code`` is the return code of an app a stop signal ended."""
    return code is not None and code - 128 in STOP_SIGNALS


def install(app: App[Any]) -> Callable[[], None]:
    """Make the stop signals exit ``app``; the function that takes the handlers back.

    Only the main thread's loop can receive signals (and Windows' loops cannot): the
    handlers are left out there, and the signals keep their default.
    """
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in STOP_SIGNALS:
        try:
            loop.add_signal_handler(sig, app.exit, None, 128 + sig)
        except (NotImplementedError, RuntimeError, ValueError):
            continue
        installed.append(sig)

    def remove() -> None:
        for sig in installed:
            with contextlib.suppress(RuntimeError, ValueError):
                loop.remove_signal_handler(sig)
        installed.clear()

    return remove
