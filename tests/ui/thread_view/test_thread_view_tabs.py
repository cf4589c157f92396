"""The thread view's tabs are built the first time they show: each is drawn for the selected
checkpoint then, whether a click, its key or another key opened it; the chat too, when a key
first needs it."""

from __future__ import annotations

from textual.widgets import Static

from agent_tui.client import AgentServerClient
from agent_tui.tui.chat.pane import ChatPane
from agent_tui.tui.chat.prompt import PromptArea
from agent_tui.tui.screens.thread_view.fork_tree import ForkTree
from tests.support.screen import screen_text
from tests.support.thread_view import SIZE, counter_thread, loaded, view_app
from tests.support.waiting import WaitFor


async def test_a_tab_first_opened_by_a_click_shows_the_selected_checkpoint(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await counter_thread(client)  # steps -1, 0, 1 (inc: n 5 → 6), 2 (dbl)
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        await pilot.press("down")  # step 1
        await wait_for(pilot, lambda: getattr(screen.checkpoint_view.state, "step", None) == 1)

        await pilot.click("#--content-tab-tab-diff")
        await wait_for(pilot, lambda: "~ n: 5 → 6" in screen_text(app), what="the diff")
        assert "+ items: appended 1 item: [5]" in screen_text(app)

        await pilot.click("#--content-tab-tab-tree")
        await wait_for(pilot, lambda: "dbl" in screen_text(app), what="the fork tree")
        tree = screen.query_one(ForkTree)
        selected = screen.history.rows[1].checkpoint_id
        await wait_for(
            pilot,
            lambda: tree.cursor_node is not None and tree.cursor_node.data == selected,
            what="the tree's cursor on the selected checkpoint",
        )

        await pilot.click("#--content-tab-tab-timeline")
        await wait_for(pilot, lambda: "slowest: step" in screen_text(app), what="the timeline")
        assert all(label in screen_text(app) for label in ("__input__", "inc", "dbl"))


async def test_keys_that_open_a_tab_not_built_yet_draw_it_and_act_in_it(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await counter_thread(client)
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        newest, oldest = screen.history.rows[0], screen.history.rows[-1]
        # `m` on step 0 (n = 5), `d` on the newest: the diff against the mark.
        await pilot.press("end", "up", "m", "home", "d")
        await wait_for(
            pilot, lambda: "marked" in screen_text(app), what="the diff against the mark"
        )
        assert "~ n: 5 → 12" in screen_text(app)

        # `t` from the history: the tree, drawn and focused; its arrows and enter work.
        await pilot.press("t")
        await wait_for(pilot, lambda: screen.focused is screen.query_one(ForkTree))
        tree = screen.query_one(ForkTree)
        assert tree.cursor_node is not None and tree.cursor_node.data == newest.checkpoint_id
        await pilot.press("up", "up", "up", "enter")
        await wait_for(
            pilot,
            lambda: screen.checkpoint_view.checkpoint_id == oldest.checkpoint_id,
            what="the jump to the first checkpoint",
        )
        assert screen.selected_row == oldest
        assert screen.tabs.active == "tab-state"


async def test_the_fork_tree_keeps_its_cursor_when_a_run_elsewhere_redraws_it(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await counter_thread(client)
    app, screen = view_app(client, thread.thread_id, status_interval=0.2)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        await pilot.press("t")
        await wait_for(pilot, lambda: screen.focused is screen.query_one(ForkTree))
        tree = screen.query_one(ForkTree)
        await pilot.press("up", "up")  # step 0, while moving in the tree
        chosen = screen.history.rows[2].checkpoint_id
        assert tree.cursor_node is not None and tree.cursor_node.data == chosen
        # Another client runs the thread: the poll brings the new checkpoints into the tree.
        async with client.runs.stream(thread.thread_id, "counter", input={"n": 1}) as run:
            async for _ in run:
                pass
        await wait_for(pilot, lambda: len(screen.history.rows) == 8, what="the new checkpoints")
        newest = screen.history.rows[0].checkpoint_id
        await wait_for(pilot, lambda: tree.node_for(newest) is not None, what="the tree redrawn")
        assert tree.cursor_node is not None and tree.cursor_node.data == chosen


async def test_the_chat_is_built_when_a_key_first_needs_it_and_works_from_then(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    """Opened on the State tab, the view builds no chat; f2 (the event inspector) builds
    it, shows it with the inspector open, and its keys and state line work."""
    thread = await counter_thread(client)
    app, screen = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        assert not screen.query(ChatPane) and screen.tabs.active == "tab-state"
        assert "Cancel run" not in screen_text(app)  # no run: esc goes back
        await pilot.press("f2")
        await wait_for(
            pilot,
            lambda: bool(screen.query(ChatPane)) and screen.chat.has_class("-inspecting"),
            what="the chat with its inspector",
        )
        assert screen.tabs.active == "tab-chat"
        # The state line knows the thread read before the chat was built.
        line = str(screen.chat.query_one("#chat-state", Static).render())
        assert "thread idle" in line and "assistant counter" in line
        await pilot.press("f2")  # and back
        await wait_for(pilot, lambda: not screen.chat.has_class("-inspecting"), what="closed")
        await pilot.press("ctrl+g", "s")  # from the prompt to the history, then its tab
        await wait_for(pilot, lambda: screen.tabs.active == "tab-state", what="the state tab")
        await pilot.press("a")  # the prompt of the chat built before
        await wait_for(pilot, lambda: isinstance(app.focused, PromptArea), what="the prompt")
