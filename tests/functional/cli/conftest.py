"""Fixtures of the `agent-tui` command tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.serve import Serve


@pytest.fixture
def serves() -> Iterator[list[Serve]]:
    """Every serve a test starts is stopped (or killed) at its end."""
    started: list[Serve] = []
    yield started
    for serve in started:
        if serve.process.poll() is None:
            serve.process.kill()
            serve.process.wait(10)
