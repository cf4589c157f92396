"""Time to first screen: `agent-tui --url URL`, from process start to first paint.

    uv run python benchmarks/first_screen.py [--runs 7] [--url URL]

Without `--url` it starts the real embedded agent server on the bundled demo graphs
(once, before timing). Then, each run, it starts `python -m agent_tui --url URL` in a
pseudo-terminal (100x30) and reads what the app writes to the terminal:

- first paint: the first frame with the app's title in it (the start-up screen);
- info screen ready: the server info screen with its graph table filled (a graph id
  appears after the table's column header) — i.e. connected, `GET /info` and the
  assistants search answered, and painted.

Then it presses ctrl+q and waits for the process to exit. For scale it also times a bare
`python -c pass`, `agent-tui --version` (no Textual import) and `import textual`.
AGENT_TUI_HOME points at a temporary folder, so no user config or theme is read.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

TITLE = b"agent-tui"
TABLE_HEADER = b"Default assistant"
GRAPH_IDS = (b"chat", b"counter")


def _ready(screen_bytes: bytes) -> bool:
    header = screen_bytes.find(TABLE_HEADER)
    return header >= 0 and any(screen_bytes.find(g, header) >= 0 for g in GRAPH_IDS)


def run_once(url: str, env: dict[str, str], timeout: float = 60.0) -> tuple[float, float]:
    """(seconds to first paint, seconds to the info screen ready) for one app start."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_tui", "--url", url],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    seen = bytearray()
    first_paint = ready = None
    try:
        while time.perf_counter() - started < timeout:
            readable, _, _ = select.select([master], [], [], 0.05)
            if not readable:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:
                break
            now = time.perf_counter() - started
            seen += chunk
            if first_paint is None and TITLE in seen:
                first_paint = now
            if first_paint is not None and _ready(bytes(seen)):
                ready = now
                break
        os.write(master, b"\x11")  # ctrl+q
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=10)
    finally:
        os.close(master)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    if first_paint is None or ready is None:
        tail = bytes(seen[-400:]).decode("utf-8", "replace")
        raise RuntimeError(f"the app did not show its screens within {timeout}s: {tail!r}")
    return first_paint, ready


def time_command(args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def summary(label: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (
        f"  {label:<34} {min(ms):8.0f} {statistics.median(ms):8.0f} {max(ms):8.0f}"
        f"   ({len(ms)} runs)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--url", help="an agent server to connect to (default: start one)")
    args = parser.parse_args()

    home = tempfile.mkdtemp(prefix="agent-tui-bench-")
    env = {**os.environ, "AGENT_TUI_HOME": home, "TERM": "xterm-256color"}
    env.pop("LANGSMITH_API_KEY", None)
    server = None
    url = args.url
    if url is None:
        from agent_tui.local import DEMO_CONFIG, EmbeddedAgentServer

        server = EmbeddedAgentServer(DEMO_CONFIG, data_dir=Path(home) / "server")
        server.start()
        server.wait_until_ready()
        url = server.url
        print(f"embedded agent server (demo graphs) ready at {url}")
    try:
        run_once(url, env)  # warm the OS file cache and the server
        paints, readies = [], []
        for _ in range(args.runs):
            paint, ready = run_once(url, env)
            paints.append(paint)
            readies.append(ready)
        bare = [time_command([sys.executable, "-c", "pass"], env) for _ in range(args.runs)]
        version = [
            time_command([sys.executable, "-m", "agent_tui", "--version"], env)
            for _ in range(args.runs)
        ]
        textual = [
            time_command([sys.executable, "-c", "import textual.app"], env)
            for _ in range(args.runs)
        ]
    finally:
        if server is not None:
            server.stop()
    print(f"\nagent-tui --url {url}: process start to … (ms)")
    print(f"  {'':<34} {'best':>8} {'median':>8} {'worst':>8}")
    print(summary("first paint (start-up screen)", paints))
    print(summary("info screen ready (graphs shown)", readies))
    print("for scale:")
    print(summary("python -c pass", bare))
    print(summary("agent-tui --version", version))
    print(summary("python -c 'import textual.app'", textual))


if __name__ == "__main__":
    main()
