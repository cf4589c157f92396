"""Time to first screen: `agent-tui --url URL`, from process start to first paint.

    uv run python benchmarks/first_screen.py [--runs 7] [--url URL]
    uv run python benchmarks/first_screen.py --quick   # 3 rounds, 1 run of each for scale
    uv run python benchmarks/first_screen.py --against ../main/.venv/bin/python

Without `--url` it starts the real embedded agent server on the bundled demo graphs
(once, before timing). Then, each run, it starts `python -m agent_tui --url URL` in a
pseudo-terminal (100x30) and reads what the app writes to the terminal:

- first paint: the first frame with the app's title in it (the start-up screen);
- info screen ready: the server info screen with its graph table filled (a graph id
  appears after the table's column header) — i.e. connected, `GET /info` and the
  assistants search answered, and painted.

With `--local` it times `agent-tui` alone instead, which starts its own embedded server
(in a folder with no langgraph.json: the demo graphs): the info screen then waits for it.
Then it presses ctrl+q and waits for the process to exit. `--against PYTHON` starts a
second agent-tui each round too, with that interpreter (another checkout's environment,
e.g. a worktree of main): both side by side in the same minutes, against the same server. For scale it also times a bare
`python -c pass`, `agent-tui --version` (no Textual import) and `import textual`.
AGENT_TUI_HOME points at a temporary folder, so no user config or theme is read; the
bytecode caches are written there too (PYTHONPYCACHEPREFIX) and used from the first timed
run on, as an installed app uses its own.

Checked (exit status 1 if not): every start paints its first screen (agent-tui: the info
screen with a graph of the server in its table), and quits with status 0 on ctrl+q; each
start has a deadline of 60 s.
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
from collections.abc import Callable
from pathlib import Path

from benchkit import add_options, arm, check

TITLE = b"agent-tui"
BARE_APP = Path(__file__).with_name("bare_app.py")
BARE_TITLE = b"bare-textual"
TABLE_HEADER = b"Default assistant"
GRAPH_IDS = (b"chat", b"counter")
QUICK_ROUNDS = 3
PAINT_TARGET = 1.15  # first paint / the bare app's first paint (issue #33)
READY_TARGET = 2.5  # info screen ready / the bare app's first paint
START_TIMEOUT = 60.0  # seconds one start may take to show what it is waited for
QUIT_TIMEOUT = 20.0  # seconds from ctrl+q to the process's exit
ReadyTest = Callable[[bytes], bool]


def _ready(screen_bytes: bytes) -> bool:
    header = screen_bytes.find(TABLE_HEADER)
    return header >= 0 and any(screen_bytes.find(g, header) >= 0 for g in GRAPH_IDS)


def run_once(
    url: str | None,
    env: dict[str, str],
    timeout: float = START_TIMEOUT,
    python: str = sys.executable,
) -> tuple[float, float]:
    """(seconds to first paint, seconds to the info screen ready) for one app start;
    `url` None: `agent-tui` alone, which starts its own server (in a folder with no
    langgraph.json: the demo graphs)."""
    flags = ["--url", url] if url is not None else []
    first_paint, ready, seen, status = _watch_start(
        [python, "-m", "agent_tui", *flags],
        env,
        TITLE,
        _ready,
        timeout,
        cwd=env["AGENT_TUI_HOME"] if url is None else None,
    )
    tail = bytes(seen[-400:]).decode("utf-8", "replace")
    check(
        first_paint is not None and ready is not None,
        f"the app did not show its screens within {timeout:g} s: {tail!r}",
    )
    check(status == 0, f"the app quit with status {status} on ctrl+q: {tail!r}")
    assert first_paint is not None and ready is not None
    return first_paint, ready


def run_bare_once(
    env: dict[str, str], timeout: float = START_TIMEOUT, ready_test: ReadyTest | None = None
) -> float:
    """Seconds to the bare Textual app's first paint (after which, if given, `ready_test`
    must pass on what it wrote)."""
    first_paint, ready, seen, status = _watch_start(
        [sys.executable, str(BARE_APP)], env, BARE_TITLE, ready_test, timeout
    )
    tail = bytes(seen[-400:]).decode("utf-8", "replace")
    check(first_paint is not None, f"the bare app did not paint within {timeout:g} s: {tail!r}")
    if ready_test is not None:
        check(ready is not None, f"the bare app did not draw its table: {tail!r}")
    check(status == 0, f"the bare app quit with status {status} on ctrl+q: {tail!r}")
    assert first_paint is not None
    return first_paint


def _watch_start(
    command: list[str],
    env: dict[str, str],
    title: bytes,
    ready_test: ReadyTest | None,
    timeout: float,
    cwd: str | None = None,
) -> tuple[float | None, float | None, bytearray, int | None]:
    """Start `command` in a pseudo-terminal and read its output until `ready_test` passes
    (or, without one, the first paint: `title` in the output); then ctrl+q.

    (first paint, ready, everything read, exit status after ctrl+q); a moment not seen is
    None, and so is the status of a process that had to be killed.
    """
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    started = time.perf_counter()
    process = subprocess.Popen(
        command,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    os.close(slave)
    seen = bytearray()
    first_paint: float | None = None
    ready: float | None = None
    status: int | None = None
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
            if first_paint is None and title in seen:
                first_paint = now
                if ready_test is None:
                    break
            if first_paint is not None and ready_test is not None and ready_test(bytes(seen)):
                ready = now
                break
        os.write(master, b"\x11")  # ctrl+q
        status = _drain_until_exit(master, process, QUIT_TIMEOUT)
        if status is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=10)
    finally:
        os.close(master)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    return first_paint, ready, seen, status


def _drain_until_exit(master: int, process: subprocess.Popen[bytes], timeout: float) -> int | None:
    """Read (and drop) what the process still writes until it exits: its exit status, or
    None if it is still running after `timeout` s. Unread, the terminal's buffer fills
    and the app blocks on a write (the last frames, leaving the alternate screen) and
    never quits."""
    deadline = time.perf_counter() + timeout
    while process.poll() is None and time.perf_counter() < deadline:
        readable, _, _ = select.select([master], [], [], 0.05)
        if readable:
            try:
                os.read(master, 1 << 16)
            except OSError:  # nothing holds the terminal any more: it is exiting
                break
    try:
        return process.wait(timeout=max(deadline - time.perf_counter(), 0.1))
    except subprocess.TimeoutExpired:
        return None


class Times:
    """One agent-tui's starts, and each round's ratios to the bare app's first paint."""

    def __init__(self) -> None:
        self.paints: list[float] = []
        self.readies: list[float] = []
        self.paint_ratios: list[float] = []
        self.ready_ratios: list[float] = []

    def add(self, paint: float, ready: float, bare_paint: float) -> None:
        self.paints.append(paint)
        self.readies.append(ready)
        self.paint_ratios.append(paint / bare_paint)
        self.ready_ratios.append(ready / bare_paint)

    def report(self, baseline: list[float]) -> None:
        print(summary("first paint (start-up screen)", self.paints))
        print(summary("info screen ready (graphs shown)", self.readies))
        print(
            f"  first paint, agent-tui / bare app: {statistics.median(self.paint_ratios):.2f}x"
            f" (median of the rounds' ratios; best-of ratio"
            f" {min(self.paints) / min(baseline):.2f}x; target {PAINT_TARGET:.2f}x)"
        )
        print(
            f"  info screen ready / bare app's first paint:"
            f" {statistics.median(self.ready_ratios):.2f}x (median of the rounds' ratios;"
            f" best-of ratio {min(self.readies) / min(baseline):.2f}x;"
            f" target {READY_TARGET:.2f}x)"
        )


