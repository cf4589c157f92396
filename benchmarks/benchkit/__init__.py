"""What every benchmark script shares: `--quick`, a hard deadline, checks that fail loudly.

Not a benchmark (a package, so `benchmarks/*.py` lists only the scripts, each of which
`tests/test_benchmarks_quick.py` runs with `--quick`). The scripts import it by name:
a script's own folder is first on `sys.path`.

- `add_options(parser, quick=…, full=…)`: `--quick` (a run of seconds that still checks
  its result) and `--timeout` (the hard deadline, by default `quick` or `full` seconds);
  `arm(args)` starts the deadline once the arguments are parsed.
- The deadline: when it passes, every thread's stack is printed, the main thread gets
  SIGINT (so servers and temporary folders are cleaned up as on ctrl+c) and the process
  exits with status 124 — at once if it was about to exit 0, after a grace period if the
  clean-up hangs too.
- `busy_core()`: a child process spinning on one core for as long as the block runs (what
  a machine's other work does to the measured process).
- `check(condition, message)`: raise `BenchmarkFailed` (exit status 1) unless it holds;
  `until(condition, what, timeout)`: poll in an event loop, fail if it never holds.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import contextlib
import faulthandler
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator

QUICK_HELP = "a small run (seconds) that still checks its result and prints its figures"
TIMED_OUT_STATUS = 124
GRACE = 20.0  # seconds the clean-up after the deadline may take before a hard exit

_timed_out = threading.Event()


class BenchmarkFailed(Exception):
    """A benchmark's own check failed: its figures would mean nothing."""


@contextlib.contextmanager
def busy_core(enabled: bool = True) -> Iterator[None]:
    """Keep one core busy while the block runs: a child process spinning in a loop."""
    if not enabled:
        yield
        return
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        spinner.kill()
        spinner.wait()


def check(condition: object, message: str) -> None:
    """Fail the benchmark (exit status 1) unless `condition` holds."""
    if not condition:
        raise BenchmarkFailed(message)


async def until(
    condition: Callable[[], object], what: str, timeout: float = 60.0, interval: float = 0.005
) -> float:
    """Poll `condition` in the running loop until it holds; seconds waited. Fail if it
    does not hold within `timeout` s, saying `what` was awaited."""
    started = time.perf_counter()
    while not condition():
        if time.perf_counter() - started > timeout:
            raise BenchmarkFailed(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(interval)
    return time.perf_counter() - started


def add_options(parser: argparse.ArgumentParser, *, quick: float, full: float) -> None:
    """`--quick` and `--timeout` (default: `quick` s with --quick, `full` s without)."""
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    parser.add_argument(
        "--timeout",
        type=float,
        help=f"fail after this many seconds (default {quick:g} with --quick, {full:g} without)",
    )
    parser.set_defaults(benchkit_deadlines=(quick, full))


def arm(args: argparse.Namespace, *, full: float | None = None) -> float:
    """Start the hard deadline that `add_options` set up (`full`: the full run's, when it
    depends on the arguments); its length in seconds."""
    quick, default_full = args.benchkit_deadlines
    full = default_full if full is None else full
    seconds = float(args.timeout or (quick if args.quick else full))
    deadline(seconds)
    return seconds


def deadline(seconds: float) -> None:
    """After `seconds`, fail loudly whatever the script is doing (see the module doc)."""
    script = os.path.basename(sys.argv[0])

    def expire() -> None:
        if _finished.wait(seconds):
            return
        _timed_out.set()
        print(
            f"\nTIMEOUT: {script} did not finish within {seconds:g} s; every thread's stack:",
            file=sys.stderr,
            flush=True,
        )
        faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGINT)  # clean up as on ctrl+c
        if not _finished.wait(GRACE):
            print(f"TIMEOUT: {script} still running {GRACE:g} s later; exiting", file=sys.stderr)
            sys.stderr.flush()
            os._exit(TIMED_OUT_STATUS)

    threading.Thread(target=expire, name="benchmark-deadline", daemon=True).start()
    atexit.register(_exit_status)


_finished = threading.Event()


def _exit_status() -> None:
    # A script that swallowed the interrupt must not pass for one that finished.
    _finished.set()
    if _timed_out.is_set():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(TIMED_OUT_STATUS)
