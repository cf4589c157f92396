"""The suite's guard against a leaked environment (tests/support/environment.py): the
CLI's `main`, run in a worker as the headless tests do, sets variables for its process."""

from __future__ import annotations

import os
import signal

import pytest

from agent_tui.settings.traces import ENABLED_ENV
from tests.support.cli import exit_code
from tests.support.environment import environment_restored, signals_restored

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
