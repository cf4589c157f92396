"""The chat run has one owner: only `chat/session.py` moves the run machine through a run.

The pane, the CLI and the queue begin, follow and cancel runs through the session; if
any of them started or ended the machine itself, two places would again decide whether a
run is going (the pane and the session once told each other apart by a flag)."""

from __future__ import annotations

import ast
from pathlib import Path

import agent_tui

PACKAGE = Path(agent_tui.__file__).parent
LIFECYCLE = {
    "start",
    "take",
    "not_started",
    "run_over",
    "broke",
    "request_cancel",
    "loaded",
    "paused_at",
}
OWNER = PACKAGE / "chat" / "session.py"


def machine_transitions(path: Path) -> list[str]:
    """`….machine.start(…)`-style calls in `path`, as `file:line method`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        receiver = node.func.value
        name = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
        if name == "machine" and node.func.attr in LIFECYCLE:
            found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.func.attr}")
    return found


def test_only_the_session_moves_the_run_machine_through_a_run() -> None:
    outside = [
        call
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != OWNER
        for call in machine_transitions(path)
    ]
    assert outside == []
    assert {call.split()[-1] for call in machine_transitions(OWNER)} >= {
        "start",
        "take",
        "not_started",
        "run_over",
    }
