"""The thread view's chat verbs: cancel, a new thread, the assistant, the stream modes.

A part the screen (screen.py) owns, over the `ChatPane` of the screen's first tab. A view
opened on another tab builds the pane when something first needs it (its tab shown, the
graph pane, `b`, f2…): `chat` builds it, `ready()` waits until its widgets are mounted,
`built` is the pane if it is built (else None).
The keys live on the screen rather than the pane because they must work wherever the
focus is: `ctrl+c` cancels the active run even with the prompt focused (a priority
binding, active only while a run streams — otherwise `ctrl+c` copies as usual). `esc` has
three bindings, tried in order, and the footer names the one that applies: "Drop queued"
while a message waits for the run, "Cancel run" while a run streams, else the screen's
"Back" (`ChatControls.allows` hides the others).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding, BindingType
from textual.widgets import TabbedContent

from agent_tui.chat.assistant import ChatAssistant, complete, only_graph
from agent_tui.client import ApiError
from agent_tui.tui.chat.assistant_picker import AssistantPickerScreen
from agent_tui.tui.chat.pane import ChatPane
from agent_tui.tui.chat.stream_modes import StreamModesScreen, remember_modes, session_modes
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.palette import PaletteCommand
from agent_tui.tui.screens.thread_view.lazy_tabs import ThreadTabs
from agent_tui.tui.screens.thread_view.workers import start

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from agent_tui.client import AgentServerClient
    from agent_tui.tui.agent_screen import AgentScreen
    from agent_tui.tui.chat.event_inspector import EventRecord


# The screen lists these after its own keys, so the footer keeps showing those first;
# the rarer ones are in `?` help and the palette.
CHAT_BINDINGS: list[BindingType] = [
    # The footer shows cancelling as `esc`; ctrl+c is in the state line and `?` help.
    Binding(
        "ctrl+c",
        "cancel_run",
        "Cancel run",
        show=False,
        priority=True,
        id="thread_view.cancel_run",
    ),
    Binding("escape", "drop_queued", "Drop queued", id="thread_view.drop_queued"),
    Binding("escape", "cancel_run", "Cancel run", id="thread_view.esc_cancel_run"),
    Binding("a", "chat", "Chat", id="thread_view.chat"),
    Binding("b", "breakpoints", "Breakpoints", show=False, id="chat.breakpoints"),
    Binding("n,ctrl+n", "new_thread", "New thread", id="thread_view.new_thread"),
    Binding("f2", "inspector", "Events", show=False, id="thread_view.inspector"),
    Binding("f3", "stream_modes", "Stream modes", show=False, id="thread_view.stream_modes"),
    Binding("f4", "pick_assistant", "Assistant", show=False, id="thread_view.pick_assistant"),
    Binding("ctrl+b", "toggle_history", "History pane", show=False, id="thread_view.history"),
    # From the prompt, where letters type: to the checkpoints, and `a` comes back.
    Binding("ctrl+g", "focus_history", "History", id="thread_view.focus_history"),
]


# The actions whose keys depend on the chat's run (`ChatControls.allows`).
RUN_ACTIONS = frozenset({"cancel_run", "drop_queued", "focus_history", "back"})
TAB = "tab-chat"
WIDE_FOR_INSPECTOR = 200  # columns: below, the history pane makes way for the inspector


class ChatControls:
    """The screen-wide chat keys, over the screen's `ChatPane`."""

    def __init__(
        self,
        screen: AgentScreen[None],
        client: AgentServerClient,
        *,
        open_chat: Callable[[str, ChatAssistant], None],
    ) -> None:
        """`open_chat`: the screen's way to show a new thread, ready to chat."""
        self.screen = screen
        self.client = client
        self.open_chat = open_chat
        self._history_made_way = False  # the inspector hid the history pane (it comes back after)

    @property
    def built(self) -> ChatPane | None:
        panes = self.screen.query(ChatPane)
        return panes.first() if panes else None

    @property
    def chat(self) -> ChatPane:
        """The chat pane, built now if it was not (its widgets mount a moment later)."""
        return self.built or self.screen.query_one(ThreadTabs).content(TAB, ChatPane)

    async def ready(self) -> ChatPane:
        """The chat pane, built if it was not, with its widgets mounted."""
        chat = self.chat
        await self.screen.query_one(ThreadTabs).ready(TAB)
        return chat

    def allows(self, action: str) -> bool | None:
        """The screen's `check_action` for the keys a run changes (esc, ctrl+c)."""
        if action not in RUN_ACTIONS:
            # Asked for every binding whenever the footer redraws: no query for the rest.
            return True
        if action == "focus_history":
            histories = self.screen.query("#history")
            return not (histories and histories.first().has_focus)
        chat = self.built if self.screen.is_mounted else None
        if chat is None:  # no chat yet: no run
            return action not in ("cancel_run", "drop_queued")
        if action == "cancel_run":
            # False lets ctrl+c fall through to the focused widget (copy) when idle.
            return chat.running
        if action == "drop_queued":
            # Only a message kept here: one handed to the server is a run there.
            return chat.queued is not None and chat.machine.queued_run_id is None
        if action == "back":
            # esc cancels or drops first; read-only mode cancels nothing, so there esc
            # leaves (the run goes on on the server).
            busy = chat.running or chat.queued is not None
            return not busy or self.screen.agent_app.readonly
        return True

    def cancel_run(self) -> None:
        if self.screen.refuse_if_readonly("cancel a run"):
            return
        chat = self.built  # a run streams in a chat that was built
        if chat is None or not chat.cancel_run():
            self.screen.notify("No run is streaming.", markup=False)

    def drop_queued(self) -> None:
        chat = self.built
        if chat is None or not chat.drop_queued():
            self.screen.notify("No message is queued.", markup=False)

    def focus_prompt(self) -> None:
        tabs = self.screen.query_one(TabbedContent)
        if tabs.active == TAB:
            self.chat.prompt.focus()
        else:
            tabs.active = TAB  # the prompt is focused once the tab shows (`tab_shown`)

    def tab_shown(self) -> None:
        """The Chat tab came into view (built): it loads its transcript on first sight."""
        self.chat.show()
        self.chat.prompt.focus()

    async def toggle_inspector(self) -> None:
        self.screen.query_one(TabbedContent).active = TAB
        chat = await self.ready()
        chat.action_toggle_inspector()
        # The inspector shares the chat's half of the screen: below WIDE_FOR_INSPECTOR
        # columns the history pane makes way while it is open, and comes back after.
        history = self.screen.query_one("#history")
        inspecting = chat.has_class("-inspecting")
        if inspecting and history.display and self.screen.size.width < WIDE_FOR_INSPECTOR:
            history.display = False
            self._history_made_way = True
        elif not inspecting and self._history_made_way:
            history.display = True
            self._history_made_way = False

    def focus_history(self) -> None:
        """To the history pane (shown again if hidden), from wherever the focus is."""
        history = self.screen.query_one("#history")
        history.display = True
        history.focus()

    async def toggle_history(self) -> None:
        history = self.screen.query_one("#history")
        history.display = not history.display
        if not history.display and history.has_focus:
            (await self.ready()).prompt.focus()

    def show_event(self, record: EventRecord) -> None:
        """`enter` on an event of the inspector: the event as raw JSON."""
        title = f"Event {record.event} · id {record.event_id or '—'}"
        self.screen.app.push_screen(RawJsonScreen(record.as_value(), title=title))

    # -- breakpoints (tui/chat/breakpoints.py) --------------------------------------

    async def breakpoints(self, thread_assistant: str | None) -> None:
        """`b`: the breakpoints of the chat's assistant (else the thread's)."""
        chat = await self.ready()
        chosen = chat.assistant
        assistant_id = chosen.assistant_id if chosen is not None else thread_assistant
        if assistant_id is None:
            self.screen.notify(
                "No assistant yet: f4 picks one, then b sets its breakpoints.",
                title="Breakpoints",
                severity="warning",
                markup=False,
            )
            return
        chat.choose_breakpoints(assistant_id)

    # -- stream modes -----------------------------------------------------------------

    def pick_stream_modes(self) -> None:
        app = self.screen.app

        def chosen(modes: tuple[str, ...] | None) -> None:
            if modes:
                remember_modes(app, modes)
                if (chat := self.built) is not None:
                    chat.show_state()  # a chat built later reads them then
                self.screen.notify(f"Stream modes: {', '.join(modes)}", markup=False)

        app.push_screen(StreamModesScreen(session_modes(app)), chosen)

    # -- the assistant ----------------------------------------------------------------

    async def pick_assistant(self) -> None:
        chat = await self.ready()

        def chosen(assistant: ChatAssistant | None) -> None:
            if assistant is not None:
                chat.use_assistant(assistant)

        current = chat.assistant
        picker = AssistantPickerScreen(
            self.client,
            current=current.assistant_id if current else None,
            current_version=current.version if current else None,
            overrides=self.screen.agent_app.context_overrides,
            thread_graph=current.graph_id if current else None,
        )
        self.screen.app.push_screen(picker, chosen)

    # -- a new thread -----------------------------------------------------------------

    def new_thread(self) -> None:
        if self.screen.refuse_if_readonly("create a thread"):
            return
        start(self.screen, "thread-new", self._new_thread)

    async def _new_thread(self) -> None:
        app = self.screen.app
        try:
            assistant = (await self.ready()).assistant or await only_graph(self.client)
            if assistant is None:
                picked = await app.push_screen_wait(
                    AssistantPickerScreen(
                        self.client, overrides=self.screen.agent_app.context_overrides
                    )
                )
                if picked is None:
                    return
                assistant = picked
            assistant = await complete(self.client, assistant)
            thread = await self.client.threads.create(metadata=assistant.thread_metadata())
        except ApiError as error:
            self.screen.report_error(error, doing="create a thread")
            return
        self.screen.notify(
            f"New thread {thread.thread_id} on {assistant.shown}", title="Chat", markup=False
        )
        # The server keeps no `assistant_id` in a new thread's metadata (it sets it from
        # the first run), so the new view is told which assistant to run.
        self.open_chat(thread.thread_id, assistant)

    async def save_events(self) -> None:
        (await self.ready()).action_save_events()

    def palette_commands(self) -> Iterable[PaletteCommand]:
        chat = self.built
        yield PaletteCommand(
            "Chat: focus the prompt", "The Chat tab, ready to type", self.focus_prompt
        )
        yield PaletteCommand(
            "Chat: pick the assistant…", "Which assistant the runs use", self.pick_assistant
        )
        yield PaletteCommand(
            "Chat: breakpoints…",
            "Pause the runs before or after nodes, or step (b)",
            lambda: self.breakpoints(None),
        )
        yield PaletteCommand(
            "Chat: stream modes…",
            "updates, messages-tuple, values, custom, debug",
            self.pick_stream_modes,
        )
        yield PaletteCommand(
            "Chat: new thread", "A new thread on the same assistant", self.new_thread
        )
        yield PaletteCommand(
            "Chat: toggle the event inspector",
            "Every SSE event as received",
            self.toggle_inspector,
        )
        yield PaletteCommand(
            "Save raw events…",
            "The event inspector's events as JSON Lines",
            self.save_events,
        )
        if chat is not None and chat.running:
            yield PaletteCommand("Chat: cancel the run", "Stop it on the server", self.cancel_run)
        if chat is not None and chat.queued is not None:
            yield PaletteCommand(
                "Chat: drop the queued message",
                "It goes back into the prompt",
                self.drop_queued,
            )
        yield PaletteCommand(
            "Toggle the history pane", "More room for the chat", self.toggle_history
        )
