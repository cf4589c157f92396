"""The graph pane's part of the thread view (`v`): what it draws, and when it redraws.

A part the screen (screen.py) owns, over its `GraphPane` (graph_pane.py). `v` shows the
pane beside the history — instead of it below `NARROW_FOR_GRAPH` columns — with the
graph of the chat's assistant (else the thread's), asked for with `xray` so that its
subgraphs can be expanded in place.

While the pane shows, a timer folds the events the chat received since the last look
(the event inspector records every one, shown or not) into a `LiveRun`
(`graph_drawing/live.py`): the node running now, the ones that ran and when. While a
run goes on — the chat's, or one started elsewhere (the thread is `busy`) — the thread's
state is read every `STATE_EVERY` seconds: its `next` is what runs now when the events
do not say. After a run, the state says where the thread waits (a breakpoint, an
`interrupt()`). The breakpoints drawn are the chat's (`ChatPane.breakpoints`, the ones
the `b` modal edits), and `b` / `B` in the pane toggle them. The checkpoint picked in
the history lights the nodes that wrote it (or, for the input, the ones it runs next).
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Literal

from rich.text import Text
from textual.timer import Timer

from agent_tui.chat.breakpoints import BreakpointNode, BreakpointRefused
from agent_tui.chat.waiting import waiting_of
from agent_tui.client import ApiError
from agent_tui.graph_drawing import is_small
from agent_tui.graph_drawing.live import (
    LiveRun,
    NodeMarks,
    Pause,
    ran_as_drawn,
    running_as_drawn,
)
from agent_tui.threads.timeline import node_seconds, run_id_of
from agent_tui.tui.chat.pane import ChatPane
from agent_tui.tui.screens.thread_view.graph_pane import GraphPane
from agent_tui.tui.screens.thread_view.workers import start
from agent_tui.tui.widgets.text import server_text

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from agent_tui.client import AgentServerClient
    from agent_tui.client.models import Thread, ThreadState
    from agent_tui.threads.history import HistoryRow
    from agent_tui.tui.agent_screen import AgentScreen
    from agent_tui.tui.screens.thread_view.sync import ThreadSync
    from agent_tui.tui.screens.thread_view.timeline_tab import TimelineTab

NARROW_FOR_GRAPH = 200  # columns: below, the graph pane takes the history's place
# (at 160, three panes left the chat 36 columns)
LOOK_EVERY = 0.2  # seconds between looks at the chat's new events
STATE_EVERY = 1.0  # seconds between reads of the thread's state while a run goes on
FOLDED = ("metadata", "updates", "tasks", "debug", "messages", "end", "error")


class LiveGraph:
    def __init__(
        self,
        screen: AgentScreen[None],
        client: AgentServerClient,
        sync: ThreadSync,
        timeline: TimelineTab,
        chat_ready: Callable[[], Awaitable[ChatPane]],
    ) -> None:
        """`chat_ready`: the chat pane, built if it was not (`ChatControls.ready`)."""
        self.screen = screen
        self.chat_ready = chat_ready
        self.client = client
        self.sync = sync
        self.timeline = timeline  # the nodes' times: the Timeline tab's
        self.run = LiveRun()
        self.paused: dict[str, Pause] = {}
        self.step: frozenset[str] = frozenset()
        self.thread_status: str | None = None
        self.graph_of: str | None = ""  # the assistant whose graph is drawn ("": none yet)
        self._seen = 0  # events of the inspector's folded (forgotten ones counted)
        self._breakpoints: tuple[object, ...] = ()
        self._state_read = 0.0
        self._timer: Timer | None = None
        self._hid_history = False
        self._newest: HistoryRow | None = None  # the newest checkpoint looked at

    @property
    def pane(self) -> GraphPane:
        return self.screen.query_one(GraphPane)

    @property
    def chat(self) -> ChatPane:
        return self.screen.query_one(ChatPane)

    @property
    def shown(self) -> bool:
        return bool(self.pane.display)

    async def toggle(self) -> None:
        await self.chat_ready()  # its breakpoints, its runs and their events are drawn
        pane = self.pane
        history = self.screen.query_one("#history")
        self.chat.watching_graph = not pane.display
        self.chat.show_state()  # the next run's modes: `tasks` while the pane shows
        if pane.display:
            pane.display = False
            if self._hid_history:
                history.display, self._hid_history = True, False
            if self._timer is not None:
                self._timer.stop()
                self._timer = None
            (history if history.display else self.chat.prompt).focus()
            return
        await pane.build()  # the first time it shows
        pane.display = True
        if self.screen.size.width < NARROW_FOR_GRAPH and history.display:
            history.display, self._hid_history = False, True
        pane.view.focus()
        self._look()
        self._timer = pane.set_interval(LOOK_EVERY, self._look)
        self.read_state()

    # -- what the screen tells ---------------------------------------------------------

    def thread_shown(self, thread: Thread) -> None:
        self.thread_status = thread.status
        if self.shown:
            self.read_state()

    def run_ended(self) -> None:
        if self.shown:
            self._look()
            self.read_state()

    def row_shown(self, row: HistoryRow) -> None:
        wrote = [node for node in row.writers if node != "__input__"]  # not a node
        self.step = frozenset(wrote or row.next)
        if self.shown:
            self.redraw()

    # -- the events and the state ------------------------------------------------------

    def _look(self) -> None:
        """Fold the chat's new events; redraw when a mark changed; read the state when
        a run goes on and it was not read for a while."""
        assistant_id = self._assistant_id()
        if self.graph_of != assistant_id:
            self.graph_of = assistant_id  # asked once (a failure is said, not retried)
            start(self.screen, "graph-load", self._load_graph, assistant_id)
        inspector = self.chat.inspector
        records = inspector.records
        first = max(0, self._seen - inspector.dropped)
        changed = False
        for record in records[first:]:
            if record.event.split("|", 1)[0] not in FOLDED:
                continue
            try:
                data = json.loads(record.data) if record.data else None
            except ValueError:
                continue
            if self.run.observe(record.event, data, record.elapsed_s):
                changed = True
                if record.event == "metadata":
                    self.paused = {}  # a new run: no longer waiting
        self._seen = inspector.dropped + len(records)
        rows = self.sync.history.rows
        if rows and rows[0] is not self._newest:
            self._newest = rows[0]
            changed = self._ran_from_history(rows) or changed
        breakpoints = self.chat.breakpoints
        key = (tuple(breakpoints.before), tuple(breakpoints.after), breakpoints.stepping)
        if key != self._breakpoints:
            self._breakpoints, changed = key, True
        if self._busy and time.monotonic() - self._state_read > STATE_EVERY:
            self.read_state()
        if changed:
            self.redraw()

    def _ran_from_history(self, rows: list[HistoryRow]) -> bool:
        """The newest run's nodes timed as the Timeline times them (one computation:
        `TimelineTab.steps`), once its checkpoints are in the history; when its events
        did not stream here (a run started elsewhere, or before the view opened), its
        nodes in order from its checkpoints too. A subgraph's nodes keep their times
        from the events (the Timeline has the top graph's steps only). True when the
        marks changed."""
        run_id = run_id_of(rows[0])
        if run_id is None:
            return False
        ours = {row.checkpoint_id for row in rows if run_id_of(row) == run_id}
        seconds = node_seconds(self.timeline.steps(), ours)
        if run_id == self.run.run_id and self.run.ran:
            return self.run.timed(seconds)  # streamed here: the events say the order
        steps = [(row.writers, None) for row in reversed(rows) if row.checkpoint_id in ours]
        self.run.from_checkpoints(run_id, steps)
        self.run.timed(seconds)
        return True

    @property
    def _busy(self) -> bool:
        return self.chat.running or self.thread_status == "busy"

    def read_state(self) -> None:
        self._state_read = time.monotonic()
        start(self.screen, "graph-state", self._read_state)

    async def _read_state(self) -> None:
        try:
            if not self.chat.running:  # a run elsewhere, or none: the thread says
                self.thread_status = (await self.client.threads.get(self.sync.thread_id)).status
            state = await self.client.threads.get_state(self.sync.thread_id, subgraphs=True)
        except ApiError:
            return  # the history pane says what is wrong with the thread
        if self._busy:
            self.paused = {}
            self.run.running_from_state(state.next)
        else:
            self.run.running.clear()
            self.paused = self._paused_at(state)
        self.redraw()

    def _paused_at(self, state: ThreadState) -> dict[str, Pause]:
        breakpoints = self.chat.breakpoints.run_kwargs()
        waiting = waiting_of(
            state, before=breakpoints["interrupt_before"], after=breakpoints["interrupt_after"]
        )
        if waiting.interrupts:
            return {":".join(asked.path): "asks" for asked in waiting.interrupts if asked.path}
        said = self.chat.paused_bar.paused_text  # `paused after agent`: the chat knows
        if said.startswith("paused after ") and waiting.next:
            return {said.removeprefix("paused after "): "after"}
        return dict.fromkeys(waiting.next, "before")

    # -- the graph ---------------------------------------------------------------------

    def _assistant_id(self) -> str | None:
        chosen = self.chat.assistant
        return chosen.assistant_id if chosen is not None else self.sync.assistant_id

    async def _load_graph(self, assistant_id: str | None) -> None:
        if assistant_id is None:
            self.pane.say(Text("No assistant yet: the graph shows once the chat has one."))
            return
        try:
            graph = await self.client.assistants.get_graph(assistant_id, xray=True)
        except ApiError as error:
            self.pane.say(server_text(f"The graph could not be read: {error}"))
            return
        view = self.pane.view
        if view.expanded is None:
            view.expanded = frozenset()  # every subgraph one box, until expanded
        view.show(graph)
        self.redraw()

    @property
    def marks(self) -> NodeMarks:
        breakpoints = self.chat.breakpoints
        return NodeMarks(
            running=frozenset(self.run.running),
            ran=dict(self.run.ran),
            paused=dict(self.paused),
            before=frozenset(breakpoints.before),
            after=frozenset(breakpoints.after),
            step=self.step,
        )

    def redraw(self) -> None:
        marks = self.marks
        view = self.pane.view
        view.marks = marks
        view.redraw()
        self.pane.say(self._status(marks))

    def _status(self, marks: NodeMarks) -> Text:
        text = Text("Graph", style="bold")
        view = self.pane.view
        boxes = view.drawn.boxes
        parts: list[tuple[str, list[str]]] = [
            ("▶ running", running_as_drawn(marks.running, view.expanded, boxes)),
            ("‖ paused before", sorted(n for n, p in marks.paused.items() if p == "before")),
            ("‖ paused after", sorted(n for n, p in marks.paused.items() if p == "after")),
            ("? asks in", sorted(n for n, p in marks.paused.items() if p == "asks")),
            ("● before", sorted(marks.before)),
            ("● after", sorted(marks.after)),
        ]
        if self.chat.breakpoints.stepping:
            parts.append(("● stepping", ["every node"]))
        for label, names in parts:
            if names:
                text.append(f"  {label} ")
                text.append_text(server_text(", ".join(names), style="bold"))
        ran = ran_as_drawn(marks.ran, view.expanded, boxes) if marks.ran else {}
        if ran:  # the boxes' own numbers: the highest is this count
            text.append(f"  ✓ {len(ran)} ran")
        return text

    # -- b / B ---------------------------------------------------------------------------

    def toggle_breakpoint(self, side: Literal["before", "after"]) -> None:
        node = self.pane.view.selected
        if node is None or is_small(node):
            self.screen.notify(
                "Pick a node first (j/k or the arrows), then b or B.",
                title="Breakpoints",
                markup=False,
            )
            return
        chat = self.chat
        subgraph = node.rpartition(":")[0] or None
        try:
            chat.breakpoints.toggle(BreakpointNode(node, subgraph), side)
        except BreakpointRefused as refused:
            self.screen.notify(str(refused), title="Breakpoints", severity="warning", markup=False)
            return
        chat.show_state()  # the chat's state line and the drawing say it: no toast
        self.redraw()