def time_command(args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, env=env, check=True, capture_output=True, timeout=START_TIMEOUT)
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
    parser.add_argument(
        "--against",
        metavar="PYTHON",
        help="also time agent-tui as this interpreter imports it (another checkout's "
        "environment), side by side",
    )
    parser.add_argument(
        "--local",
        action="store_true",
        help="time `agent-tui` alone instead: it starts its own local server (demo graphs)",
    )
    add_options(parser, quick=150, full=1800)
    args = parser.parse_args()
    arm(args)
    rounds = QUICK_ROUNDS if args.quick else args.runs
    scale_runs = 1 if args.quick else args.runs

    home = tempfile.mkdtemp(prefix="agent-tui-bench-")
    env = {**os.environ, "AGENT_TUI_HOME": home, "TERM": "xterm-256color"}
    env.pop("LANGSMITH_API_KEY", None)
    # Bytecode caches as an installed app has them from its second start on (the warm-up
    # run writes them); in a folder of their own, so the source tree stays clean. Without
    # them every start compiles every module, which hides what start-up itself costs.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(home) / "pycache")
    server = None
    url = args.url
    if url is None and not args.local:
        from agent_tui.local import DEMO_CONFIG, EmbeddedAgentServer

        server = EmbeddedAgentServer(DEMO_CONFIG, data_dir=Path(home) / "server")
        server.start()
        server.wait_until_ready()
        url = server.url
        print(f"embedded agent server (demo graphs) ready at {url}")
    pythons = [sys.executable] + ([args.against] if args.against else [])
    try:
        for python in pythons:
            run_once(url, env, python=python)  # warm the OS file cache and the server
        run_bare_once(env)
        times: dict[str, Times] = {python: Times() for python in pythons}
        baseline: list[float] = []
        for round_ in range(rounds):
            # Rotate the order, so a noisy moment does not always hit the same one.
            starts: list[str | None] = [None, *pythons]
            shift = round_ % len(starts)
            bare_paint = 0.0
            done: dict[str, tuple[float, float]] = {}
            for python in starts[shift:] + starts[:shift]:
                if python is None:
                    bare_paint = run_bare_once(env)
                else:
                    done[python] = run_once(url, env, python=python)
            baseline.append(bare_paint)
            for python, (paint, ready) in done.items():
                times[python].add(paint, ready, bare_paint)
        bare = [time_command([sys.executable, "-c", "pass"], env) for _ in range(scale_runs)]
        version = [
            time_command([sys.executable, "-m", "agent_tui", "--version"], env)
            for _ in range(scale_runs)
        ]
        textual = [
            time_command([sys.executable, "-c", "import textual.app"], env)
            for _ in range(scale_runs)
        ]
    finally:
        if server is not None:
            server.stop()
    started = f"--url {url}" if url is not None else "(its own local server, demo graphs)"
    print(f"\nagent-tui {started}: process start to … (ms)")
    print(f"  {'':<34} {'best':>8} {'median':>8} {'worst':>8}")
    for python in pythons:
        if args.against:
            print(f"  {python}:")
        times[python].report(baseline)
    print(summary("bare Textual app: first paint", baseline))
    print("for scale:")
    print(summary("python -c pass", bare))
    print(summary("agent-tui --version", version))
    print(summary("python -c 'import textual.app'", textual))
    print("checked: every start showed its screens and quit with status 0 on ctrl+q")


if __name__ == "__main__":
    main()
