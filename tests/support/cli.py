"""Running agent-tui's command line in-process, as the headless command tests do."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_tui.cli.main import main


def exit_code(argv: list[str]) -> int:
    """`main`'s exit code, also when argparse exits (bad usage) as a real process does."""
    try:
        return main(argv)
    except SystemExit as exited:
        return int(exited.code or 0)


async def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = await asyncio.to_thread(exit_code, list(argv))
    out, err = capsys.readouterr()
    return code, out, err


async def write_readonly_context(config_file: Path, agent_server_url: str) -> None:
    """A config whose context `prod` (read-only) points at the test server."""
    await asyncio.to_thread(
        config_file.write_text,
        f'[contexts.prod]\nagent_server_url = "{agent_server_url}"\nreadonly = true\n',
    )
