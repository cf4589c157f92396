"""The chat pane under a flood: 20,000 tokens streamed as fast as the server can send them.

    uv run python benchmarks/chat_render.py                 # 20,000 tokens, each scenario once
    uv run python benchmarks/chat_render.py --tokens 5000   # a shorter look
    uv run python benchmarks/chat_render.py --quick         # 2,000 tokens, checked (seconds)
    uv run python benchmarks/chat_render.py --busy-core --tuned-only  # one core spinning beside it;
                                                            # only the app's collector settings

The `tokens` graph (`benchmarks/graphs/`) has a fake chat model that streams `"w<i> "` tokens
with no pause, through the real embedded langgraph-api server (messages-tuple mode, a
resumable run). The same run goes through four stacks, side by side:

- wire: `RunDriver` alone (HTTP, SSE parsing, typed events, replay bookkeeping);
- engine: `ChatSession` = `RunDriver` + `ChatTranscript` (+ the final reconcile);
- app, no widget: the engine in a worker of a headless Textual app (Pilot), nothing drawn;
- app + TranscriptView: the same, feeding `tui.chat.transcript.TranscriptView`, which
  hands the text to one `MarkdownText` widget (batched writes), and letting the loop go
  as the chat pane does between events (`tui.turn_budget`) — what the chat pane does.

Figures: tokens/s from the run request until the last token is applied (for the widget:
until it shows the whole answer), whether the final text equals the sent text,
and the app's response to a key press during the stream: a thread presses f12 every 25 ms
(posting the key into the app's loop as a terminal driver does) and the time until the
bound action runs is recorded (median and 99th percentile).

Checked (exit status 1 if not): every stack delivers every token, and the text it holds (for
a widget: the text it shows) is exactly the text the model sent; every key pressed was
answered. Every wait has a deadline. The apps are the app shell (`ShellApp`), as the test
harnesses are: the chat pane asks the app for what the app contract promises.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import statistics
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Literal

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.pilot import Pilot
from textual.widgets import Static

from agent_tui.chat.assistant import ChatAssistant
from agent_tui.chat.driver_events import DriverEvent, Finished, Received
from agent_tui.chat.items import TERMINAL_RUN_STATES
from agent_tui.chat.run_driver import RunDriver
from agent_tui.chat.run_request import RunRequest
from agent_tui.chat.session import ChatSession, Step
from agent_tui.client import AgentServerClient
from agent_tui.client.events import MessagesEvent
from agent_tui.local import EmbeddedAgentServer
from agent_tui.tui.chat.ai_block import AIBlock
from agent_tui.tui.chat.pane import ChatPane
from agent_tui.tui.chat.transcript import TranscriptView
from agent_tui.tui.gc_tuning import streaming, tune_for_streaming
from agent_tui.tui.shell import ShellApp
from agent_tui.tui.turn_budget import TurnBudget

GRAPHS = Path(__file__).parent / "graphs" / "langgraph.json"
sys.path.insert(0, str(GRAPHS.parent))
from tokens import answer  # noqa: E402  (the graph module: the text its model sends)

from benchkit import add_options, arm, busy_core, check, until  # noqa: E402

KEY_INTERVAL = 0.025
QUICK_TOKENS = 2_000
STEP_TIMEOUT = 300.0  # seconds one stack may take to stream and show the whole answer
DEFAULT_GC_THRESHOLDS = gc.get_threshold()


@dataclass
class Result:
    name: str
    tokens: int = 0
    seconds: float = 0.0
    exact: bool = False
    key_ms: list[float] = field(default_factory=list)
    note: str = ""
    keys_pressed: int | None = None  # None: no keys pressed (not in an app)

    def row(self) -> str:
        rate = self.tokens / self.seconds if self.seconds else 0.0
        keys = ""
        if self.key_ms:
            ordered = sorted(self.key_ms)
            p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
            keys = (
                f"{statistics.median(ordered):8.1f} {p99:8.1f} {max(ordered):8.1f} {len(ordered):5}"
            )
        exact = "yes" if self.exact else "NO"
        return (
            f"  {self.name:<34}{self.tokens:>7} {self.seconds:8.2f} {rate:9,.0f}   {exact:<5}{keys}"
        )


def new_token(event: DriverEvent | None) -> str:
    """The text of a new (not replayed) token event; "" for anything else (the final
    chunk of a message is empty: not a token)."""
    if isinstance(event, Received) and not event.duplicate:
        inner = event.event
        if isinstance(inner, MessagesEvent):
            return inner.text
    return ""


def ask() -> dict[str, object]:
    return {"messages": [{"role": "user", "content": "flood"}]}


async def new_thread(client: AgentServerClient) -> str:
    thread = await client.threads.create(metadata={"graph_id": "tokens", "benchmark": "chat"})
    return thread.thread_id


@dataclass
class Source:
    """Where the tokens come from: a live run, or the replay of a finished one."""

    count: int
    replay: tuple[str, str] | None = None  # (thread id, run id) of a finished run

    async def events(self, driver: RunDriver) -> AsyncIterator[DriverEvent]:
        if self.replay is None:
            return driver.stream(RunRequest("tokens", input=ask(), context={"tokens": self.count}))
        return driver.join(self.replay[1])

    async def steps(self, session: ChatSession) -> AsyncIterator[Step]:
        if self.replay is None:
            return session.send(RunRequest("tokens", context={"tokens": self.count}), "flood")
        return session.join(self.replay[1])

    async def thread(self, client: AgentServerClient) -> str:
        return self.replay[0] if self.replay else await new_thread(client)


async def wire(client: AgentServerClient, source: Source) -> tuple[Result, tuple[str, str]]:
    driver = RunDriver(client, await source.thread(client))
    parts: list[str] = []
    started = time.perf_counter()
    async for event in await source.events(driver):
        if text := new_token(event):
            parts.append(text)
        elif isinstance(event, Finished):
            assert event.state == "done", event
    seconds = time.perf_counter() - started
    exact = "".join(parts) == answer(source.count)
    assert driver.run_id is not None
    return Result("wire (RunDriver)", len(parts), seconds, exact), (driver.thread_id, driver.run_id)


async def engine(client: AgentServerClient, source: Source) -> Result:
    session = ChatSession(client, await source.thread(client))
    started = time.perf_counter()
    tokens = 0
    async for event, _ in await source.steps(session):
        tokens += bool(new_token(event))
    seconds = time.perf_counter() - started
    exact = session.transcript.ai_texts()[-1:] == [answer(source.count)]
    return Result("engine (ChatSession)", tokens, seconds, exact)


Stack = Literal["none", "view", "pane"]
STACK_NAMES: dict[Stack, str] = {
    "none": "app, no widget",
    "view": "app + TranscriptView",
    "pane": "thread view's ChatPane",
}


class ChatBench(ShellApp):
    """A headless app that streams a run into a transcript, with a cheap key binding.

    `none`: the session in a worker, nothing drawn; `view`: the same feeding a
    `TranscriptView`; `pane`: the thread view's `ChatPane` (transcript, event inspector,
    state line, prompt) sending the message itself, as a user does. An agent-tui app
    (`ShellApp`): the pane and its widgets ask the app for its client, read-only mode…
    """

    # priority: the chat pane's prompt has the focus and would take a plain letter.
    BINDINGS: ClassVar[list[BindingType]] = [Binding("f12", "ping", "Ping", priority=True)]

    def __init__(
        self, client: AgentServerClient, source: Source, thread_id: str, stack: Stack
    ) -> None:
        super().__init__()
        self.client = client  # what the app contract offers the pane (`AgentServerClient | None`)
        self.server = client  # the same, for this app's own use
        self.source = source
        self.thread_id = thread_id
        self.stack = stack
        self.pressed: deque[float] = deque()
        self.presses = 0
        self.key_ms: list[float] = []
        self.tokens = 0
        self.started = 0.0
        self.finished_at: float | None = None
        self.session: ChatSession | None = None
        self.assistant_id: str | None = None  # the pane's assistant (its context: the count)
        self.tuned_gc = False

    def compose(self) -> ComposeResult:
        if self.stack == "view":
            yield TranscriptView()
        elif self.stack == "pane":
            yield ChatPane(self.server, self.thread_id)
        else:
            yield Static("streaming without a transcript widget")

    async def on_event(self, event: events.Event) -> None:
        # A key that arrives while the app closes (no screen left) is not for anyone:
        # Textual would raise ScreenStackError looking for the screen to give it to.
        if isinstance(event, events.Key) and not self.screen_stack:
            return
        await super().on_event(event)

    def action_ping(self) -> None:
        if self.pressed:
            self.key_ms.append((time.perf_counter() - self.pressed.popleft()) * 1000)

    @work(exclusive=True, group="stream")
    async def stream(self) -> None:
        self.session = ChatSession(self.server, self.thread_id)
        view = self.query_one(TranscriptView) if self.stack == "view" else None
        budget = TurnBudget()
        self.started = time.perf_counter()
        # The chat pane holds full collections back while it streams: so does this
        # stack when the collector is tuned as the app tunes it.
        with streaming() if self.tuned_gc else contextlib.nullcontext():
            async for event, changes in await self.source.steps(self.session):
                self.tokens += bool(new_token(event))
                if view is not None:
                    if budget.spent():  # as the chat pane's run does (`tui.chat.run`)
                        await budget.yield_turn()
                    view.apply(changes)
        self.finished_at = time.perf_counter()

    async def start(self, pilot: Pilot[None]) -> None:
        if self.stack != "pane":
            self.stream()
            return
        pane = self.query_one(ChatPane)
        # The (empty) thread's transcript loaded.
        await asyncio.wait_for(self.workers.wait_for_complete(), STEP_TIMEOUT)
        await pilot.pause()
        assert self.assistant_id is not None
        # As if picked with f4 (langgraph-api drops `assistant_id` from thread metadata).
        pane.use_assistant(ChatAssistant(self.assistant_id, "tokens", "tokens"))
        self.started = time.perf_counter()
        pane.send("flood")

    def check_finished(self) -> None:
        if self.stack == "pane" and self.finished_at is None:
            pane = self.query_one(ChatPane)
            if not pane.machine.active and pane.run_state in TERMINAL_RUN_STATES:
                self.finished_at = time.perf_counter()
                self.session = pane.session
                text = "".join(pane.session.transcript.ai_texts())
                self.tokens = text.count("w")

    def rendered_text(self) -> str | None:
        if self.stack == "none":
            return None
        blocks = [b for b in self.query(AIBlock) if isinstance(b, AIBlock)]
        return blocks[-1].shown_text if blocks else ""


def press_keys(app: ChatBench, loop: asyncio.AbstractEventLoop, stop: threading.Event) -> None:
    """Press f12 every KEY_INTERVAL from another thread, as a terminal's input thread does."""
    while not stop.wait(KEY_INTERVAL):
        app.pressed.append(time.perf_counter())
        app.presses += 1
        loop.call_soon_threadsafe(app.post_message, events.Key("f12", None))


