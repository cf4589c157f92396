"""`[keymap]` ids are checked against every binding of the app: a typo is reported
(in `agent-tui config keys` and by the app at start) instead of silently doing nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.binding import Binding
from textual.dom import DOMNode

from agent_tui.cli.main import main
from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.keymap_catalog import catalog
from tests.support.screen import toast_saying, toast_widgets
from tests.support.waiting import WaitFor


def _all_agent_tui_classes() -> list[type[DOMNode]]:
    catalog()  # imports every screen and widget module
    found: list[type[DOMNode]] = []
    pending = list(DOMNode.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.__module__.startswith("agent_tui."):
            found.append(cls)
    return found


def test_every_binding_of_every_screen_and_widget_has_an_id() -> None:
    missing = [
        f"{cls.__name__}: {binding.key}"
        for cls in _all_agent_tui_classes()
        for binding in cls.__dict__.get("BINDINGS", ())
        if isinstance(binding, Binding) and not binding.id
    ]
    assert missing == []


def test_the_catalog_knows_screens_never_opened() -> None:
    known = catalog()
    assert known["thread_view.fork"].keys == "f"
    assert known["thread_view.fork"].owner == "ThreadViewScreen"
    assert known["app.quit"].keys == "ctrl+q"


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config.toml"
    monkeypatch.setenv("AGENT_TUI_CONFIG", str(path))
    return path


def test_config_keys_lists_ids_and_reports_typos(
    config_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config_file.write_text('[keymap]\n"thread_view.fork" = "F"\n"thread_view.forkk" = "ctrl+f"\n')
    code = main(["config", "keys"])
    out, err = capsys.readouterr()
    assert code == 2
    fork = next(line for line in out.splitlines() if line.startswith("thread_view.fork "))
    assert "F " in fork and "(remapped)" in fork
    assert "'thread_view.forkk' is not a binding id (did you mean 'thread_view.fork'?)" in err


def test_config_keys_json(config_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config_file.write_text('[keymap]\n"resource.refresh" = "f5"\n')
    assert main(["config", "keys", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = {row["id"]: row for row in data["bindings"]}
    assert rows["resource.refresh"]["keys"] == "f5"
    assert rows["resource.refresh"]["default_keys"] == "r"
    assert data["unknown_keymap_ids"] == []


async def test_the_app_warns_about_an_unknown_keymap_id(free_port: int, wait_for: WaitFor) -> None:
    app = AgentTuiApp(RemoteServer(f"http://127.0.0.1:{free_port}"), keymap={"threads.serch": "S"})
    async with app.run_test(notifications=True) as pilot:
        note = await toast_saying(pilot, "threads.serch")
        assert "did you mean 'threads.search'?" in note
        # Shown as a warning: Textual styles a toast by its severity class.
        [toast] = toast_widgets(app, "threads.serch")
        assert toast.has_class("-warning")
