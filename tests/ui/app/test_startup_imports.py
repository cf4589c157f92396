"""What `agent-tui --url URL` imports before its first screen.

The user notices this as the delay before anything shows (benchmarks/first_screen.py: the
first paint within 1.3x of a bare Textual app). The client (httpx, pydantic), the config
models and the installed-metadata reader each cost 40-100 ms to import; they belong after
the first paint (the connect worker imports the client in a thread once the start-up screen
is painted).
"""

import os
import subprocess
import sys
from pathlib import Path

# Run in a fresh interpreter: the app is built as the command line builds it, and instead of
# running it prints what is imported at the moment it would start drawing.
PROBE = """
import sys
from agent_tui.tui.app import AgentTuiApp

HEAVY = {
    "pydantic",
    "httpx",
    "importlib.metadata",
    "agent_tui.client",
    # The local server's supervisor (the app's side of it, local_session, is light).
    "agent_tui.local.supervisor.embedded_server",
    "agent_tui.local.supervisor.lock",
    "agent_tui.local.project_env.environment",
    # The subcommands' parsers: the TUI's flags need none of them.
    "agent_tui.cli.commands",
    # Only when the app crashes (its traceback), and only to compare versions.
    "rich.traceback",
    "agent_tui.assistants.versions",
}

def is_heavy(module):
    return any(module == name or module.startswith(name + ".") for name in HEAVY)

def report(self):
    # (A module set to None is one that is never imported: httpx's command line.)
    loaded = (m for m, module in sys.modules.items() if module is not None and is_heavy(m))
    print(" ".join(sorted(loaded)) or "none")

AgentTuiApp.run = report
from agent_tui.cli.main import main
main(sys.argv[1:])
"""


def _imported_before_start(home: Path, *argv: str) -> str:
    env = {**os.environ, "AGENT_TUI_HOME": str(home)}
    for name in ("AGENT_TUI_CONFIG", "AGENT_TUI_CONTEXT"):
        env.pop(name, None)
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], env=env, capture_output=True, text=True, check=True
    )
    return result.stdout.strip()


def test_url_start_without_config_file_leaves_client_and_config_models_for_later(
    tmp_path: Path,
) -> None:
    assert _imported_before_start(tmp_path, "--url", "http://127.0.0.1:9") == "none"


def test_local_start_without_config_file_leaves_the_config_models_for_later(
    tmp_path: Path,
) -> None:
    # `agent-tui` alone, the way most sessions start: the local context needs no file.
    assert _imported_before_start(tmp_path) == "none"


def test_connecting_leaves_the_control_plane_and_run_clients_for_later() -> None:
    # What the connect worker imports (in a thread, between the first paint and home):
    # not the control plane's client, nor the runs' (with their typed events, ~60 ms).
    probe = (
        "import sys\n"
        "from agent_tui.tui.app import _import_connection_modules\n"
        "_import_connection_modules()\n"
        "later = ('control_plane', 'agent_tui.client.runs', 'agent_tui.client.events')\n"
        "print(sorted(m for m in sys.modules if any(name in m for name in later)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_connecting_leaves_out_httpx_command_line(tmp_path: Path) -> None:
    # httpx's own CLI brings click, pygments and rich's syntax highlighting: a third of the
    # client's import time, between the first paint and home.
    probe = (
        "import sys\n"
        "from agent_tui.tui.app import AgentTuiApp, _import_connection_modules\n"
        "AgentTuiApp.run = lambda self: _import_connection_modules()\n"
        "from agent_tui.cli.main import main\n"
        "main(['--url', 'http://127.0.0.1:9'])\n"
        "import httpx\n"
        "print(sorted(m for m in ('click', 'pygments', 'rich.syntax') if m in sys.modules))\n"
    )
    env = {**os.environ, "AGENT_TUI_HOME": str(tmp_path)}
    env.pop("AGENT_TUI_CONFIG", None)
    result = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_url_start_with_a_config_file_still_checks_it_first(tmp_path: Path) -> None:
    # A mistake in the file must be reported before the TUI opens, so it is read (and
    # pydantic imported) when there is one.
    config = tmp_path / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[ui]\ntheme = "nord"\n')
    assert "pydantic" in _imported_before_start(tmp_path, "--url", "http://127.0.0.1:9").split()
    assert "pydantic" in _imported_before_start(tmp_path).split()
