"""What the screenshot scripts share: waiting for a screen to be ready, the home screen
(a key pressed on the start-up screen is lost), stable ports, and PNGs from the SVGs."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot


async def until(pilot: Pilot[None], condition: Callable[[], bool], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the screen did not get ready")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.05)


async def info_screen(pilot: Pilot[None]) -> None:
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "ServerInfoScreen")


def stable_ports(text: str, agent_server_url: str) -> str:
    """Ports change run to run; the pictures should not: the agent server shows as 2024,
    other local servers (control plane, deployments) as 8123, 8124… in order of appearance."""
    text = text.replace(agent_server_url, "http://127.0.0.1:2024")
    stable: dict[str, str] = {}

    def replace(match: re.Match[str]) -> str:
        url = match.group(0)
        if url.endswith(":2024"):
            return url
        return stable.setdefault(url, f"http://127.0.0.1:{8123 + len(stable)}")

    return re.sub(r"http://127\.0\.0\.1:\d+", replace, text)


def to_png(svg: Path, size: tuple[int, int]) -> None:
    """`svg` as a PNG beside it, when Chromium is installed."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return
    width, height = size[0] * 9 + 40, size[1] * 20 + 80
    subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tempfile.mkdtemp()}",
            f"--screenshot={svg.with_suffix('.png')}",
            f"--window-size={width},{height}",
            svg.as_uri(),
        ],
        check=False,
        capture_output=True,
        timeout=60,
    )
