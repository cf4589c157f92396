"""The headless core never imports Textual (docs/architecture.md: the headless core).

The modules checked are found, not listed: every module of agent_tui that is not part of
the UI (the UI packages and the few UI modules beside them below). A new module is
therefore checked as headless unless it is placed in the UI. import-linter checks the
same rule statically (`uv run lint-imports`); this test checks what really loads.

The unit tests are the headless core's tests: they load no Textual either (a test of the
UI belongs in tests/ui), checked the same way over every module under tests/unit.
"""

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import agent_tui

# The layout says what is UI: the `tui` package. Outside it, only the command line's entry
# (it opens the TUI once the flags are parsed) may load Textual, and `agent_tui.__main__`
# runs that entry when imported.
UI_PACKAGE = "agent_tui.tui"
UI_ENTRY_POINTS = {"agent_tui.__main__", "agent_tui.cli.main"}


def _is_ui(name: str) -> bool:
    return name in UI_ENTRY_POINTS or name == UI_PACKAGE or name.startswith(UI_PACKAGE + ".")


# Code that runs only inside the agent-server process (started with `python -m`, where
# langgraph-api's settings are in the environment: importing it elsewhere fails on them).
# import-linter checks it statically: no Textual, and nothing else imports it.
SERVER_PACKAGE = "agent_tui.server"


def headless_modules() -> list[str]:
    found = pkgutil.walk_packages(agent_tui.__path__, "agent_tui.")
    return sorted(
        module.name
        for module in found
        if not _is_ui(module.name) and not module.name.startswith(SERVER_PACKAGE)
    )


def _group(name: str) -> str:
    """`agent_tui.local.control_plane.app` → `agent_tui.local`: one interpreter per package."""
    return ".".join(name.split(".")[:2])


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


def test_the_package_root_holds_only_packages_and_the_entry_points() -> None:
    root_modules = {
        module.name for module in pkgutil.iter_modules(agent_tui.__path__) if not module.ispkg
    }
    assert root_modules <= {"__main__"}, f"loose modules at the package root: {root_modules}"


def test_the_layout_yields_the_headless_packages() -> None:
    assert {
        "agent_tui.client",
        "agent_tui.local",
        "agent_tui.chat",
        "agent_tui.cli",
        "agent_tui.settings",
        "agent_tui.text",
        "agent_tui.threads",
        "agent_tui.graph_drawing",
    } <= set(GROUPS)
    assert "agent_tui.settings.config" in GROUPS["agent_tui.settings"]
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


def unit_test_modules() -> list[str]:
    """Every module under tests/unit (this one too), by its name in the `tests` package."""
    unit = Path(__file__).resolve().parent
    root = unit.parents[1]
    return sorted(
        ".".join(path.relative_to(root).with_suffix("").parts)
        for path in unit.rglob("*.py")
        if path.name != "__init__.py"
    )


def test_unit_tests_do_not_import_textual() -> None:
    modules = unit_test_modules()
    assert "tests.unit.test_headless_imports" in modules
    root = Path(__file__).resolve().parents[2]
    # From the repository's root, as pytest imports them (`tests` is a package there).
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(modules)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        cwd=root,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"{result.stdout.strip()} loads textual"
