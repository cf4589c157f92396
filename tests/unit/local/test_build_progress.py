"""What the start-up screen shows of an environment build: uv's words once."""

from __future__ import annotations

from agent_tui.local.project_env.builder import BuildProgress


def test_a_stage_read_from_uvs_line_shows_uvs_words_alone() -> None:
    downloaded = BuildProgress("downloaded openai", " Downloaded openai", 3, 9, from_line=True)
    assert downloaded.shown == "Downloaded openai"
    added = BuildProgress("installed openai==1.2.0", " + openai==1.2.0", 9, 9, from_line=True)
    assert added.shown == "+ openai==1.2.0"


def test_a_stage_of_its_own_keeps_uvs_line_beside_it() -> None:
    unread = BuildProgress("installing packages", "Prepared 9 packages in 1.2s", 9, 9)
    assert unread.shown == "installing packages · Prepared 9 packages in 1.2s"
    assert BuildProgress("creating the environment").shown == "creating the environment"
    said = BuildProgress(
        "warning: python_version 3.99 is not available",
        "warning: python_version 3.99 is not available",
    )
    assert said.shown == "warning: python_version 3.99 is not available"
