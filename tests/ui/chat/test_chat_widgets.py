"""The chat transcript widgets, fed hand-built changes (no server: these test what the
widgets show for a given transcript; the chat pane tests run real runs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Button, Collapsible, Input, Static

from agent_tui.chat.items import (
    Added,
    AIItem,
    Appended,
    Cleared,
    CustomItem,
    ErrorItem,
    HumanItem,
    InterruptItem,
    NodeUpdateItem,
    NoticeItem,
    ToolCall,
    ToolResultItem,
    TranscriptItem,
    Updated,
)
from agent_tui.text.sanitize import clean_text
from agent_tui.tui.chat.ai_block import AIBlock
from agent_tui.tui.chat.blocks import ChatBlock
from agent_tui.tui.chat.interrupt import InterruptBlock
from agent_tui.tui.chat.markdown_text import MarkdownText, drawing_queue
from agent_tui.tui.chat.transcript import TranscriptView
from tests.support.screen import painted_control_codes, screen_text, toast_saying, toasts_shown
from tests.support.waiting import WaitFor

HOSTILE = (
    "[@click=app.quit]q[/] \x1b]8;;file:///etc/passwd\x1b\\x\x1b]8;;\x1b\\ \x1b[2J [bold red]x[/]"
)
HOSTILE_SHOWN = "[@click=app.quit]q[/] x  [bold red]x[/]"


class TranscriptApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.resumed: list[Any] = []
        self.opened: list[str] = []

    def compose(self) -> ComposeResult:
        yield TranscriptView()

    @property
    def transcript(self) -> TranscriptView:
        return self.query_one(TranscriptView)

    def on_interrupt_block_resume(self, message: InterruptBlock.Resume) -> None:
        self.resumed.append(message.value)

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        # Records instead of starting a browser: what the test checks is whether the
        # app would open the link at all.
        self.opened.append(url)


def add(app: TranscriptApp, *items: TranscriptItem) -> None:
    app.transcript.apply(Added(item) for item in items)


async def stream(pilot: Pilot[None], app: TranscriptApp, item: AIItem, tokens: list[str]) -> None:
    """Feed `tokens` as a model would: grow the item in place, report each delta, and
    let the app run now and then (a network stream arrives in bursts)."""
    for index, token in enumerate(tokens):
        item.text += token
        app.transcript.apply([Appended(item, token)])
        if index % 200 == 0:
            await pilot.pause()


def text_of(app: TranscriptApp, key: str) -> MarkdownText:
    block = app.transcript.block(key)
    assert isinstance(block, AIBlock)
    return block.text_view


def source_of(app: TranscriptApp, key: str) -> str | None:
    """The Markdown text AI message `key` shows, once its block is on screen."""
    block = app.transcript.block(key)
    if not isinstance(block, AIBlock) or not block.is_mounted:
        return None
    return block.shown_text


async def test_streamed_tokens_end_with_the_exact_text_in_one_text_widget_written_in_batches(
    wait_for: WaitFor,
) -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        ai = AIItem("m1", node="agent")
        add(app, HumanItem("h1", "count to 2000"), ai)
        tokens = [f"{n} " if n % 50 else f"{n}\n\n" for n in range(2000)]
        await stream(pilot, app, ai, tokens)
        expected = "".join(tokens)
        await wait_for(pilot, lambda: source_of(app, "m1") == expected, what="all tokens")
        assert len(app.query(MarkdownText)) == 1
        assert 1 <= app.transcript.stream_writes <= 40  # 2,000 tokens, a few dozen writes
        await wait_for(pilot, lambda: "1999" in screen_text(app), what="the newest output")


async def test_a_block_added_late_shows_each_token_once(wait_for: WaitFor) -> None:
    app = TranscriptApp()
    async with app.run_test() as pilot:
        ai = AIItem("m1")
        ai.text = "Hello"  # the model mutated the item before the view saw any change
        ai.text += " world"
        app.transcript.apply([Added(ai), Appended(ai, " world")])
        await wait_for(pilot, lambda: source_of(app, "m1") == "Hello world")
        await pilot.pause(0.1)  # one more flush period: nothing else may be written
        assert source_of(app, "m1") == "Hello world"


async def test_the_final_text_replaces_the_streamed_one_and_tool_calls_show(
    wait_for: WaitFor,
) -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        ai = AIItem("m1", node="agent")
        add(app, ai)
        await stream(pilot, app, ai, ["Deploy", "ing", " now"])
        await wait_for(pilot, lambda: source_of(app, "m1") == "Deploying now")
        ai.text = "Deploying **staging** now."
        ai.streaming = False
        ai.tool_calls = [ToolCall("c1", "deploy", {"target": "staging", "dry_run": False})]
        app.transcript.apply([Updated(ai)])
        await wait_for(pilot, lambda: source_of(app, "m1") == "Deploying **staging** now.")
        await pilot.pause()
        shown = screen_text(app)
        assert "Deploying staging now." in shown
        assert 'deploy({"target":"staging","dry_run":false})' in shown
        assert len(app.query(MarkdownText)) == 1


async def test_an_answer_ends_one_line_below_its_text_and_the_next_block_follows(
    wait_for: WaitFor,
) -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        ai = AIItem("m1", node="agent")
        add(app, ai)
        await stream(pilot, app, ai, ["You ", "said: ", "hi"])
        ai.streaming = False
        app.transcript.apply([Updated(ai), Added(HumanItem("h2", "next"))])
        await wait_for(pilot, lambda: source_of(app, "m1") == "You said: hi")
        await pilot.pause()
        block = app.transcript.block("m1")
        assert block is not None
        # The label and the text in the bar, which ends there; one blank line (not in the
        # bar, as below every block), then the next block.
        assert block.outer_size.height == 2
        rows = screen_text(app).splitlines()
        text_row = next(i for i, row in enumerate(rows) if "You said: hi" in row)
        assert rows[text_row + 1].strip() == "" and "you" in rows[text_row + 2]
        # Tool calls that arrive with the final message still get their line.
        ai.tool_calls = [ToolCall("c1", "search", {"q": "hi"})]
        app.transcript.apply([Updated(ai)])
        await wait_for(pilot, lambda: block.outer_size.height == 3, what="the tool call line")
        assert 'search({"q":"hi"})' in screen_text(app)


async def test_a_queued_message_stays_last_until_dropped(wait_for: WaitFor) -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        add(app, HumanItem("h1", "count to 3"))
        app.transcript.show_queued("hello", "queued: sent when this run ends (esc drops it)")
        add(app, AIItem("m1", text="1 2 3", streaming=False))
        app.transcript.apply([Cleared()])  # a reload keeps it too
        add(app, HumanItem("h1", "count to 3"), AIItem("m1", text="1 2 3", streaming=False))
        await pilot.pause()
        queued = app.transcript.queued_block
        assert queued is not None and list(app.transcript.query(ChatBlock))[-1] is queued
        assert "queued" in screen_text(app) and "hello" in screen_text(app)
        app.transcript.drop_queued()
        await pilot.pause()
        assert app.transcript.queued_block is None and "hello" not in screen_text(app)


async def test_every_block_kind_shows_what_a_user_needs(wait_for: WaitFor) -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 50)) as pilot:
        add(
            app,
            HumanItem("h1", "deploy to staging"),
            NodeUpdateItem("n1", "agent", {"messages": [], "approved": None}),
            ToolResultItem("t1", "c1", "deploy", "staging is down", status="error"),
            CustomItem("c1", {"progress": 3}, namespace=("worker:1f0", "step:2a")),
            ErrorItem("e1", "DemoFailure", "the demo failed on purpose", node="agent"),
            NoticeItem("x1", "Run cancelled", severity="warning"),
        )
        await pilot.pause()
        shown = screen_text(app)
        for text in [
            "deploy to staging",
            "agent ▸ messages, approved=null",  # the node update, collapsed
            "tool · deploy error",
            "staging is down",
            "⤷ worker:step",  # the subgraph path, by node names
            '"progress": 3',
            "DemoFailure in agent: the demo failed on purpose",  # type, node, message
            "Run cancelled",
        ]:
            assert text in shown, text
        collapsible = app.query_one(Collapsible)
        assert collapsible.collapsed
        assert '"approved": null' not in shown
        await pilot.click(collapsible.query_one("CollapsibleTitle"))
        await wait_for(pilot, lambda: '"approved": null' in screen_text(app), what="expanded")


async def test_hostile_server_text_shows_literally_and_acts_on_nothing(
    wait_for: WaitFor,
) -> None:
    app = TranscriptApp()
    async with app.run_test(size=(120, 40)) as pilot:
        ai = AIItem("m1", node=HOSTILE)
        add(
            app,
            HumanItem("h1", HOSTILE),
            ToolResultItem("t1", "c1", HOSTILE, HOSTILE),
            ErrorItem("e1", HOSTILE, HOSTILE),
            NoticeItem("x1", HOSTILE),
            CustomItem("c1", HOSTILE),
            NodeUpdateItem("n1", HOSTILE, {HOSTILE: HOSTILE}),
            ai,
        )
        await stream(pilot, app, ai, list(HOSTILE))  # escape sequences split across tokens
        await wait_for(pilot, lambda: len(source_of(app, "m1") or "") > 0)
        await pilot.pause(0.1)
        shown = screen_text(app)
        assert painted_control_codes(app) == []
        assert shown.count(HOSTILE_SHOWN) >= 5
        assert "file:///etc/passwd" not in shown
        assert "[@click=app.quit]q[/]" in shown  # the AI Markdown too, literally
        for static in app.query(Static):
            if static.region.area:
                await pilot.click(static)
        await pilot.click(text_of(app, "m1"))
        await pilot.pause()
        assert app.is_running and app.opened == []


async def test_only_http_links_open_and_only_when_the_user_confirms(wait_for: WaitFor) -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        # markdown-it already drops javascript: and file: links (they show as text);
        # other schemes and paths reach the view, which refuses them.
        links = [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "/etc/passwd",
            "ssh://example.com/x",
            "https://example.com/docs",
        ]
        for index, href in enumerate(links):
            add(app, AIItem(f"m{index}", text=f"[link]({href})", streaming=False))
        await pilot.pause()

        async def click_link(key: str) -> None:
            await pilot.click(text_of(app, key), offset=(1, 0))  # on "link"
            await pilot.pause()

        for key in ["m0", "m1", "m2", "m3"]:
            await click_link(key)
        assert app.opened == []
        refusals = await toasts_shown(pilot, 2)
        assert any("'/etc/passwd'" in m and "only http(s)" in m for m in refusals)
        assert any("ssh://example.com/x" in m and "only http(s)" in m for m in refusals)
        await pilot.press("o")  # nothing is pending: a refused link cannot be opened
        assert app.opened == []

        await click_link("m4")
        assert app.opened == []  # not without asking
        await toast_saying(pilot, "Press o")
        assert app.transcript.has_focus  # the click focused the transcript: `o` works
        await pilot.press("o")
        assert app.opened == ["https://example.com/docs"]


async def test_view_follows_new_output_until_the_user_scrolls_up(wait_for: WaitFor) -> None:
    app = TranscriptApp()
    async with app.run_test(size=(80, 12)) as pilot:
        view = app.transcript
        view.focus()
        add(app, *(NoticeItem(f"n{i}", f"line {i}") for i in range(30)))
        await wait_for(pilot, lambda: view.max_scroll_y > 0 and view.scroll_y == view.max_scroll_y)
        assert "line 29" in screen_text(app)
        assert not view.marker.has_class("visible")

        await pilot.press("home")
        await wait_for(pilot, lambda: view.scroll_y == 0, what="scrolled to the top")
        add(app, *(NoticeItem(f"m{i}", f"more {i}") for i in range(10)))
        await pilot.pause()
        await pilot.pause()
        assert view.scroll_y == 0  # did not jump
        assert view.marker.has_class("visible")
        assert "new output below ↓ (end)" in screen_text(app)

        await pilot.press("end")
        await wait_for(pilot, lambda: view.scroll_y == view.max_scroll_y, what="the end")
        assert view.following and not view.marker.has_class("visible")
        add(app, NoticeItem("last", "the newest line"))
        await wait_for(pilot, lambda: "the newest line" in screen_text(app), what="followed")

        await pilot.press("home")
        add(app, NoticeItem("later", "later line"))
        await wait_for(pilot, lambda: view.marker.has_class("visible"), what="the marker")
        await pilot.click(view.marker)
        await wait_for(pilot, lambda: "later line" in screen_text(app), what="marker click")
        assert view.following


async def test_interrupt_resumes_with_text_or_json_and_shows_the_answer_once_answered(
    wait_for: WaitFor,
) -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        value = {"action": "deploy", "target": "staging", "question": "Deploy to staging? (yes/no)"}
        item = InterruptItem("i1", value, interrupt_id="abc")
        add(app, item)
        await pilot.pause()
        assert "Deploy to staging? (yes/no)" in screen_text(app)
        block = app.query_one(InterruptBlock)

        await pilot.click(block.answer_input)
        await pilot.press("enter")  # empty: nothing is sent
        await pilot.press(*"yes", "enter")
        await wait_for(pilot, lambda: len(app.resumed) == 1)
        assert app.resumed == ["yes"]

        block.answer_input.value = '{"approved": true}'
        await pilot.click(block.query_one(Button))
        await wait_for(pilot, lambda: len(app.resumed) == 2)
        assert app.resumed[1] == {"approved": True}

        item.answered, item.answer, item.answer_known = True, {"approved": True}, True
        app.transcript.apply([Updated(item)])
        # The form goes; what was sent stays, read-only.
        await wait_for(pilot, lambda: not app.query_one(InterruptBlock).query(Button))
        assert 'answered: {"approved":true}' in screen_text(app)
        assert not app.query_one(InterruptBlock).query(Input)

        # Answered earlier (a reloaded thread): the answer itself is not known.
        again = InterruptItem("i2", "Go on?", answered=True)
        add(app, again)
        await wait_for(pilot, lambda: len(app.query(InterruptBlock)) == 2)
        await pilot.pause()
        assert "answered:" not in str(
            app.query(InterruptBlock)[1].query_one(".resume-answer").render()
        )


async def test_cleared_removes_every_block_and_streams_start_again(wait_for: WaitFor) -> None:
    app = TranscriptApp()
    async with app.run_test() as pilot:
        ai = AIItem("m1")
        add(app, HumanItem("h1", "hi"), ai)
        await stream(pilot, app, ai, ["partial"])
        app.transcript.apply([Cleared()])
        await pilot.pause()
        assert app.transcript.blocks == [] and len(app.query(AIBlock)) == 0
        # Only the blocks go: "new output below" can still be shown after a reload.
        assert app.transcript.marker.is_mounted
        again = AIItem("m1", text="fresh", streaming=False)
        add(app, again)
        await wait_for(pilot, lambda: source_of(app, "m1") == "fresh")
        assert len(app.query(Input)) == 0 and len(app.query(MarkdownText)) == 1


async def click_on_text(pilot: Pilot[None], words: str) -> None:
    """Click where the screen shows `words` (on its first character)."""
    rows = screen_text(pilot.app).splitlines()
    y = next(y for y, row in enumerate(rows) if words in row)
    await pilot.click(offset=(rows[y].index(words), y))


async def test_a_long_answer_keeps_few_widgets_and_still_shows_all_of_it(
    wait_for: WaitFor,
) -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        ai = AIItem("m1", node="agent")
        add(app, ai)
        await pilot.pause()
        widgets = len(app.screen.query("*"))
        tokens = [f"p{n} " if n % 10 else f"\n\np{n} " for n in range(1500)]
        tokens[5] = "see [the docs](https://example.com/docs) "
        tokens[15] = HOSTILE + " "
        tokens[1495] = "and [the end](https://example.com/end) "
        counts = []
        for start in range(0, 1500, 100):
            await stream(pilot, app, ai, tokens[start : start + 100])
            counts.append(len(app.screen.query("*")))
        expected = clean_text("".join(tokens))
        await wait_for(pilot, lambda: source_of(app, "m1") == expected, what="all tokens")
        # 150 paragraphs, and the same widgets as for one: no widget per paragraph.
        assert counts == [widgets] * len(counts)
        await wait_for(pilot, lambda: "p1490" in screen_text(app), what="the newest text")

        # A link at the end asks before opening.
        await click_on_text(pilot, "the end")
        await toast_saying(pilot, "Open https://example.com/end? Press o")

        app.transcript.scroll_home(animate=False)
        await wait_for(pilot, lambda: "p1 p2 p3" in screen_text(app), what="the top")
        assert "[@click=app.quit]q[/]" in screen_text(app) and painted_control_codes(app) == []
        await click_on_text(pilot, "the docs")  # drawn long ago: still a link
        await toast_saying(pilot, "Open https://example.com/docs? Press o")

        ai.text = "Short final answer."
        ai.streaming = False
        app.transcript.apply([Updated(ai)])
        await wait_for(pilot, lambda: source_of(app, "m1") == "Short final answer.")
        await pilot.pause()
        assert text_of(app, "m1").line_count == 1
        assert "Short final answer." in screen_text(app) and "p1 p2" not in screen_text(app)


async def test_a_streamed_answer_draws_its_markdown(wait_for: WaitFor) -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 60)) as pilot:
        ai = AIItem("m1", node="agent")
        add(app, ai)
        answer = (
            "## Plan\n\nFirst **build**, then `deploy`:\n\n- build the image\n- push it\n\n"
            "1. staging\n2. production\n\n```python\ndef deploy(target):\n"
            "    return target\n```\n\n> quoted advice\n\n| env | url |\n| --- | --- |\n"
            "| staging | s.example |\n\nDone."
        )
        await stream(pilot, app, ai, [answer[i : i + 3] for i in range(0, len(answer), 3)])
        await wait_for(pilot, lambda: source_of(app, "m1") == answer, what="all of it")
        await pilot.pause()
        rows = [row.strip(" ▊▍▌█▐") for row in screen_text(app).splitlines()]
        shown = "\n".join(rows)
        assert "Plan" in shown and "## Plan" not in shown  # a heading, not its marks
        assert "First build, then deploy:" in shown  # no ** or ` marks
        assert "• build the image" in shown and "• push it" in shown
        assert "1 staging" in shown and "2 production" in shown
        assert "def deploy(target):" in shown and "```" not in shown
        assert "quoted advice" in shown and "> quoted" not in shown
        assert "staging" in shown and "s.example" in shown and "| --- |" not in shown
        assert rows.index("Done.") > rows.index("def deploy(target):")


async def test_a_long_message_loaded_whole_shows_all_of_it_in_one_text_widget(
    wait_for: WaitFor,
) -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        text = "\n\n".join(f"paragraph {n} of the loaded answer" for n in range(2_000))
        add(app, AIItem("m1", text=text, streaming=False))
        # Its 2,000 blocks drawn first, read cheaply: reading the screen (a picture of it)
        # at every check made each turn of the loop long, so the drawing took its
        # smallest slices, and under load the end did not come within a minute.
        await wait_for(pilot, lambda: text_of(app, "m1").caught_up, what="every block drawn")
        await wait_for(pilot, lambda: "paragraph 1999" in screen_text(app), what="the end")
        view = text_of(app, "m1")
        assert view.text == text and view.line_count == 2 * 2_000 - 1
        assert view.steps > 1  # drawn in steps, the loop free between them
        assert len(app.query(MarkdownText)) == 1 and not view.children
        app.transcript.scroll_home(animate=False)
        await wait_for(pilot, lambda: "paragraph 0 of" in screen_text(app), what="the top")


async def test_a_long_history_loaded_at_once_is_drawn_in_turns_and_shows_every_message(
    wait_for: WaitFor,
) -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        items = [
            AIItem(f"m{m}", text="\n\n".join(f"m{m} p{n} says hello" for n in range(60)))
            for m in range(12)
        ]
        add(app, *(item for item in items))
        queue = drawing_queue(app)
        await wait_for(
            pilot,
            lambda: [source_of(app, item.key) for item in items] == [item.text for item in items],
            what="every message drawn",
        )
        # 720 paragraphs: never drawn in one go (each turn of the loop draws a few ms).
        assert queue.turns > 10
        await wait_for(pilot, lambda: "m11 p59" in screen_text(app), what="the last message")
        app.transcript.scroll_home(animate=False)
        await wait_for(pilot, lambda: "m0 p0 says hello" in screen_text(app), what="the top")


def test_transcript_with_one_block_of_each_kind_snapshot(snap_compare: Callable[..., bool]) -> None:
    async def one_of_each(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, TranscriptApp)
        answer = AIItem(
            "m1",
            text="I will deploy **staging** first.\n\n- build\n- `deploy`",
            node="agent",
            tool_calls=[ToolCall("c1", "deploy", {"target": "staging"})],
            streaming=False,
        )
        add(
            app,
            HumanItem("h1", "deploy to staging, then ask me"),
            NodeUpdateItem("n1", "agent", {"messages": [], "approved": None}),
            answer,
            ToolResultItem("t1", "c1", "deploy", "staging is up"),
            ToolResultItem("t2", "c2", "rollback", "no such release", status="error"),
            CustomItem("c1", {"progress": 3}, namespace=("worker:1f0",)),
            InterruptItem(
                "i1",
                {"action": "deploy", "target": "prod", "question": "Deploy to prod? (yes/no)"},
            ),
            ErrorItem("e1", "DemoFailure", "the demo failed on purpose", node="agent"),
            NoticeItem("x1", "Run cancelled", severity="warning"),
        )
        await pilot.pause()
        await pilot.pause()
        app.transcript.scroll_home(animate=False)
        await pilot.pause()

    assert snap_compare(TranscriptApp(), terminal_size=(90, 52), run_before=one_of_each)
