"""agent-tui.log: what a server said is kept, but `tail` of the log cannot replay escapes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.hostile_text import EVERYTHING, HOSTILE, MARKER, terminal_controls


def test_server_error_bodies_are_logged_written_out(agent_server_url: str, tmp_path: Path) -> None:
    # In a subprocess: setup_logging replaces the root handlers, pytest's included. The
    # server's 404 quotes the graph id it was sent; the app logs such errors with its
    # own words and, for a worker that failed, the traceback.
    code = f"""
import asyncio, logging
from agent_tui.client import AgentServerClient, ApiError
from agent_tui.settings.logs import setup_logging

path = setup_logging()
log = logging.getLogger("agent_tui.tui.app")

async def main():
    async with AgentServerClient({agent_server_url!r}) as client:
        try:
            await client.assistants.create({EVERYTHING!r})
        except ApiError as error:
            log.warning("%s: %s", "Could not create the assistant", error)
            log.error("worker group %r failed", "assistants", exc_info=error)
        else:
            raise SystemExit("the server took a graph it does not have")

asyncio.run(main())
print(path)
"""
    env = {**os.environ, "AGENT_TUI_HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert result.stderr == ""
    text = Path(result.stdout.strip()).read_text(encoding="utf-8")
    assert "Graph 'hostile" in text and "NotFound" in text  # both lines were written
    assert terminal_controls(text) == []
    # Written out, not dropped: the log still says exactly what the server sent.
    assert "\\x1b]0;pwned\\x07" in text
    assert "\\u202eevil\\u202c" in text
    assert HOSTILE["textual-markup"] in text and MARKER in text