def set_gc(tuned: bool) -> None:
    """The app's collector settings (`gc_tuning`, as `agent-tui` applies them once
    connected), or CPython's defaults."""
    if tuned:
        tune_for_streaming()
    else:
        gc.unfreeze()
        gc.set_threshold(*DEFAULT_GC_THRESHOLDS)


async def in_app(
    client: AgentServerClient, source: Source, stack: Stack, *, tuned_gc: bool = False
) -> Result:
    set_gc(tuned_gc)
    thread_id = await source.thread(client)
    app = ChatBench(client, source, thread_id, stack)
    app.tuned_gc = tuned_gc
    if stack == "pane":
        # The pane runs an assistant whose context sets the count.
        assistant = await client.assistants.create("tokens", context={"tokens": source.count})
        app.assistant_id = assistant.assistant_id
    expected = answer(source.count)
    drawn = stack != "none"
    async with app.run_test(size=(120, 40)) as pilot:
        stop = threading.Event()
        presser = threading.Thread(
            target=press_keys, args=(app, asyncio.get_running_loop(), stop), daemon=True
        )
        await app.start(pilot)
        presser.start()
        name = STACK_NAMES[stack] + (", gc tuned" if tuned_gc else "")

        def shown() -> bool:
            # What the user would see; the poll's interval only bounds how late we notice.
            app.check_finished()
            if app.finished_at is None:
                return False
            late = time.perf_counter() - app.finished_at > 30
            return late or not drawn or app.rendered_text() == expected

        try:
            await until(shown, f"{name}: the run to end and its answer shown", STEP_TIMEOUT)
        finally:
            stop.set()
            presser.join()
        done = time.perf_counter()
        # Keys still queued count too (the slowest ones): wait for their answers.
        while app.pressed and time.perf_counter() - done < 10:  # noqa: ASYNC110 (bounded)
            await asyncio.sleep(0.005)
        await pilot.pause()
        assert app.session is not None and app.finished_at is not None
        if drawn:
            exact = app.rendered_text() == expected
        else:
            exact = app.session.transcript.ai_texts()[-1:] == [expected]
        seconds = (done if drawn else app.finished_at) - app.started
        note = f"keys pressed {app.presses}, answered {len(app.key_ms)}"
        if drawn:
            block = list(app.query(AIBlock))[-1]
            note += (
                f"; text writes {block.stream_writes}, drawing steps {block.text_view.steps},"
                f" lines at the end {block.text_view.line_count},"
                f" widgets on the screen {len(app.screen.query('*'))}"
            )
        return Result(name, app.tokens, seconds, exact, app.key_ms, note, app.presses)


