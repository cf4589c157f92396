"""SIGTERM, SIGHUP and SIGINT to the app: the terminal is given back as it was, and nothing the
app started runs on.

The app runs in a real pseudo-terminal on a project (so it starts its embedded server,
the server's live reload and their helpers); the test reads every byte the app writes.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests.support.processes import gone_within
from tests.support.projects import tiny_config
from tests.support.terminal import PtyApp

ALTERNATE_SCREEN_ON, ALTERNATE_SCREEN_OFF = b"\x1b[?1049h", b"\x1b[?1049l"
MOUSE_ON, MOUSE_OFF = b"\x1b[?1000h", b"\x1b[?1000l"
CURSOR_HIDDEN, CURSOR_SHOWN = b"\x1b[?25l", b"\x1b[?25h"


def _left_on(output: bytes, on: bytes, off: bytes) -> bool:
    """Whether the terminal is left with ``on`` in force (its last word is not ``off``)."""
    return output.rfind(on) > output.rfind(off)


@pytest.mark.timeout(180)
@pytest.mark.parametrize(
    "stop_signal",
    [signal.SIGTERM, signal.SIGHUP, signal.SIGINT],
    ids=["SIGTERM", "SIGHUP", "SIGINT"],
)
def test_a_stop_signal_restores_the_terminal_and_stops_the_local_server(
    tmp_path: Path, stop_signal: signal.Signals
) -> None:
    config = tiny_config(tmp_path)
    app = PtyApp(tmp_path, env={**os.environ, "AGENT_TUI_HOME": str(tmp_path / "home")})
    try:
        server = app.wait_for_descendant("agent_tui.server.main", timeout=90)
        app.wait_for_output(
            lambda out: ALTERNATE_SCREEN_ON in out and MOUSE_ON in out and b"tiny" in out,
            timeout=90,
            what="the app's screen with the project's graph",
        )
        # With live reload, a graph check and a server wait, prewarmed, for the next edit.
        app.wait_for_descendant("--standby", timeout=90)
        started = app.descendants()
        assert server in started
        sent = time.monotonic()
        app.process.send_signal(stop_signal)
        code = app.process.wait(30)
        assert time.monotonic() - sent < 15, "the app took long to stop"
        assert code == 128 + stop_signal  # as a shell reports a death by the signal
        assert gone_within(started, 30), f"left running: {app.descendants()}"
        app.close()  # reads what was written up to the end
        output = app.output
        assert not _left_on(output, ALTERNATE_SCREEN_ON, ALTERNATE_SCREEN_OFF)
        assert not _left_on(output, MOUSE_ON, MOUSE_OFF)
        assert not _left_on(output, CURSOR_HIDDEN, CURSOR_SHOWN)
        assert b"Traceback" not in output
    finally:
        app.close()
    assert config.exists()


@pytest.mark.timeout(180)
def test_a_closed_terminal_stops_the_app_and_the_local_server(tmp_path: Path) -> None:
    # The terminal window is closed: the app gets SIGHUP and can no longer write to it.
    tiny_config(tmp_path)
    app = PtyApp(tmp_path, env={**os.environ, "AGENT_TUI_HOME": str(tmp_path / "home")})
    try:
        app.wait_for_descendant("agent_tui.server.main", timeout=90)
        app.wait_for_output(lambda out: b"tiny" in out, timeout=90, what="the project's graph")
        app.wait_for_descendant("--standby", timeout=90)
        started = app.descendants()
        app.hang_up()
        app.process.send_signal(signal.SIGHUP)
        assert app.process.wait(30) == 128 + signal.SIGHUP
        assert gone_within(started, 30), f"left running: {app.descendants()}"
    finally:
        app.close()
