"""A save pressed twice saves once: the second press, while the first request is on
its way, does nothing (it used to start a second save that cancelled the first after
the server had already acted, and so made two).

The forms talk to the real server; only its answer to the create request is held back
(a slow network) until the test has pressed the key a second time.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Select

from agent_tui.client import AgentServerClient
from agent_tui.client.crons import CronsClient
from agent_tui.client.models import Cron
from agent_tui.tui.screens.assistants.form import AssistantFormScreen
from agent_tui.tui.screens.crons.form import CronFormScreen
from agent_tui.tui.screens.threads.create import ThreadCreateScreen
from tests.support.crons import YEARLY, made_crons
from tests.support.screen import toast_saying
from tests.support.shell import ShellHarness
from tests.support.waiting import WaitFor

SIZE = (140, 45)


class HeldAnswers(httpx.AsyncBaseTransport):
    """The real server, whose answers to `POST path` wait for `release()`: the server
    has acted, the client does not know it yet."""

    def __init__(self, path: str) -> None:
        self._real = httpx.AsyncHTTPTransport()
        self.path = path
        self.answered = 0  # requests the server has answered (and so carried out)
        self._released = asyncio.Event()

    def release(self) -> None:
        """Let the held answers through, and every later one at once."""
        self._released.set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._real.handle_async_request(request)
        if request.method == "POST" and request.url.path == self.path:
            self.answered += 1
            try:
                await self._released.wait()
            except asyncio.CancelledError:
                await response.aclose()
                raise
        return response

    async def aclose(self) -> None:
        await self._real.aclose()


@dataclass
class Case:
    """One form: how to open and fill it, and what the server holds that it created."""

    path: str
    open_filled: Callable[[AgentServerClient, Any, WaitFor], Awaitable[ModalScreen[Any]]]
    made: Callable[[], Awaitable[list[str]]]  # ids of what this test's form created


@contextlib.asynccontextmanager
async def assistant_case(client: AgentServerClient, name: str) -> AsyncIterator[Case]:
    [default] = [
        a for a in await client.assistants.search(graph_id="chat", limit=1000) if a.is_default
    ]

    async def open_filled(held: AgentServerClient, pilot: Any, wait_for: WaitFor) -> Any:
        form = AssistantFormScreen(held, graphs={"chat": default.assistant_id}, graph_id="chat")
        await pilot.app.push_screen(form, pilot.app.dismissed.append)
        await wait_for(pilot, lambda: form.schema_form is not None, what="the context fields")
        form.query_one("#name", Input).value = name
        return form

    async def made() -> list[str]:
        found = await client.assistants.search(graph_id="chat", limit=1000)
        return [a.assistant_id for a in found if a.name == name]

    try:
        yield Case("/assistants", open_filled, made)
    finally:
        for assistant_id in await made():
            await client.assistants.delete(assistant_id)


@contextlib.asynccontextmanager
async def cron_case(client: AgentServerClient, name: str) -> AsyncIterator[Case]:
    assistant = await client.assistants.create("chat", name=name)

    async def open_filled(held: AgentServerClient, pilot: Any, wait_for: WaitFor) -> Any:
        form = CronFormScreen(held, assistant_id=assistant.assistant_id)
        await pilot.app.push_screen(form, pilot.app.dismissed.append)
        select = form.query_one("#assistant", Select)
        await wait_for(
            pilot, lambda: select.value == assistant.assistant_id, what="the assistant picked"
        )
        form.query_one("#schedule", Input).value = YEARLY
        return form

    async with made_crons(client) as crons:

        async def made() -> list[str]:
            return [c.cron_id for c in await crons.for_assistant(assistant)]

        try:
            yield Case("/runs/crons", open_filled, made)
        finally:
            await crons.for_assistant(assistant)  # so that they are removed
    await client.assistants.delete(assistant.assistant_id)


@contextlib.asynccontextmanager
async def thread_case(client: AgentServerClient, name: str) -> AsyncIterator[Case]:
    async def open_filled(held: AgentServerClient, pilot: Any, wait_for: WaitFor) -> Any:
        form = ThreadCreateScreen(held, metadata=f"suite={name}")
        await pilot.app.push_screen(form, pilot.app.dismissed.append)
        return form

    async def made() -> list[str]:
        return [t.thread_id for t in await client.threads.search(metadata={"suite": name})]

    try:
        yield Case("/threads", open_filled, made)
    finally:
        for thread_id in await made():
            await client.threads.delete(thread_id)


CASES = {"assistant": assistant_case, "cron": cron_case, "thread": thread_case}


class Harness(ShellHarness):
    def __init__(self) -> None:
        super().__init__()
        self.dismissed: list[Any] = []  # what each form closed with, in order


def result_id(result: Any) -> str:
    """The id of what a form closed with (a cron names its assistant too)."""
    for field in ("cron_id", "thread_id", "assistant_id"):
        if getattr(result, field, None):
            return str(getattr(result, field))
    raise AssertionError(f"no id in {result!r}")


@pytest.mark.parametrize("form", sorted(CASES))
async def test_saving_twice_quickly_creates_once_and_closes_once_with_it(
    form: str, client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    name = f"twice-{form}-{uuid.uuid4().hex[:6]}"
    async with CASES[form](client, name) as case:
        held = HeldAnswers(case.path)
        async with AgentServerClient(agent_server_url, http_transport=held) as slow:
            app = Harness()
            async with app.run_test(size=SIZE) as pilot:
                screen = await case.open_filled(slow, pilot, wait_for)
                await pilot.press("ctrl+s")
                await wait_for(
                    pilot, lambda: held.answered == 1, what="the first save", workers=False
                )
                assert screen.query_one("#save", Button).disabled  # the user sees it saving
                await pilot.press("ctrl+s")
                held.release()
                await wait_for(pilot, lambda: app.screen is not screen, what="the form to close")
                made = await case.made()
                assert len(made) == 1, f"{len(made)} created by two presses of save"
                assert [result_id(result) for result in app.dismissed] == made
                assert held.answered == 1


async def test_a_save_that_raises_is_reported_and_the_form_can_save_again(
    client: AgentServerClient, monkeypatch: pytest.MonkeyPatch, wait_for: WaitFor
) -> None:
    name = f"raises-{uuid.uuid4().hex[:6]}"
    async with cron_case(client, name) as case:
        real_create = CronsClient.create

        async def explode_once(self: CronsClient, *args: Any, **options: Any) -> Cron:
            monkeypatch.setattr(CronsClient, "create", real_create)
            raise RuntimeError("the save exploded")

        monkeypatch.setattr(CronsClient, "create", explode_once)
        app = Harness()
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            screen = await case.open_filled(client, pilot, wait_for)
            await pilot.press("ctrl+s")
            await toast_saying(pilot, "the save exploded")
            assert app.screen is screen  # still open, with what was typed
            assert screen.query_one("#schedule", Input).value == YEARLY
            assert not screen.query_one("#save", Button).disabled
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: app.screen is not screen, what="the form to close")
            assert [result_id(result) for result in app.dismissed] == await case.made()
            assert len(app.dismissed) == 1
