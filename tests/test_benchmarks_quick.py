"""Every benchmark's `--quick` form runs, checks its own result and exits 0.

The scripts are found by globbing `benchmarks/*.py`, so a new benchmark is covered as soon
as it exists (and fails here until it takes `--quick`: a run of seconds that still checks
what it measures, see `benchmarks/README.md`). Each runs in a subprocess as a developer
runs it, from the repository root, in a session of its own so that a hung one is killed
with everything it started. Seconds each; select or leave them out with `-m benchmark` /
`-m "not benchmark"`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted((ROOT / "benchmarks").glob("*.py"))
# Generous: the scripts' own deadlines (`benchkit`, 120-180 s with --quick) come first and
# print every thread's stack; this one only catches a script that has none.
TIMEOUT = 240
TAIL_LINES = 60

pytestmark = pytest.mark.benchmark


def tail(output: str) -> str:
    return "\n".join(output.rstrip().splitlines()[-TAIL_LINES:])


def test_benchmarks_found() -> None:
    assert len(SCRIPTS) >= 10, [script.name for script in SCRIPTS]


@pytest.mark.parametrize("script", SCRIPTS, ids=[script.stem for script in SCRIPTS])
def test_quick_form(script: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, str(script), "--quick"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        pytest.fail(
            f"benchmarks/{script.name} --quick did not finish within {TIMEOUT} s;"
            f" its output's last lines:\n{tail(output)}"
        )
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 0, (
        f"benchmarks/{script.name} --quick exited with status {process.returncode};"
        f" its output's last lines:\n{tail(output)}"
    )
