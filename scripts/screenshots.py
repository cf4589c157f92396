"""Regenerate `screenshots/*.svg` (and `.png` when Chromium is installed) from the real app.

Runs the app headless against an embedded agent server with the demo graphs, in a
throwaway AGENT_TUI_HOME, with a little demo data, and saves one picture per screen.

    uv run python scripts/screenshots.py
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "screenshots"
SIZE = (140, 40)

os.environ["AGENT_TUI_HOME"] = tempfile.mkdtemp(prefix="agent-tui-shots-")

from textual.pilot import Pilot  # noqa: E402

from agent_tui.app import AgentTuiApp  # noqa: E402
from agent_tui.client import AgentServerClient  # noqa: E402
from agent_tui.local import DEMO_CONFIG, EmbeddedAgentServer  # noqa: E402
from agent_tui.target import RemoteServer  # noqa: E402

Shot = Callable[[Pilot[None]], Awaitable[None]]


async def until(pilot: Pilot[None], condition: Callable[[], bool], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the screen did not get ready")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.05)


async def seed(url: str) -> None:
    """A few threads so the screens have something to show."""
    async with AgentServerClient(url) as client:
        for text in ("hello there", "weather in Paris", "deploy to staging", "please fail"):
            thread = await client.threads.create(metadata={"graph_id": "chat"})
            async with client.runs.stream(
                thread.thread_id,
                "chat",
                input={"messages": [{"role": "user", "content": text}]},
                context={"token_delay_ms": 0},
            ) as run:
                async for _event in run:
                    pass


async def info_screen(pilot: Pilot[None]) -> None:
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "ServerInfoScreen")


SHOTS: dict[str, Shot] = {
    "server-info": info_screen,
}


def to_png(svg: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return
    width, height = SIZE[0] * 9 + 40, SIZE[1] * 20 + 80
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


async def main(names: list[str]) -> None:
    OUT.mkdir(exist_ok=True)
    data = Path(os.environ["AGENT_TUI_HOME"]) / "server"
    async with EmbeddedAgentServer(DEMO_CONFIG, data_dir=data) as server:
        await seed(server.url)
        for name, shot in SHOTS.items():
            if names and name not in names:
                continue
            app = AgentTuiApp(RemoteServer(server.url))
            async with app.run_test(size=SIZE) as pilot:
                await shot(pilot)
                await pilot.pause()
                svg = OUT / f"{name}.svg"
                # The port changes run to run; the picture should not.
                text = app.export_screenshot(title=f"agent-tui — {name}")
                svg.write_text(text.replace(server.url, "http://127.0.0.1:2024"))
            to_png(svg)
            print(f"wrote {svg.relative_to(ROOT)}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
