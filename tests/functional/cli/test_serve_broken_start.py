"""`agent-tui serve` on a project broken at start behaves like a broken reload (issue 20,
part 5): it says the file, line and message, keeps watching, and starts serving when a
save fixes the project; with `--no-reload` it exits 1 saying where."""

from __future__ import annotations

import signal
from pathlib import Path

import httpx
import pytest

from tests.support.projects import broken_project
from tests.support.serve import Serve

MISSING = "tools.py:1: ModuleNotFoundError: No module named 'not_installed_anywhere'"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def test_a_project_broken_at_start_is_served_once_a_save_fixes_it(
    tmp_path: Path, home: Path
) -> None:
    config = broken_project(tmp_path / "project")
    tools = config.parent / "tools.py"
    serve = Serve(home, config.parent)
    try:
        serve.wait_for_stderr(MISSING, timeout=120)
        serve.wait_for_stderr("waiting for a fix: save the project to try again")
        assert serve.process.poll() is None  # still there, watching

        tools.write_text("STEP = 1\nbroken = (\n")  # still broken: where, now
        serve.wait_for_stderr("still broken: tools.py:2: SyntaxError", timeout=60)
        assert serve.process.poll() is None

        tools.write_text("STEP = 2\n")  # fixed: served, with the fixed code
        url = serve.url()
        response = httpx.post(
            f"{url}/runs/wait", json={"assistant_id": "agent", "input": {"n": 1}}, timeout=30
        )
        assert response.json() == {"n": 3}
    finally:
        code = serve.stop(signal.SIGTERM)
    assert code == 0, serve.stderr  # (the server's own log shows the import's traceback)


def test_without_reload_a_broken_start_exits_1_saying_where(tmp_path: Path, home: Path) -> None:
    config = broken_project(tmp_path / "project")
    serve = Serve(home, config.parent, "--no-reload")
    assert serve.process.wait(120) == 1
    assert serve.stdout.get(timeout=5) is None  # no URL
    assert "did not start" in serve.stderr or "exited" in serve.stderr
