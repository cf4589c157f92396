"""Which assistant the chat runs: a modal listing the server's assistants.

One row per assistant (`client.assistants.search`): graph, name, short id and the ACTIVE
version (the assistant record's `version` is the one `POST /assistants/{id}/latest`
made active). A graph's default assistant (the one the server made, `created_by:
system`) is marked, and an assistant whose runs carry a context override (the
set-latest bug, `assistants/versions.py`) says so. `enter` answers the assistant as a
`ChatAssistant` (runs follow its active version); `v` / `right` lists its versions
(`assistant_version_picker.py`) to pin one; `esc` answers None.

Given the graph the thread runs (`thread_graph`), the assistants of other graphs are
marked "other graph", and picking one asks first: its run writes that graph's state
onto this thread, which the thread's own graph may no longer read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from agent_tui.chat.assistant import ChatAssistant
from agent_tui.client import ApiError
from agent_tui.text.short_ids import short_random_id
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.chat.assistant_version_picker import VersionPickerScreen
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.widgets.text import server_text
from agent_tui.tui.widgets.worker_failures import ReportsWorkerFailures

if TYPE_CHECKING:
    from agent_tui.assistants.context_overrides import ContextOverrides
    from agent_tui.client import AgentServerClient
    from agent_tui.client.models import Assistant

SEARCH_LIMIT = 100  # one page: a server with more assistants than this is rare in a chat


class AssistantPickerScreen(ReportsWorkerFailures, ModalScreen["ChatAssistant | None"]):
    """Pick the assistant to run, or one of its versions; answers a `ChatAssistant`
    (enter, or a version chosen) or None (esc)."""

    DEFAULT_CSS = """
    AssistantPickerScreen { align: center middle; }
    AssistantPickerScreen > Vertical {
        width: 100; height: auto; max-height: 80%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    AssistantPickerScreen .modal-title { text-style: bold; margin-bottom: 1; }
    AssistantPickerScreen .modal-hint { color: $text-muted; margin-top: 1; }
    AssistantPickerScreen DataTable { height: auto; max-height: 20; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *AgentScreen.BINDINGS,
        Binding("escape", "cancel", "Cancel", id="assistant_picker.cancel"),
        Binding("v", "versions", "Versions", id="assistant_picker.versions"),
        # Priority: the table would take `right` to scroll sideways.
        Binding(
            "right", "versions", "Versions", show=False, priority=True, id="assistant_picker.right"
        ),
    ]

    def __init__(
        self,
        client: AgentServerClient,
        *,
        current: str | None = None,
        current_version: int | None = None,
        overrides: ContextOverrides | None = None,
        thread_graph: str | None = None,
    ) -> None:
        super().__init__()
        self.client = client
        self.thread_graph = thread_graph  # the graph the thread has run, if known
        self.current = current  # an assistant id or graph name: its row starts selected
        self.current_version = current_version  # pinned: its row starts selected in `v`
        self.overrides = overrides
        self.assistants: list[Assistant] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Run the chat with which assistant?", classes="modal-title")
            table: DataTable[Text] = DataTable(cursor_type="row", id="assistants")
            table.add_columns("Graph", "Name", "Id", "Active version", "")
            yield table
            yield Static(
                "enter picks (runs follow its active version) · v/→ picks a version · "
                "esc cancels · a graph's default assistant runs its graph as deployed",
                classes="modal-hint",
            )
        yield Footer()

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one("#assistants", DataTable)

    def on_mount(self) -> None:
        self.table.focus()
        self._load()

    @work(exclusive=True, group="assistant-picker", exit_on_error=False)
    async def _load(self) -> None:
        self.table.loading = True
        try:
            found = await self.client.assistants.search(limit=SEARCH_LIMIT)
        except ApiError as error:
            self.table.loading = False
            from agent_tui.client.error_text import describe_error

            title, body = describe_error(error, "list the assistants")
            self.query_one(".modal-title", Static).update(server_text(f"{title}: {body}"))
            return
        self.table.loading = False
        # Graphs together, each graph's default assistant first.
        self.assistants = sorted(
            found, key=lambda a: (a.graph_id, not a.is_default, a.name, a.assistant_id)
        )
        for assistant in self.assistants:
            self.table.add_row(*self._cells(assistant), key=assistant.assistant_id)
        for index, assistant in enumerate(self.assistants):
            if self.current in (
                assistant.assistant_id,
                assistant.graph_id if assistant.is_default else None,
            ):
                self.table.move_cursor(row=index)
                break

    def _cells(self, assistant: Assistant) -> list[Text]:
        notes: list[str] = []
        if assistant.is_default:
            notes.append("graph default")
        if self.thread_graph and assistant.graph_id != self.thread_graph:
            notes.append("other graph")
        if self.overrides is not None and assistant.assistant_id in self.overrides:
            override = self.overrides.get(assistant.assistant_id)
            if override is not None:
                notes.append(f"runs pass v{override.version}'s context")
        version = "—" if assistant.version is None else f"v{assistant.version}"
        return [
            server_text(assistant.graph_id, style="bold"),
            server_text(assistant.name or "—"),
            server_text(short_random_id(assistant.assistant_id), style="dim"),
            Text(version, justify="right"),
            Text(", ".join(notes), style="dim"),
        ]

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if 0 <= event.cursor_row < len(self.assistants):
            self._pick(ChatAssistant.of(self.assistants[event.cursor_row]))

    def _pick(self, picked: ChatAssistant) -> None:
        """Answer `picked`; one of another graph than the thread's only once confirmed."""
        if not self.thread_graph or picked.graph_id in (None, self.thread_graph):
            self.dismiss(picked)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss(picked)

        question = (
            f"This thread runs graph {self.thread_graph!r}; {picked.label} runs graph "
            f"{picked.graph_id!r}.\nIts run writes {picked.graph_id!r}'s state onto this "
            f"thread, which {self.thread_graph!r} may then fail to read.\n\nRun it on this "
            "thread anyway?"
        )
        self.app.push_screen(ConfirmScreen(question, title="Another graph"), answered)

    @property
    def highlighted(self) -> Assistant | None:
        row = self.table.cursor_row
        return self.assistants[row] if 0 <= row < len(self.assistants) else None

    def action_versions(self) -> None:
        assistant = self.highlighted
        if assistant is None:
            return

        def chosen(pinned: ChatAssistant | None) -> None:
            # esc in the versions list comes back here, to pick another assistant.
            if pinned is not None:
                self._pick(pinned)

        pinned = self.current_version if self.current == assistant.assistant_id else None
        self.app.push_screen(VersionPickerScreen(self.client, assistant, pinned), chosen)

    def action_cancel(self) -> None:
        self.dismiss(None)