async def bench(url: str, count: int, *, tuned_only: bool = False) -> list[Result]:
    async with AgentServerClient(url) as client:
        info = await client.info()
        print(f"server: langgraph-api {info.version}, {url}")
        await wire(client, Source(200))  # warm up: graph import, first run
        live_wire, run = await wire(client, Source(count))
        tunings = (True,) if tuned_only else (False, True)
        live = [live_wire]
        for stack in ("view", "pane"):
            for tuned in tunings:
                live.append(await in_app(client, Source(count), stack, tuned_gc=tuned))
        # The finished run again, replayed by the server from its store (`join_stream`
        # with Last-Event-ID -1): as fast as the server can send, ~6x a live run.
        replay = Source(count, run)
        replayed = [
            (await wire(client, replay))[0],
            await engine(client, replay),
            await in_app(client, replay, "none"),
        ]
        for tuned in tunings:
            replayed.append(await in_app(client, replay, "view", tuned_gc=tuned))
    header = (
        f"  {'stack':<34}{'tokens':>7} {'seconds':>8} {'tokens/s':>9}   {'exact':<5}"
        f"{'key p50':>8} {'key p99':>8} {'key max':>8} {'keys':>5}"
    )
    print(
        f"\nkey: f12 (a priority binding to a no-op action) pressed every {KEY_INTERVAL * 1000:.0f} ms; key times in ms"
    )
    for title, results in (("live run", live), ("replay of the finished run", replayed)):
        print(f"\n{title}: {count:,} tokens")
        print(header)
        for result in results:
            print(result.row())
        for result in results:
            if result.note:
                print(f"  {result.name}: {result.note}")
    return live + replayed


