"""The headless core never imports Textual (STYLE: client, config and local stay UI-free)."""

import subprocess
import sys

import pytest

HEADLESS = [
    "agent_tui.client",
    "agent_tui.local",
    "agent_tui.local.control_plane.server",
    "agent_tui.local.project_env",
    "agent_tui.local.env_builder",
    "agent_tui.local.live_reload",
    "agent_tui.local.server_lock",
    "agent_tui.local_session",
    "agent_tui.subcommands.serve",
    "agent_tui.control_plane_cli",
    "agent_tui.deployments_commands",
    "agent_tui.paths",
    "agent_tui.sanitize",
    "agent_tui.thread_query",
    "agent_tui.history",
    "agent_tui.checkpoint_diff",
    "agent_tui.thread_export",
    "agent_tui.subcommands.threads_list",
    "agent_tui.subcommands.history_diff",
    "agent_tui.subcommands.transfer",
    "agent_tui.config",
    "agent_tui.config_write",
    "agent_tui.contexts",
    "agent_tui.secrets_store",
    "agent_tui.config_cli",
    "agent_tui.config_schema",
    "agent_tui.chat.items",
    "agent_tui.chat.transcript_model",
    "agent_tui.chat.run_driver",
    "agent_tui.chat.session",
    "agent_tui.chat.item_text",
    "agent_tui.chat.waiting",
    "agent_tui.screens.chat_assistant",
    "agent_tui.subcommands.run",
    "agent_tui.subcommands.run_args",
    "agent_tui.subcommands.run_output",
]


@pytest.mark.parametrize("module", HEADLESS)
def test_headless_module_does_not_import_textual(module: str) -> None:
    # A fresh interpreter: in this one, other tests have imported textual already.
    code = (
        f"import importlib, sys; importlib.import_module({module!r}); "
        "print(sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
