"""Which assistant the chat runs: a modal listing the server's assistants.

One row per assistant (`client.assistants.search`): graph, name, short id and the ACTIVE
version (the assistant record's `version` is the one `POST /assistants/{id}/latest`
made active). A graph's default assistant (the one the server made, `created_by:
system`) is marked, and an assistant whose runs carry a context override (the
set-latest bug, `assistant_versions.py`) says so. `enter` answers the assistant as a
`ChatAssistant` (runs follow its active version); `v` / `right` lists its versions
(`assistant_version_picker.py`) to pin one; `esc` answers None.
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

from agent_tui.agent_screen import AgentScreen
from agent_tui.chat.assistant import ChatAssistant
from agent_tui.client import ApiError
from agent_tui.modals.assistant_version_picker import VersionPickerScreen
from agent_tui.widgets.text import server_text
from agent_tui.widgets.worker_failures import ReportsWorkerFailures

if TYPE_CHECKING:
    from agent_tui.assistant_versions import ContextOverrides
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
    ) -> None:
        super().__init__()
        self.client = client
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
            from agent_tui.error_messages import describe_error

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
        if self.overrides is not None and assistant.assistant_id in self.overrides:
            override = self.overrides.get(assistant.assistant_id)
            if override is not None:
                notes.append(f"runs pass v{override.version}'s context")
        version = "—" if assistant.version is None else f"v{assistant.version}"
        return [
            server_text(assistant.graph_id, style="bold"),
            server_text(assistant.name or "—"),
            server_text(assistant.assistant_id[:8], style="dim"),
            Text(version, justify="right"),
            Text(", ".join(notes), style="dim"),
        ]

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if 0 <= event.cursor_row < len(self.assistants):
            self.dismiss(ChatAssistant.of(self.assistants[event.cursor_row]))

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
                self.dismiss(pinned)

        pinned = self.current_version if self.current == assistant.assistant_id else None
        self.app.push_screen(VersionPickerScreen(self.client, assistant, pinned), chosen)

    def action_cancel(self) -> None:
        self.dismiss(None)