def check_results(results: list[Result], count: int) -> None:
    """Every stack got every token, the exact text, and an answer to every key."""
    for result in results:
        check(result.tokens == count, f"{result.name}: {result.tokens} tokens, not {count}")
        check(result.exact, f"{result.name}: the text is not exactly what the model sent")
        if result.keys_pressed is not None:
            check(
                len(result.key_ms) == result.keys_pressed,
                f"{result.name}: {result.keys_pressed} keys pressed, {len(result.key_ms)} answered",
            )
    print(f"\nchecked: {len(results)} stacks, each with all {count:,} tokens, exact, keys answered")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument(
        "--busy-core", action="store_true", help="a child process spins on one core meanwhile"
    )
    parser.add_argument(
        "--tuned-only",
        action="store_true",
        help="the widget stacks only with the app's collector settings (gc tuned)",
    )
    add_options(parser, quick=150, full=1800)
    args = parser.parse_args()
    arm(args)
    count = QUICK_TOKENS if args.quick else args.tokens
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        with (
            EmbeddedAgentServer(GRAPHS, data_dir=data, log_file=data / "server.log") as server,
            busy_core(args.busy_core),
        ):
            results = asyncio.run(bench(server.url, count, tuned_only=args.tuned_only))
    check_results(results, count)


if __name__ == "__main__":
    main()
