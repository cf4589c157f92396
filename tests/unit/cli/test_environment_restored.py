"""The suite's guard against a leaked environment (tests/support/environment.py): the
CLI's `main`, run in a worker as the headless tests do, sets variables for its process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.settings.traces import ENABLED_ENV
from tests.support.cli import exit_code
from tests.support.environment import environment_restored, signals_restored

ROOT = Path(__file__).resolve().parents[3]
KEPT = "AGENT_TUI_TEST_KEPT"
GONE = "AGENT_TUI_TEST_DELETED"


def test_what_main_sets_for_its_process_is_gone_after_the_block(
    capsys: pytest.CaptureFixture[str],
) -> None:
    os.environ.pop(ENABLED_ENV, None)
    os.environ[KEPT], os.environ[GONE] = "kept", "there"
    try:
        with environment_restored():
            assert exit_code(["--no-traces", "config", "path"]) == 0
            assert os.environ[ENABLED_ENV] == "0"  # what a later serve would have read
            os.environ[KEPT] = "changed"
            del os.environ[GONE]
        assert ENABLED_ENV not in os.environ
        assert (os.environ[KEPT], os.environ[GONE]) == ("kept", "there")
        assert capsys.readouterr().out.strip().endswith(".toml")
    finally:
        os.environ.pop(KEPT, None)
        os.environ.pop(GONE, None)


def test_a_stop_signal_left_ignored_or_blocked_is_put_back_and_named() -> None:
    assert signals_restored() == []  # as every test leaves it (the autouse fixture)
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        assert signals_restored() == ["SIGTERM ignored", "SIGINT blocked"]
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
        assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    finally:
        signal.signal(signal.SIGTERM, previous)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


SIGNAL_CHECK = """
import subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
try:
    status = open(f"/proc/{child.pid}/status").read()
finally:
    child.kill()
ignored = int(next(l for l in status.splitlines() if l.startswith("SigIgn")).split()[1], 16)
def test_a_child_takes_ctrl_c():
    assert not ignored & (1 << (2 - 1)), "SIGINT ignored in the child"
    assert not ignored & (1 << (1 - 1)), "SIGHUP ignored in the child"
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_a_suite_started_in_the_background_starts_processes_that_take_ctrl_c(
    tmp_path: Path,
) -> None:
    # As `nohup` or a script's `&` start it: SIGINT and SIGHUP ignored, inherited by the
    # workers and by every process a test starts, unless the suite's set-up puts them back.
    (tmp_path / "test_child.py").write_text(SIGNAL_CHECK)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    ignore_then_run = (
        "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN);"
        " signal.signal(signal.SIGHUP, signal.SIG_IGN); os.execv(sys.executable, sys.argv[1:])"
    )
    pytest = [sys.executable, "-m", "pytest", "-q", "-c", str(tmp_path / "pytest.ini")]
    pytest += ["-p", "tests.conftest", "-p", "no:cacheprovider", str(tmp_path / "test_child.py")]
    ran = subprocess.run(
        [sys.executable, "-c", ignore_then_run, *pytest],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "1 passed" in ran.stdout
