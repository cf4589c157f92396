"""`launch.wait_for_exit`: a reload waits for the old server's exit, and no longer."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agent_tui.local.supervisor import launch


def test_the_wait_ends_with_the_exit_or_at_the_timeout() -> None:
    quick = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.2)"])
    launch.wait_for_exit(quick, 30)
    assert quick.returncode == 0
    launch.wait_for_exit(quick, 30)  # reaped already: returns at once

    stuck = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            launch.wait_for_exit(stuck, 0.3)
        assert stuck.poll() is None
    finally:
        stuck.kill()
        stuck.wait()
