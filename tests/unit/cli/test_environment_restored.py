"""The suite's guard against a leaked environment (tests/support/environment.py): the
CLI's `main`, run in a worker as the headless tests do, sets variables for its process."""

from __future__ import annotations

import os

import pytest

from agent_tui.settings.traces import ENABLED_ENV
from tests.support.cli import exit_code
from tests.support.environment import environment_restored

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
