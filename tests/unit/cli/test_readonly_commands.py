"""Read-only mode refuses every headless command that changes a server, wherever
`--readonly` is written, before connecting (no server needed: nothing listens on the
URL these use).

Every subcommand is named below as a writer or a reader: a new subcommand fails
`test_every_subcommand_is_known_to_write_or_only_read` until someone decides which it
is, so a command that writes cannot be added without its read-only refusal.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from agent_tui.cli.main import build_parser, main

NOWHERE = ["--url", "http://127.0.0.1:9"]
ID = "00000000-0000-0000-0000-000000000001"

WRITERS: dict[tuple[str, ...], tuple[list[str], str]] = {
    ("import",): (["import", "thread.json"], "import a thread"),
    ("run",): (["run", "chat", "--message", "hi"], "start a run"),
    ("store", "put"): (["store", "put", "users", "k", "--value", "{}"], "put a store item"),
    ("store", "rm"): (["store", "rm", "users", "k"], "delete a store item"),
    ("crons", "create"): (
        ["crons", "create", "chat", "--schedule", "0 0 * * *", "--message", "hi"],
        "create a cron job",
    ),
    ("crons", "rm"): (["crons", "rm", ID], "delete a cron job"),
    ("assistants", "create"): (["assistants", "create", "chat"], "create an assistant"),
    ("assistants", "update"): (
        ["assistants", "update", ID, "--context-json", "{}"],
        "update an assistant",
    ),
    ("assistants", "set-version"): (
        ["assistants", "set-version", ID, "2"],
        "set an assistant's version",
    ),
    ("assistants", "delete"): (["assistants", "delete", ID], "delete an assistant"),
    ("experiments", "run"): (
        ["experiments", "run", "qa", "--assistant", "chat"],
        "run an experiment",
    ),
    ("deploy",): (["deploy", "--name", "x"], "deploy"),
    ("deployments", "delete"): (["deployments", "delete", ID, "--force"], "delete a deployment"),
    ("deployments", "redeploy"): (["deployments", "redeploy", ID, ID], "redeploy a revision"),
}
# The control plane commands take the control plane's URL, not an agent server's.
CONTROL_PLANE_NOWHERE = ["--control-plane", "http://127.0.0.1:9", "--control-plane-key", "k"]
# Commands that change no server: they read one, or change only this machine (the
# config file, a local server of one's own, a local control plane).
READERS = {
    ("config", name)
    for name in ("path", "contexts", "set-context", "use-context", "delete-context", "schema")
} | {
    ("config", "keys"),
    ("threads", "list"),
    ("assistants", "list"),
    ("assistants", "show"),
    ("assistants", "versions"),
    ("assistants", "graph"),
    # Datasets and saved experiments are this machine's own; `datasets add` reads a thread.
    ("datasets", "list"),
    ("datasets", "show"),
    ("datasets", "import"),
    ("datasets", "export"),
    ("datasets", "delete"),
    ("datasets", "add"),
    ("experiments", "list"),
    ("experiments", "show"),
    ("history",),
    ("graph",),
    ("diff",),
    ("export",),
    ("store", "ls"),
    ("store", "get"),
    ("store", "search"),
    ("crons", "list"),
    ("serve",),
    ("deployments", "list"),
    ("deployments", "watch"),
    ("deployments", "logs"),
    ("deployments", "revisions"),
    ("control-plane", "serve"),
    # The trace store is this machine's own: serving and reading it changes no server.
    ("traces", "serve"),
    ("traces", "list"),
    ("traces", "show"),
}


def subcommands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> set[tuple[str, ...]]:
    found: set[tuple[str, ...]] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found |= subcommands(sub, (*path, name))
    return found or {path}


def test_every_subcommand_is_known_to_write_or_only_read() -> None:
    assert subcommands(build_parser()) == set(WRITERS) | READERS


@pytest.mark.parametrize("command", list(WRITERS), ids=" ".join)
@pytest.mark.parametrize("where", ["after", "before", "environment"])
def test_a_command_that_writes_is_refused_in_read_only_mode(
    command: tuple[str, ...],
    where: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)  # `import thread.json`: refused before the file is read
    argv, what = WRITERS[command]
    nowhere = CONTROL_PLANE_NOWHERE if command[0].startswith("deploy") else NOWHERE
    if where == "after":
        argv, reason = [*argv, *nowhere, "--readonly"], "--readonly is set"
    elif where == "before":
        argv, reason = ["--readonly", *argv, *nowhere], "--readonly is set"
    else:
        monkeypatch.setenv("AGENT_TUI_READONLY", "1")
        argv, reason = [*argv, *nowhere], "AGENT_TUI_READONLY is set"
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"agent-tui: read-only mode: cannot {what} ({reason})\n"
