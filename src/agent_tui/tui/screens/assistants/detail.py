"""One assistant: its context, metadata and description, and its versions.

Moving through the versions list shows the highlighted version's context diffed
against the active version's (green added, red removed, yellow changed). `a` makes the
highlighted version active, then checks that the server really switched the context:
the in-memory runtime of `langgraph dev` does not (docs/server-quirks.md). On a mismatch the screen
says so and the app records the version's context, so every run agent-tui starts with
this assistant passes it (`assistants.context_overrides.ContextOverrides`). `c` opens a
chat in a new thread with the highlighted version (pinned when it is not the active one).

Dismisses with True when something changed (the list then reloads).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Footer, Static

from agent_tui.assistants.versions import (
    VersionCheck,
    one_per_version,
    remember,
    set_active_version,
    version_check,
)
from agent_tui.chat.assistant import ChatAssistant
from agent_tui.client import AgentServerClient, ApiError
from agent_tui.client.models import Assistant, AssistantVersion
from agent_tui.text.context_diff import context_diff
from agent_tui.text.time_text import Clock, now_utc, time_ago, updated_text
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.new_chat import chat_in_new_thread
from agent_tui.tui.screens.assistants.form import AssistantFormScreen
from agent_tui.tui.screens.assistants.graph import AssistantGraphScreen
from agent_tui.tui.widgets.breadcrumb import Breadcrumb
from agent_tui.tui.widgets.json_view import JsonView
from agent_tui.tui.widgets.text import server_line, server_text

_VERSION_PAGE = 100
_VERSION_PAGES = 10

DIFF_STYLES = {"added": "green", "removed": "red", "changed": "yellow"}


def diff_text(active: AssistantVersion, other: AssistantVersion) -> Text:
    """`other`'s context against the active one's, one coloured line per change."""
    if other.version == active.version:
        return Text(f"Version {active.version} is the active version.", style="italic")
    text = Text()
    text.append(f"Version {other.version} against the active version {active.version}:\n")
    changes = context_diff(active.context, other.context)
    if not changes:
        text.append("the same context.", style="italic")
    for change in changes:
        text.append_text(server_text(f"{change}\n", style=DIFF_STYLES[change.kind]))
    text.rstrip()
    return text


class AssistantDetailScreen(AgentScreen[bool]):
    HELP_TITLE = "assistant"
    AUTO_FOCUS = "#versions"
    DEFAULT_CSS = """
    AssistantDetailScreen #detail-summary { height: auto; padding: 0 1; }
    AssistantDetailScreen #version-warning {
        height: auto; padding: 0 1; margin: 0 1; border: tall $warning; color: $warning;
        display: none;
    }
    AssistantDetailScreen #version-warning.-shown { display: block; }
    AssistantDetailScreen #detail-body { height: 1fr; }
    AssistantDetailScreen #detail-left, AssistantDetailScreen #detail-right {
        width: 1fr; height: 1fr; padding: 0 1;
    }
    AssistantDetailScreen .section { text-style: bold; margin-top: 1; }
    AssistantDetailScreen JsonView { height: auto; max-height: 20; }
    AssistantDetailScreen #versions { height: auto; max-height: 12; }
    AssistantDetailScreen #version-diff { height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "activate", "Make active", id="assistant_detail.activate"),
        Binding("c", "chat", "Chat", id="assistant_detail.chat"),
        Binding("e", "edit", "Edit", id="assistant_detail.edit"),
        Binding("v", "graph", "Graph", id="assistant_detail.graph"),
        Binding("ctrl+d", "delete", "Delete", id="assistant_detail.delete"),
        Binding("y", "raw", "JSON", id="assistant_detail.raw"),
        Binding("r", "refresh", "Refresh", id="assistant_detail.refresh"),
        Binding("escape", "back", "Back", id="assistant_detail.back"),
    ]

    def __init__(
        self,
        client: AgentServerClient,
        assistant: Assistant,
        *,
        graphs: Mapping[str, str] | None = None,
        clock: Clock = now_utc,
    ) -> None:
        super().__init__()
        self.clock = clock
        self.client = client
        self.assistant = assistant
        self.graphs = dict(graphs or {})
        self.versions: list[AssistantVersion] = []
        self.active: AssistantVersion | None = None
        self.check: VersionCheck | None = None
        self.changed = False

    def compose(self) -> ComposeResult:
        yield Breadcrumb()
        yield Static(id="detail-summary")
        yield Static(id="version-warning")
        with Horizontal(id="detail-body"):
            with VerticalScroll(id="detail-left"):
                yield Static("Context", classes="section", id="context-title")
                yield JsonView({}, id="detail-context")
                yield Static("Metadata", classes="section")
                yield JsonView({}, id="detail-metadata")
            with Vertical(id="detail-right"):
                yield Static(
                    "Versions  (highlighted: a make active · c chat)",
                    classes="section",
                )
                table: DataTable[Text] = DataTable(id="versions", cursor_type="row")
                yield table
                yield Static("Diff against the active version", classes="section")
                with VerticalScroll():
                    yield Static(id="version-diff")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#versions", DataTable)
        table.add_column("Version", key="version")
        table.add_column("Name", key="name")
        table.add_column("Created", key="created")
        table.add_column("", key="active")
        table.focus()
        self._select_assistant()
        self._show_summary()
        self.load()

    # The breadcrumb names the assistant only while this screen is open: it is closed by
    # `esc`, by a delete and by jumps (`:info`, `:deployments`) that pop it unseen.
    def on_screen_resume(self) -> None:
        self._select_assistant()

    def on_unmount(self) -> None:
        selection = self.agent_app.selection
        if selection.assistant == self._shown_name:
            selection.update(assistant=None)

    @property
    def _shown_name(self) -> str:
        return self.assistant.name or self.assistant.assistant_id

    def _select_assistant(self) -> None:
        self.agent_app.selection.update(assistant=self._shown_name)

    # -- loading ----------------------------------------------------------------------

    def load(self) -> None:
        self.query_one("#versions", DataTable).loading = True
        self._load()

    @work(exclusive=True, group="assistant-detail", exit_on_error=False)
    async def _load(self) -> None:
        table = self.query_one("#versions", DataTable)
        assistant_id = self.assistant.assistant_id
        try:
            assistant = await self.client.assistants.get(assistant_id)
            versions: list[AssistantVersion] = []
            for page in range(_VERSION_PAGES):
                batch = await self.client.assistants.get_versions(
                    assistant_id, limit=_VERSION_PAGE, offset=page * _VERSION_PAGE
                )
                versions.extend(batch)
                if len(batch) < _VERSION_PAGE:
                    break
        except ApiError as error:
            self.report_error(error, doing="load the assistant")
            return
        finally:
            table.loading = False
        self.assistant = assistant
        self._select_assistant()  # renamed meanwhile: the breadcrumb follows
        self.versions = one_per_version(versions)
        self.active = next((v for v in self.versions if v.version == assistant.version), None)
        if self.active is not None:
            self.check = version_check(assistant, self.active)
            remember(self.check, self.agent_app.context_overrides)
        self._show_summary()
        self._show_versions()
        self._show_warning()

    def _show_summary(self) -> None:
        a = self.assistant
        text = server_line(a.name or "(no name)", style="bold")
        text.append("  ")
        text.append_text(server_text(a.assistant_id, style="dim"))
        if a.is_default:
            text.append("  the graph's default assistant", style="italic")
        text.append("\ngraph ", style="dim")
        text.append_text(server_text(a.graph_id, style="bold"))
        text.append("   active version ", style="dim")
        text.append(str(a.version or "?"), style="bold")
        text.append("   updated ", style="dim")
        text.append_text(updated_text(a.updated_at, self._now()))
        if a.description:
            text.append("\n")
            text.append_text(server_text(a.description, style="italic"))
        self.query_one("#detail-summary", Static).update(text)
        context = self.active.context if self.active is not None else a.context
        self.query_one("#detail-context", JsonView).update(context)
        self.query_one("#detail-metadata", JsonView).update(a.metadata)
        title = f"Context (version {self.active.version})" if self.active else "Context"
        self.query_one("#context-title", Static).update(title)

    def _now(self) -> datetime:
        return self.clock()

    def _show_versions(self) -> None:
        table = self.query_one("#versions", DataTable)
        highlighted = self.highlighted_version
        table.clear()
        now = self._now()
        # Rows are keyed by position, which stays unique whatever the server lists.
        for index, version in enumerate(self.versions):
            is_active = version is self.active
            table.add_row(
                Text(str(version.version), justify="right"),
                server_text(version.name or "—"),
                Text(time_ago(version.created_at, now)),
                Text("● active", style="bold green") if is_active else Text(""),
                key=str(index),
            )
        wanted = highlighted or self.active
        row = next(
            (i for i, v in enumerate(self.versions) if wanted is not None and _same(v, wanted)),
            None,
        )
        if row is not None:
            table.move_cursor(row=row)
        self._show_diff()

    def _show_warning(self) -> None:
        widget = self.query_one("#version-warning", Static)
        check = self.check
        shown = check is not None and check.mismatch
        widget.update(server_text(check.warning()) if check and shown else "")
        widget.set_class(shown, "-shown")

    @property
    def highlighted_version(self) -> AssistantVersion | None:
        """The version record under the cursor."""
        table = self.query_one("#versions", DataTable)
        if not table.row_count:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        except Exception:  # the cursor is outside the rows (mid-clear)
            return None
        index = int(key) if key is not None and key.isdigit() else -1
        return self.versions[index] if 0 <= index < len(self.versions) else None

    @on(DataTable.RowHighlighted, "#versions")
    def _show_diff(self) -> None:
        version, active = self.highlighted_version, self.active
        widget = self.query_one("#version-diff", Static)
        if version is None or active is None:
            widget.update("")
            return
        widget.update(diff_text(active, version))

    # -- verbs ------------------------------------------------------------------------

    def action_activate(self) -> None:
        version = self.highlighted_version
        if version is None:
            return
        if (
            self.active is not None
            and version.version == self.active.version
            and not (self.check and self.check.mismatch)
        ):
            self.notify(f"Version {version.version} is already active", markup=False)
            return
        if self.refuse_if_readonly("set the active version"):
            return
        self._activate(version.version)

    @work(exclusive=True, group="assistant-activate", exit_on_error=False)
    async def _activate(self, version: int) -> None:
        overrides = self.agent_app.context_overrides
        try:
            check = await set_active_version(
                self.client, self.assistant.assistant_id, version, overrides
            )
        except ApiError as error:
            self.report_error(error, doing=f"make version {version} active")
            return
        self.changed = True
        self.check = check
        self._show_warning()
        if check.mismatch:
            self.notify(
                check.warning(),
                title="Version switched; context not",
                severity="warning",
                timeout=20,
                markup=False,
            )
        else:
            self.notify(f"Version {version} is now active", markup=False)
        self.load()

    def action_chat(self) -> None:
        """`c`: a new thread open on its chat, with the highlighted version: pinned to it
        (its context and config passed with each run) when it is not the active one."""
        if self.refuse_if_readonly("create a thread to chat in"):
            return
        version, active = self.highlighted_version, self.active
        if version is None or active is None or version.version == active.version:
            chosen = ChatAssistant.of(self.assistant)
        else:
            chosen = ChatAssistant.of_version(self.assistant, version, active.config)
        self._chat(chosen)

    @work(exclusive=True, group="assistant-chat", exit_on_error=False)
    async def _chat(self, assistant: ChatAssistant) -> None:
        await chat_in_new_thread(self, self.client, assistant)

    def action_edit(self) -> None:
        if self.refuse_if_readonly("edit an assistant"):
            return
        if self.active is None:
            self.notify("Still loading the versions", markup=False)
            return
        form = AssistantFormScreen(self.client, assistant=self.active, context=self.active.context)
        self.app.push_screen(form, self._saved)

    def _saved(self, assistant: Assistant | None) -> None:
        if assistant is not None:
            self.agent_app.context_overrides.forget(assistant.assistant_id)
            self.changed = True
            self.notify(f"Saved version {assistant.version}", markup=False)
            self.load()

    def action_delete(self) -> None:
        if self.refuse_if_readonly("delete an assistant"):
            return
        a = self.assistant
        default = "\nIt is the graph's default assistant." if a.is_default else ""
        question = f"Delete assistant {a.name or a.assistant_id} and all its versions?{default}\nThis cannot be undone."

        def answered(yes: bool | None) -> None:
            if yes:
                self._delete()

        self.app.push_screen(ConfirmScreen(question, title="Delete assistant"), answered)

    @work(exclusive=True, group="assistant-delete", exit_on_error=False)
    async def _delete(self) -> None:
        try:
            await self.client.assistants.delete(self.assistant.assistant_id)
        except ApiError as error:
            self.report_error(error, doing="delete the assistant")
            return
        self.agent_app.context_overrides.forget(self.assistant.assistant_id)
        self.notify(
            f"Deleted assistant {self.assistant.name or self.assistant.assistant_id}", markup=False
        )
        self.dismiss(True)

    def action_graph(self) -> None:
        self.app.push_screen(AssistantGraphScreen(self.client, self.assistant))

    def action_raw(self) -> None:
        data = {
            "assistant": self.assistant.raw(),
            "versions": [version.raw() for version in self.versions],
        }
        self.app.push_screen(RawJsonScreen(data, title=f"assistant {self.assistant.assistant_id}"))

    def action_refresh(self) -> None:
        self.load()

    def action_back(self) -> None:
        self.dismiss(self.changed)


def _same(one: AssistantVersion, other: AssistantVersion) -> bool:
    """The same version record (a reload makes new objects of the same records)."""
    return one.version == other.version and one.created_at == other.created_at
