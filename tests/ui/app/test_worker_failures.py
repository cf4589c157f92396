"""A worker that raises, on any screen, modal or widget, is shown to the user and logged.

Textual tells only the node that ran a worker that it failed; `ReportsWorkerFailures`
passes it on to the app's one handler. The first test finds, in the code, every class of
ours that runs workers, so a new one cannot forget it.
"""

from __future__ import annotations

import ast
import asyncio
import importlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import agent_tui
from agent_tui.chat.session import ChatSession
from agent_tui.client import AgentServerClient
from agent_tui.client.assistants import AssistantsClient
from agent_tui.client.models import Assistant
from agent_tui.settings.logs import setup_logging
from agent_tui.tui.chat.assistant_picker import AssistantPickerScreen
from agent_tui.tui.chat.pane import ChatPane
from agent_tui.tui.shell import ShellApp
from agent_tui.tui.widgets.worker_failures import ReportsWorkerFailures
from tests.support.chat import chat_app, chat_thread, pane_of, state_line, type_and_send
from tests.support.screen import toast_saying
from tests.support.shell import ShellHarness
from tests.support.waiting import WaitFor

SIZE = (120, 40)
PACKAGE = Path(agent_tui.__file__).parent


def _is_work(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(target, ast.Name) and target.id == "work") or (
        isinstance(target, ast.Attribute) and target.attr == "work"
    )


def _runs_workers(cls: ast.ClassDef) -> bool:
    """`@work` methods, or `self.run_worker(...)` (a worker of this node, not the app's)."""
    for node in ast.walk(cls):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
            _is_work(d) for d in node.decorator_list
        ):
            return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "run_worker"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "self"
        ):
            return True
    return False


def classes_running_workers() -> Iterator[type[Any]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        classes = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
        found = [cls.name for cls in classes if _runs_workers(cls)]
        if not found:
            continue
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        imported = importlib.import_module(module)
        for name in found:
            yield getattr(imported, name)


def test_every_class_that_runs_workers_passes_their_failures_to_the_app() -> None:
    found = list(classes_running_workers())
    assert ChatPane in found and AssistantPickerScreen in found  # the walk sees them
    # The app handles its own workers' failures; every other node passes them on.
    silent = [
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in found
        if not issubclass(cls, ReportsWorkerFailures | ShellApp)
    ]
    assert silent == [], "mix ReportsWorkerFailures into these classes"


@pytest.fixture
def log_file() -> Iterator[Path]:
    """The app's log file, set up as `agent-tui` sets it up (pytest's handlers are put
    back afterwards)."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    path = setup_logging()
    try:
        yield path
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
            handler.close()
        for handler in handlers:
            root.addHandler(handler)
        root.setLevel(level)
        logging.captureWarnings(False)


async def test_a_worker_that_raises_on_a_modal_is_shown_and_logged(
    client: AgentServerClient,
    log_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    wait_for: WaitFor,
) -> None:
    async def explode(self: AssistantsClient, **options: Any) -> list[Assistant]:
        raise RuntimeError("the picker exploded")

    monkeypatch.setattr(AssistantsClient, "search", explode)
    app = ShellHarness(AssistantPickerScreen(client))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await toast_saying(pilot, "the picker exploded")
        assert isinstance(app.screen, AssistantPickerScreen)  # the modal stays, closable
    text = await asyncio.to_thread(log_file.read_text, encoding="utf-8")
    assert "worker group 'assistant-picker' failed" in text
    assert "Traceback" in text and "RuntimeError: the picker exploded" in text


async def test_a_stream_that_raises_leaves_the_chat_idle_with_the_error_shown_and_logged(
    client: AgentServerClient,
    fast_chat: Assistant,
    log_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    wait_for: WaitFor,
) -> None:
    async def explode(self: ChatSession, *args: Any, **options: Any) -> Any:
        raise RuntimeError("the stream exploded")
        yield  # an async generator, as `follow` is

    monkeypatch.setattr(ChatSession, "follow", explode)
    thread = await chat_thread(client, fast_chat)
    app, _ = chat_app(client, thread.thread_id, fast_chat)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        pane = pane_of(app)
        await type_and_send(pilot, pane, "hello")
        await toast_saying(pilot, "the stream exploded")
        assert not pane.running
        line = state_line(pane)
        assert line.startswith("error") and "running" not in line and "starting" not in line
        await pilot.press("ctrl+q")
    text = await asyncio.to_thread(log_file.read_text, encoding="utf-8")
    assert "worker group 'chat-run' failed" in text
    assert "Traceback" in text and "RuntimeError: the stream exploded" in text
