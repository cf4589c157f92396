"""Which version of an assistant the chat runs: the second step of the assistant picker.

One row per version (`client.assistants.get_versions`), newest first: its number, when
it was made, which one is active, and a one-line summary of its context. `enter` pins
the version (a `ChatAssistant` whose runs pass that version's context and, where it
differs from the active version's, its config); `esc` / `left` go back to the list of
assistants. The server merges a run's context over the assistant's own, key by key, so
a key that only the active version sets still reaches the graph.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from agent_tui.assistants.versions import one_per_version
from agent_tui.chat.assistant import ChatAssistant
from agent_tui.client import ApiError
from agent_tui.text.sanitize import clean_text
from agent_tui.text.time_text import utc_minutes
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.widgets.text import server_text
from agent_tui.tui.widgets.worker_failures import ReportsWorkerFailures

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient
    from agent_tui.client.models import Assistant, AssistantVersion

VERSIONS_LIMIT = 100  # one page: a chat picks among recent versions
SUMMARY_WIDTH = 56


def context_summary(context: Mapping[str, Any], width: int = SUMMARY_WIDTH) -> str:
    """`style=pirate, token_delay_ms=0`: a context on one line, cleaned, cut to `width`."""
    if not context:
        return "(empty context)"
    parts = []
    for key in sorted(context):
        value = context[key]
        shown = value if isinstance(value, str) else json.dumps(value, default=str)
        parts.append(f"{key}={shown}")
    text = " ".join(clean_text(", ".join(parts)).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def newest_first(versions: list[AssistantVersion]) -> list[AssistantVersion]:
    return sorted(versions, key=lambda version: version.version, reverse=True)


def active_config(assistant: Assistant, versions: list[AssistantVersion]) -> dict[str, Any]:
    """The config runs get without an override: the active version's entry (the versions
    list is right on every server), else the assistant record's."""
    for version in versions:
        if version.version == assistant.version:
            return dict(version.config)
    return dict(assistant.config)


class VersionPickerScreen(ReportsWorkerFailures, ModalScreen["ChatAssistant | None"]):
    """Pin one version of `assistant`; answers the pinned `ChatAssistant` or None (back)."""

    DEFAULT_CSS = """
    VersionPickerScreen { align: center middle; }
    VersionPickerScreen > Vertical {
        width: 110; height: auto; max-height: 80%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    VersionPickerScreen .modal-title { text-style: bold; margin-bottom: 1; }
    VersionPickerScreen .modal-hint { color: $text-muted; margin-top: 1; }
    VersionPickerScreen DataTable { height: auto; max-height: 20; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *AgentScreen.BINDINGS,
        Binding("escape", "back", "Back", id="version_picker.back"),
        # Priority: the table would take `left` to scroll sideways.
        Binding("left", "back", "Back", show=False, priority=True, id="version_picker.left"),
    ]

    def __init__(
        self, client: AgentServerClient, assistant: Assistant, current: int | None = None
    ) -> None:
        super().__init__()
        self.client = client
        self.assistant = assistant
        self.current = current  # the pinned version; else the active one starts selected
        self.versions: list[AssistantVersion] = []

    def compose(self) -> ComposeResult:
        name = self.assistant.name or self.assistant.graph_id
        with Vertical():
            title = Text("Run the chat with which version of ")
            title.append_text(server_text(name, style="bold"))
            title.append("?")
            yield Static(title, classes="modal-title")
            table: DataTable[Text] = DataTable(cursor_type="row", id="versions")
            table.add_columns("Version", "Created", "", "Context")
            yield table
            yield Static(
                "enter runs the chat on this version (its context passed with each run) · "
                "esc/← back to the assistants",
                classes="modal-hint",
            )
        yield Footer()

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one("#versions", DataTable)

    def on_mount(self) -> None:
        self.table.focus()
        self._load()

    @work(exclusive=True, group="version-picker", exit_on_error=False)
    async def _load(self) -> None:
        self.table.loading = True
        try:
            found = await self.client.assistants.get_versions(
                self.assistant.assistant_id, limit=VERSIONS_LIMIT
            )
        except ApiError as error:
            self.table.loading = False
            from agent_tui.client.error_text import describe_error

            title, body = describe_error(error, "list the assistant's versions")
            self.query_one(".modal-title", Static).update(server_text(f"{title}: {body}"))
            return
        self.table.loading = False
        self.versions = newest_first(one_per_version(found))
        # Keyed by position, which stays unique whatever the server lists.
        for index, version in enumerate(self.versions):
            self.table.add_row(*self._cells(version), key=str(index))
        wanted = self.current if self.current is not None else self.assistant.version
        for index, version in enumerate(self.versions):
            if version.version == wanted:
                self.table.move_cursor(row=index)
                break

    def _cells(self, version: AssistantVersion) -> list[Text]:
        active = version.version == self.assistant.version
        summary = context_summary(version.context)
        if version.config != active_config(self.assistant, self.versions):
            summary += " · own config"
        return [
            Text(f"v{version.version}", justify="right"),
            Text(utc_minutes(version.created_at), style="dim"),
            Text("● active", style="bold green") if active else Text(""),
            server_text(summary),
        ]

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if 0 <= event.cursor_row < len(self.versions):
            version = self.versions[event.cursor_row]
            config = active_config(self.assistant, self.versions)
            self.dismiss(ChatAssistant.of_version(self.assistant, version, config))

    def action_back(self) -> None:
        self.dismiss(None)
