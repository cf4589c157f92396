"""The headless core never imports Textual (docs/architecture.md: the headless core).

The modules checked are found, not listed: every module of agent_tui that is not part of
the UI (the UI packages and the few UI modules beside them below). A new module is
therefore checked as headless unless it is placed in the UI. import-linter checks the
same rule statically (`uv run lint-imports`); this test checks what really loads.
"""

import json
import pkgutil
import subprocess
import sys

import pytest

import agent_tui

UI_PACKAGES = ("agent_tui.screens", "agent_tui.modals", "agent_tui.panes", "agent_tui.widgets")
UI_MODULES = {
    "agent_tui.__main__",  # runs the command line when imported
    "agent_tui.agent_screen",
    "agent_tui.app",
    "agent_tui.cli.main",  # opens the TUI
    "agent_tui.editor",
    "agent_tui.keymap_catalog",
    "agent_tui.palette",
    "agent_tui.routes",
    "agent_tui.shell",
}


def _is_ui(name: str) -> bool:
    return name in UI_MODULES or any(
        name == package or name.startswith(package + ".") for package in UI_PACKAGES
    )


def headless_modules() -> list[str]:
    found = pkgutil.walk_packages(agent_tui.__path__, "agent_tui.")
    return sorted(module.name for module in found if not _is_ui(module.name))


def _group(name: str) -> str:
    """`agent_tui.local.control_plane.app` → `agent_tui.local`; top-level modules → helpers."""
    parts = name.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 else "agent_tui (helpers)"


GROUPS: dict[str, list[str]] = {}
for _name in headless_modules():
    GROUPS.setdefault(_group(_name), []).append(_name)

# What each fresh interpreter runs: import the modules one by one and name the first one
# after which textual is loaded.
_PROBE = """
import importlib, json, sys
for name in json.loads(sys.argv[1]):
    importlib.import_module(name)
    if "textual" in sys.modules:
        print(name)
        break
"""


def test_the_layout_yields_the_headless_packages() -> None:
    assert {"agent_tui.client", "agent_tui.local", "agent_tui.chat", "agent_tui.cli"} <= set(GROUPS)
    assert "agent_tui.config" in GROUPS["agent_tui (helpers)"]
    assert not any(_is_ui(name) for names in GROUPS.values() for name in names)


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_headless_modules_do_not_import_textual(group: str) -> None:
    # A fresh interpreter: in this one, other tests have imported textual already.
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(GROUPS[group])],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"{result.stdout.strip()} loads textual"
