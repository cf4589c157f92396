"""An error nobody handled ends the app: the terminal says "details in <log>", and the
log holds the traceback (with the API key redacted), not only the terminal it was
printed on (gone with its window). Neither shows the failing code's local variables: a
key held in one would be printed (Textual's own crash output shows them), and a key in
the error's words is redacted in both."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.support.terminal import PtyApp

SECRET = "sk-test-crash-7f3a9c1e5b"
HELD = "sk-test-held-in-a-local-2d8e"
# No real answer makes a screen raise: the server's info screen is made to.
PRELUDE = f"""
from agent_tui.tui.screens.server_info import ServerInfoScreen

def compose(self):
    held = "{HELD}"  # a key held in a local, as a client's code holds one
    raise RuntimeError("forced failure with the key {SECRET} in its words")
    yield

ServerInfoScreen.compose = compose
"""


@pytest.mark.timeout(120)
def test_a_crash_writes_its_traceback_to_the_log_the_terminal_points_to(
    tmp_path: Path, agent_server_url: str
) -> None:
    env = {**os.environ, "AGENT_TUI_HOME": str(tmp_path / "home")}
    app = PtyApp(tmp_path, "--url", agent_server_url, "--api-key", SECRET, env=env, prelude=PRELUDE)
    try:
        assert app.process.wait(90) == 1
        app.close()
        output = app.text
    finally:
        app.close()
    found = re.search(r"agent-tui: details in (\S+)", output)
    assert found, output[-2000:]
    log = Path(found.group(1)).read_text(encoding="utf-8")
    assert "agent-tui stopped on an unexpected error" in log
    assert "Traceback (most recent call last)" in log
    assert "RuntimeError: forced failure with the key" in log
    assert SECRET not in log and HELD not in log
    # The terminal given back: the traceback, without locals and with the key redacted.
    assert "RuntimeError: forced failure with the key *** in its words" in output, output[-4000:]
    assert HELD not in output and SECRET not in output
