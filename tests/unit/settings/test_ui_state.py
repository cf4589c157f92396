"""UI preferences: remembered atomically, and a broken file means no preferences."""

from __future__ import annotations

from pathlib import Path

from agent_tui.settings.ui_state import load_ui_state, save_ui_state, saved_theme


def test_saves_merges_and_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "ui-state.json"
    assert saved_theme(path) is None
    save_ui_state({"theme": "nord"}, path)
    save_ui_state({"other": 1}, path)
    assert load_ui_state(path) == {"theme": "nord", "other": 1}
    assert saved_theme(path) == "nord"
    assert [p.name for p in tmp_path.iterdir()] == ["ui-state.json"]  # no temp files left


def test_a_broken_file_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "ui-state.json"
    path.write_text("{not json")
    assert load_ui_state(path) == {}
    path.write_text('["a list"]')
    assert saved_theme(path) is None
    save_ui_state({"theme": "dracula"}, path)
    assert saved_theme(path) == "dracula"
