"""The record of an owner's live reloads in the data folder, as attached copies read it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agent_tui.local.live_reload.graph_check import GraphProblem
from agent_tui.local.live_reload.record import (
    RELOAD_FILE,
    read_reload_record,
    remove_reload_record,
    write_reload_record,
)
from agent_tui.local.live_reload.reloader import ReloadEvent


def test_a_failed_reload_reads_back_as_the_owner_reported_it(tmp_path: Path) -> None:
    project = tmp_path / "project"
    problem = GraphProblem("agent", project / "tools.py", 12, "ModuleNotFoundError: x", project)
    event = ReloadEvent(
        "failed", [Path("tools.py")], str(problem), [problem], ["uv said"], seconds=0.5
    )
    write_reload_record(tmp_path, 3, event.to_json())
    record = read_reload_record(tmp_path)
    assert record is not None
    assert (record.owner_pid, record.count) == (os.getpid(), 3)
    assert record.event is not None
    again = ReloadEvent.from_json(record.event)
    assert again == event
    assert again is not None and str(again.problems[0]) == (
        "tools.py:12: ModuleNotFoundError: x (graph agent)"
    )


def test_watching_before_any_reload_is_a_record_without_event(tmp_path: Path) -> None:
    write_reload_record(tmp_path, 0, None)
    record = read_reload_record(tmp_path)
    assert record is not None and record.count == 0 and record.event is None


def test_what_is_not_a_record_is_not_read(tmp_path: Path) -> None:
    assert read_reload_record(tmp_path) is None  # no file
    for text in ("{", "[]", '{"owner_pid": "1", "count": 0}', '{"owner_pid": 1}'):
        (tmp_path / RELOAD_FILE).write_text(text)
        assert read_reload_record(tmp_path) is None, text
    assert ReloadEvent.from_json({"kind": "exploded"}) is None
    odd = ReloadEvent.from_json({"kind": "failed", "problems": [{"line": "x"}, 3], "files": 1})
    assert odd == ReloadEvent("failed", [], "", [GraphProblem(None, None, None, "did not load")])


def test_only_the_owner_removes_its_record(tmp_path: Path) -> None:
    (tmp_path / RELOAD_FILE).write_text(json.dumps({"owner_pid": 1, "count": 2, "event": None}))
    remove_reload_record(tmp_path)  # process 1's, not ours
    assert (tmp_path / RELOAD_FILE).exists()
    write_reload_record(tmp_path, 0, None)
    remove_reload_record(tmp_path)
    assert not (tmp_path / RELOAD_FILE).exists()
