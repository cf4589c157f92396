"""The chat pane in the thread view against the real agent server: opening, sending,
streaming, the assistant in use, a new thread, refusing a second send."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
from textual.widgets import TabbedContent

from agent_tui.client import AgentServerClient
from agent_tui.client.models import Assistant
from agent_tui.text.short_ids import short_thread_id
from agent_tui.tui.chat.assistant_picker import AssistantPickerScreen
from agent_tui.tui.chat.double_text_modal import DoubleTextScreen
from agent_tui.tui.chat.pane import ChatPane
from agent_tui.tui.chat.prompt import PromptArea
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from tests.support.chat import (
    SIZE,
    ai_texts,
    chat_app,
    chat_assistant,
    chat_thread,
    ended,
    final_messages,
    humans,
    mounted_pane,
    pane_of,
    shown_ai_texts,
    state_line,
    tool_results,
    type_and_send,
)
from tests.support.screen import footer_keys, painted_control_codes, screen_text
from tests.support.shell import ShellHarness
from tests.support.snapshots import steady_cursors
from tests.support.threads import HOSTILE, SHOWN, hostile_thread
from tests.support.waiting import WaitFor, screen_shown


async def test_thread_route_opens_the_chat_ready_to_type_with_the_thread_messages(
    client: AgentServerClient, fast_chat: Assistant, wait_for: WaitFor
) -> None:
    thread = await chat_thread(client, fast_chat)
    async with client.runs.stream(
        thread.thread_id,
        fast_chat.assistant_id,
        input={"messages": [{"role": "user", "content": "hello there"}]},
    ) as run:
        async for _ in run:
            pass
    app = ShellHarness()
    app.client = client
    async with app.run_test(size=SIZE) as pilot:
        assert await app.run_command(f"thread {thread.thread_id}")
        await screen_shown(pilot, ThreadViewScreen, what="the view")
        screen = app.screen
        assert isinstance(screen, ThreadViewScreen)
        pane = pane_of(app)
        await wait_for(pilot, lambda: ai_texts(pane) == ["You said: hello there"])
        assert screen.query_one(TabbedContent).active == "tab-chat"
        assert isinstance(app.focused, PromptArea)
        assert humans(pane) == ["hello there"]
        # The state line names the thread status and the thread's assistant.
        await wait_for(pilot, lambda: fast_chat.assistant_id[:8] in state_line(pane))
        assert "thread idle" in state_line(pane)


async def test_enter_streams_the_answer_token_by_token_and_the_final_text_is_exact(
    client: AgentServerClient, fast_chat: Assistant, wait_for: WaitFor
) -> None:
    thread = await chat_thread(client, fast_chat)
    app, screen = chat_app(client, thread.thread_id, fast_chat)
    expected = " ".join(str(i) for i in range(1, 301))
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: pane.run_state == "idle" and screen.thread is not None)
        await type_and_send(pilot, pane, "count to 300")
        # The message shows at once; the prompt empties once the server took the run.
        await wait_for(pilot, lambda: humans(pane) == ["count to 300"], workers=False)
        seen: list[str] = []

        def grown() -> bool:
            texts = ai_texts(pane)
            if texts:
                seen.append(texts[-1])
            return ended(pane)

        await wait_for(pilot, grown, what="the run to end", workers=False)
        assert pane.prompt.text == ""
        assert pane.run_state == "done" and "done" in state_line(pane)
        assert ai_texts(pane) == [expected]
        await wait_for(pilot, lambda: shown_ai_texts(pane) == [expected], what="the text shown")
        # Tokens arrived in order: every partial text is the start of the final one.
        assert all(expected.startswith(text) for text in seen)
        # The transcript is what the thread holds, and the history pane shows the run.
        assert await final_messages(client, thread.thread_id) == [
            ("human", "count to 300"),
            ("ai", expected),
        ]
        await wait_for(pilot, lambda: len(screen.history.rows) > 0, what="the history refresh")
        assert pane.prompt.input_history == ["count to 300"]


async def test_a_tool_call_and_its_result_are_shown(
    client: AgentServerClient, fast_chat: Assistant, wait_for: WaitFor
) -> None:
    thread = await chat_thread(client, fast_chat)
    app, _ = chat_app(client, thread.thread_id, fast_chat)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await type_and_send(pilot, pane, "weather in Paris")
        await wait_for(pilot, lambda: ended(pane), what="the run to end")
        calls = [call for item in pane.model.items for call in getattr(item, "tool_calls", [])]
        assert [(call.name, call.args) for call in calls] == [("get_weather", {"city": "Paris"})]
        results = tool_results(pane)
        assert [(r.name, r.content) for r in results] == [
            ("get_weather", "It is windy and 13 C in Paris.")
        ]
        assert ai_texts(pane)[-1] == "It is windy and 13 C in Paris."
        # Each has its block on screen: the call's message, the result, the answer.
        assert all(pane.transcript.block(r.key) is not None for r in results)
        assert shown_ai_texts(pane)[-1] == "It is windy and 13 C in Paris."


async def test_sending_while_a_run_streams_asks_how_and_keeps_the_draft(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    slow = await chat_assistant(client, token_delay_ms=5)
    thread = await chat_thread(client, slow)
    app, _ = chat_app(client, thread.thread_id, slow)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await type_and_send(pilot, pane, "count to 400")
        await wait_for(pilot, lambda: bool(ai_texts(pane)), what="tokens", workers=False)
        await type_and_send(pilot, pane, "hello again")
        # Not sent: asked how (double texting, see test_chat_queue.py), the draft kept.
        await wait_for(
            pilot, lambda: isinstance(app.screen, DoubleTextScreen), what="how", workers=False
        )
        assert pane.prompt.text == "hello again"
        assert humans(pane) == ["count to 400"]
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: not isinstance(app.screen, DoubleTextScreen), what="back", workers=False
        )
        assert pane.prompt.text == "hello again"
        pane.cancel_run()
        await wait_for(pilot, lambda: ended(pane), what="the cancel")


async def test_the_picker_lists_active_versions_and_the_run_uses_the_choice(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    pirate = await client.assistants.create(
        "chat", context={"token_delay_ms": 0}, name="pirate picker"
    )
    # Version 2 talks like a pirate; it is the active one.
    pirate = await client.assistants.update(
        pirate.assistant_id, {"token_delay_ms": 0, "style": "pirate"}
    )
    assert pirate.version == 2
    thread = await client.threads.create(metadata={})  # names no assistant
    app, screen = chat_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: screen.thread is not None)
        assert "none yet" in state_line(pane)
        await pilot.press("f4")
        picker = app.screen
        assert isinstance(picker, AssistantPickerScreen)
        await wait_for(pilot, lambda: bool(picker.assistants), what="the assistants")
        row = next(i for i, a in enumerate(picker.assistants) if a.name == "pirate picker")
        cells = [str(cell) for cell in picker.table.get_row_at(row)]
        assert cells[:4] == ["chat", "pirate picker", pirate.assistant_id[:8], "v2"]
        picker.table.move_cursor(row=row)
        await pilot.press("enter")
        assert app.screen is screen
        assert pirate.assistant_id[:8] in state_line(pane)
        await type_and_send(pilot, pane, "ahoy")
        await wait_for(pilot, lambda: ended(pane), what="the run to end")
        assert ai_texts(pane) == ["Arr! You said: ahoy"]


async def test_n_starts_a_new_thread_on_the_same_assistant(
    client: AgentServerClient, fast_chat: Assistant, wait_for: WaitFor
) -> None:
    thread = await chat_thread(client, fast_chat)
    app, screen = chat_app(client, thread.thread_id, fast_chat)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: screen.thread is not None and not screen.pane.loading)
        screen.pane.focus()  # `n` types into the prompt when it has the focus
        await pilot.press("n")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ThreadViewScreen) and app.screen is not screen,
            what="the new thread's view",
        )
        fresh = app.screen
        assert isinstance(fresh, ThreadViewScreen) and fresh.thread_id != thread.thread_id
        # A new view composes its widgets a moment after it is the active screen.
        await mounted_pane(app, pilot, wait_for)
        await wait_for(pilot, lambda: isinstance(app.focused, PromptArea), what="the prompt")
        # The breadcrumb names the new thread (the old view's exit must not clear it).
        assert app.selection.thread == short_thread_id(fresh.thread_id)
        created = await client.threads.get(fresh.thread_id)
        assert created.metadata["graph_id"] == "chat"
        pane = pane_of(app)
        assert pane.assistant is not None
        assert pane.assistant.assistant_id == fast_chat.assistant_id
        await type_and_send(pilot, pane, "first words")
        await wait_for(pilot, lambda: ended(pane), what="the run to end")
        assert ai_texts(pane) == ["You said: first words"]
        # The run was the chosen assistant's: the server records it on the thread.
        created = await client.threads.get(fresh.thread_id)
        assert created.metadata["assistant_id"] == fast_chat.assistant_id


async def test_the_keys_of_the_chat_are_in_the_footer_and_the_palette(
    client: AgentServerClient, fast_chat: Assistant, wait_for: WaitFor
) -> None:
    thread = await chat_thread(client, fast_chat)
    app, screen = chat_app(client, thread.thread_id, fast_chat)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: screen.thread is not None and not screen.pane.loading)
        assert isinstance(app.focused, PromptArea)
        shown = {key: b.binding.description for key, b in app.active_bindings.items()}
        assert shown["enter"] == "Send" and shown["ctrl+j"] == "Newline"
        # From the prompt, where `n` types a letter, ctrl+n starts a new thread.
        await wait_for(pilot, lambda: footer_keys(app).get("^n") == "New thread")
        assert "n" not in footer_keys(app)
        screen.pane.focus()
        await wait_for(pilot, lambda: footer_keys(app).get("n") == "New thread")
        assert "ctrl+c" not in shown or shown["ctrl+c"] != "Cancel run"  # no run: ctrl+c copies
        names = [command.name for command in screen.palette_commands()]
        for name in ("Save raw events…", "Chat: pick the assistant…", "Chat: stream modes…"):
            assert name in names
        # ctrl+b hides the history pane for room, and brings it back.
        await pilot.press("ctrl+b")
        assert not screen.pane.display
        await pilot.press("ctrl+b")
        assert screen.pane.display
        # From the prompt, ctrl+g (in the footer) goes to the checkpoints, shown again if
        # hidden; `a` comes back to the prompt.
        screen.chat_controls.chat.prompt.focus()
        await wait_for(pilot, lambda: footer_keys(app).get("^g") == "History")
        await pilot.press("ctrl+b", "ctrl+g")
        await wait_for(pilot, lambda: app.focused is screen.pane, what="the history focused")
        assert screen.pane.display and screen.tabs.active == "tab-chat"
        await wait_for(pilot, lambda: "^g" not in footer_keys(app), what="no ctrl+g there")
        await pilot.press("a")
        assert isinstance(app.focused, PromptArea)
        # The State tab (from the palette, the prompt focused): the keys go to the
        # history again; then `a`: back to the chat, ready to type.
        screen.action_state()
        await pilot.pause()
        assert screen.tabs.active == "tab-state"
        assert app.focused is screen.pane
        await pilot.press("a")
        assert screen.tabs.active == "tab-chat" and isinstance(app.focused, PromptArea)


async def test_hostile_server_text_in_the_picker_and_the_chat_is_shown_inertly(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    hostile = await client.assistants.create("chat", context={"token_delay_ms": 0}, name=HOSTILE)
    thread = await hostile_thread(client, "chat-pane")
    app, screen = chat_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: len(humans(pane)) == 1, what="the thread's messages")
        assert humans(pane) == [f"hello {HOSTILE}"]
        await pilot.press("f4")
        picker = app.screen
        assert isinstance(picker, AssistantPickerScreen)
        await wait_for(pilot, lambda: bool(picker.assistants), what="the assistants")
        row = next(i for i, a in enumerate(picker.assistants) if a.name == HOSTILE)
        picker.table.move_cursor(row=row)
        await pilot.pause()
        assert painted_control_codes(app) == []
        await pilot.press("enter")
        assert app.screen is screen and app.is_running  # no markup action ran
        await pilot.pause()
        assert SHOWN in screen_text(app)
        assert painted_control_codes(app) == []
        assert pane.assistant is not None and pane.assistant.assistant_id == hostile.assistant_id


SNAP_THREAD = "1f0c6a00-0000-7000-8000-00000000cafe"
SNAP_MESSAGES = [
    {"type": "human", "content": "weather in Paris", "id": "m1"},
    {
        "type": "ai",
        "content": "",
        "id": "m2",
        "tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}],
    },
    {
        "type": "tool",
        "content": "It is windy and 13 C in Paris.",
        "id": "m3",
        "tool_call_id": "c1",
        "name": "get_weather",
    },
    {"type": "ai", "content": "It is windy and 13 C in Paris.", "id": "m4"},
    {"type": "human", "content": "deploy to staging", "id": "m5"},
    {
        "type": "ai",
        "content": "",
        "id": "m6",
        "tool_calls": [{"name": "deploy", "args": {"target": "staging"}, "id": "c2"}],
    },
]


def snapshot_server() -> httpx.MockTransport:
    """A thread waiting for approval, as a fixed fake server answers (stable run to run)."""

    def answer(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        question = {"action": "deploy", "target": "staging", "question": "Deploy to staging?"}
        if path == f"/threads/{SNAP_THREAD}":
            return httpx.Response(
                200,
                json={
                    "thread_id": SNAP_THREAD,
                    "status": "interrupted",
                    "metadata": {"graph_id": "chat"},
                    "values": {"messages": SNAP_MESSAGES},
                    "interrupts": {"t1": [{"value": question, "id": "i1"}]},
                },
            )
        if path.endswith("/history"):
            return httpx.Response(200, json=[])
        return httpx.Response(404, json={"detail": "Not Found"})

    return httpx.MockTransport(answer)


def test_chat_tab_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    client = AgentServerClient("http://agent.test", http_transport=snapshot_server())
    screen = ThreadViewScreen(client, SNAP_THREAD, chat=True, status_interval=0)
    app = ShellHarness(screen)
    app.client = client

    async def run_before(pilot: Any) -> None:
        # The thread and its messages loaded, and nothing left loading.
        await wait_for(
            pilot,
            lambda: (
                screen.thread is not None
                and humans(pane_of(app)) == ["weather in Paris", "deploy to staging"]
                and all(worker.is_finished for worker in app.workers)
            ),
            what="the chat",
        )
        await pilot.press("ctrl+b")  # the history pane hidden: the chat has the width
        steady_cursors(app)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 36), run_before=run_before)


async def test_opened_from_the_threads_list_the_chat_loads_when_first_shown(
    client: AgentServerClient, fast_chat: Assistant, wait_for: WaitFor
) -> None:
    thread = await chat_thread(client, fast_chat)
    async with client.runs.stream(
        thread.thread_id,
        fast_chat.assistant_id,
        input={"messages": [{"role": "user", "content": "hi"}]},
    ) as run:
        async for _ in run:
            pass
    screen = ThreadViewScreen(client, thread.thread_id, status_interval=0)  # as `enter` opens it
    app = ShellHarness(screen)
    app.client = client
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: screen.thread is not None and not screen.pane.loading)
        assert screen.tabs.active == "tab-state" and app.focused is screen.pane
        # Nothing built, nothing loaded for a tab nobody looks at.
        assert not screen.query(ChatPane)
        await pilot.press("a")
        await wait_for(pilot, lambda: bool(screen.query(ChatPane)), what="the chat pane")
        pane = pane_of(app)
        await wait_for(pilot, lambda: ai_texts(pane) == ["You said: hi"], what="the chat")
        assert isinstance(app.focused, PromptArea)
        assert "Chat" in screen_text(app) and "You said: hi" in screen_text(app)


async def test_an_empty_chat_says_how_to_start_and_what_the_assistant_does(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant = await client.assistants.create(
        "chat",
        context={"token_delay_ms": 0},
        name="echo bot",
        description=f"Echoes what you say. {HOSTILE}",
    )
    thread = await chat_thread(client, assistant)
    app, _ = chat_app(client, thread.thread_id, assistant)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: "Echoes what you say." in screen_text(app), what="the hint")
        shown = " ".join(screen_text(app).split())
        assert "No messages yet. Type below; enter sends it to echo bot" in shown
        assert painted_control_codes(app) == []
        await type_and_send(pilot, pane, "hi")
        await wait_for(pilot, lambda: ended(pane), what="the run")
        await pilot.pause()
        assert "No messages yet" not in screen_text(app)
        assert "Echoes what you say." not in screen_text(app)

    # A thread with messages opens on them, never on the hint.
    app, _ = chat_app(client, thread.thread_id, assistant)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: pane.shown_loaded and humans(pane) == ["hi"])
        await pilot.pause()
        assert "No messages yet" not in screen_text(app)


async def test_an_80_column_terminal_shows_the_chat_and_ctrl_b_the_history(
    client: AgentServerClient, fast_chat: Assistant, wait_for: WaitFor
) -> None:
    thread = await chat_thread(client, fast_chat)
    app, view = chat_app(client, thread.thread_id, fast_chat)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: pane.shown_loaded, what="the chat")
        history = view.query_one("#history")
        assert not history.display and pane.prompt.has_focus
        assert pane.prompt.region.width >= 70  # the chat has the width
        await type_and_send(pilot, pane, "hi")
        await wait_for(pilot, lambda: ended(pane), what="the run")
        # Drawn a moment after the run's end (under load the screen was read before).
        await wait_for(pilot, lambda: "You said: hi" in screen_text(app), what="the answer")
        await pilot.press("ctrl+b")
        await pilot.pause()
        # Both panes share the width: the history never squeezes the chat out.
        assert history.display and 0 < history.region.width <= 48
        assert pane.prompt.region.width >= 28

    # Opened on the history (from the threads list): both panes.
    app, view = chat_app(client, thread.thread_id, fast_chat)
    view.open_on_chat = False
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert view.query_one("#history").region.width <= 48
        assert view.query_one("#thread-tabs").region.width >= 30
