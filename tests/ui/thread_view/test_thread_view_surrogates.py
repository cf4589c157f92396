"""A state holding lone surrogates (what JSON's `"\\ud800"` decodes to) in a key and a
value: the raw JSON of the checkpoint opens, showing U+FFFD, and `c` copies JSON that
gives them back exactly. `y` used to end the app (`UnicodeEncodeError: surrogates not
allowed`: pydantic cannot write such a key in `model_dump(mode="json")`).

The real server stores a surrogate a graph writes as `?` and refuses one in a
superstep: `OddServer` answers as `fake_api` does, with one in every checkpoint's values.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from agent_tui.client import AgentServerClient
from agent_tui.tui.modals.raw_json import RawJsonScreen
from tests.support.fake_api import good_answer
from tests.support.fixed_servers import THREAD_ID
from tests.support.odd_server import Answer, OddServer, Request
from tests.support.screen import screen_text
from tests.support.thread_view import SIZE, loaded, view_app
from tests.support.waiting import WaitFor

KEY, NOTE = "note\udc00", "before\ud800after"


def with_a_surrogate(request: Request) -> Answer:
    good = good_answer(request)
    if not request.path.endswith("/history"):
        return good
    states: list[dict[str, Any]] = json.loads(good.body)
    for state in states:
        state["values"] = {**state["values"], KEY: {KEY: NOTE}}
    # As a server writes it: the surrogate as its `\ud800` escape (ensure_ascii).
    return Answer(json.dumps(states).encode())


@pytest.fixture
def server() -> Iterator[OddServer]:
    with OddServer() as odd:
        odd.answer = with_a_surrogate
        yield odd


async def test_raw_json_of_a_state_holding_a_lone_surrogate_shows_and_copies_it(
    server: OddServer, wait_for: WaitFor
) -> None:
    async with AgentServerClient(server.url) as client:
        app, screen = view_app(client, THREAD_ID, status_interval=0)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: loaded(screen), what="the thread view")
            await pilot.press("y")
            await wait_for(
                pilot, lambda: isinstance(app.screen, RawJsonScreen), what="the raw JSON"
            )
            await wait_for(
                pilot,
                lambda: '"note\ufffd": "before\ufffdafter"' in screen_text(app),
                what="the note",
            )
            await pilot.press("c")
            copied = app.clipboard
            assert '"note\\udc00": "before\\ud800after"' in copied
            assert json.loads(copied)["values"][KEY] == {KEY: NOTE}  # exactly
            copied.encode("utf-8")  # what the terminal is sent for the clipboard
            assert app.is_running
