"""`agent-tui control-plane serve` in a process of its own, as a user starts it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SERVE = [sys.executable, "-m", "agent_tui", "control-plane", "serve"]


def serve_environment(home: Path) -> dict[str, str]:
    env = {**os.environ, "AGENT_TUI_HOME": str(home)}
    env.pop("AGENT_TUI_CONTROL_PLANE_KEY", None)
    return env


@contextmanager
def serving_control_plane(home: Path, *args: str) -> Iterator[tuple[str, str, int]]:
    """The control plane of ``home``'s data folder, served on a free port: its URL, API
    key and process id; stopped (SIGTERM) at the end."""
    process = subprocess.Popen(
        [*SERVE, "--port", "0", *args],
        env=serve_environment(home),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        first = process.stderr.readline()  # it says where it listens, then serves
        found = re.match(
            r"local control plane on (http://127\.0\.0\.1:\d+) \(data in (.+?)\)", first
        )
        assert found, first
        key = (Path(found.group(2)) / "api-key").read_text().strip()
        yield found.group(1), key, process.pid
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)
