"""`agent-tui serve` on a langgraph-api release outside the supported range (agent-tui
installed with 0.13, in an environment of its own: `tests.support.api_envs`) says so as its
verdict, and exits 1, not with a server that half works."""

from __future__ import annotations

from pathlib import Path

from agent_tui.server.supported import supported_words
from tests.support.api_envs import TOO_OLD, build_api_env
from tests.support.serve import Serve


def test_serve_says_which_release_is_installed_and_which_it_runs(tmp_path: Path) -> None:
    env = build_api_env(TOO_OLD)
    (tmp_path / "here").mkdir()
    serve = Serve(tmp_path / "home", tmp_path / "here", "--no-reload", python=env.python)
    assert serve.process.wait(120) == 1
    assert serve.stdout.get(timeout=5) is None, "no URL: nothing serves"
    lines = serve.stderr.splitlines()
    verdict = (
        f"agent-tui serve: langgraph-api {TOO_OLD.api} is installed; "
        f"agent-tui's local server runs {supported_words()}"
    )
    assert verdict in lines, serve.stderr
    how = lines[lines.index(verdict) + 1]
    assert how.startswith("the agent server exited with code 4 before it was ready"), how
