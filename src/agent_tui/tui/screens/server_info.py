"""The first screen once connected: which server this is, and which graphs it serves.

Every string here comes from the server, so each goes through `server_text` (cleaned,
never parsed as markup). The resource screens of later issues open from here.

Start-up time: the app asks for the graphs while `GET /info` is answered and hands the
screen that request (`graphs`): drawn in the screen's first frame when it has answered,
else as soon as it does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Footer, Static

from agent_tui.assistants.fetch import fetch_all_assistants
from agent_tui.chat.assistant import ChatAssistant
from agent_tui.client import AgentServerClient, ApiError
from agent_tui.client.models import Assistant, ServerInfo
from agent_tui.text.fit import fit_value
from agent_tui.text.sanitize import clean_text
from agent_tui.text.short_ids import short_random_id
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.new_chat import chat_in_new_thread
from agent_tui.tui.widgets.breadcrumb import Breadcrumb
from agent_tui.tui.widgets.text import server_text


@dataclass(frozen=True, slots=True)
class GraphSummary:
    graph_id: str
    default_assistant_id: str | None  # the one the server made for the graph itself
    description: str  # langgraph.json's, copied onto the default assistant
    assistants: int


def summarize_graphs(assistants: Iterable[Assistant]) -> list[GraphSummary]:
    """One entry per graph id, sorted by id."""
    counts: dict[str, int] = {}
    defaults: dict[str, Assistant] = {}
    for assistant in assistants:
        counts[assistant.graph_id] = counts.get(assistant.graph_id, 0) + 1
        if assistant.is_default:
            defaults.setdefault(assistant.graph_id, assistant)
    summaries = []
    for graph_id in sorted(counts):
        default = defaults.get(graph_id)
        summaries.append(
            GraphSummary(
                graph_id=graph_id,
                default_assistant_id=default.assistant_id if default else None,
                description=(default.description or "") if default else "",
                assistants=counts[graph_id],
            )
        )
    return summaries


GraphsAnswer = tuple[list[Assistant], bool]  # `fetch_all_assistants`: (assistants, truncated)


def request_graphs(client: AgentServerClient) -> asyncio.Future[GraphsAnswer]:
    """The assistants search (`fetch_all_assistants`), started now. Its error is raised
    where it is awaited; one nobody awaited (/info failed first) is not logged as lost."""
    request = asyncio.ensure_future(fetch_all_assistants(client))
    request.add_done_callback(lambda done: done.cancelled() or done.exception())
    return request


LABEL_WIDTH = 12
SummaryRow = tuple[str, str, str]  # (label, value as shown, its style)


def _summary_rows(
    about: Sequence[tuple[str, str]], info: ServerInfo, readonly: bool
) -> list[SummaryRow]:
    raw: dict[str, Any] = info.raw()
    rows: list[SummaryRow] = [(label, clean_text(value), "") for label, value in about]
    rows += [
        ("Version", clean_text(info.server), ""),
        ("LangGraph", clean_text(info.langgraph_py_version or "?"), ""),
    ]
    host = raw.get("host")
    if isinstance(host, dict) and any(host.values()):
        parts = [f"{k}={v}" for k, v in host.items() if v]
        rows.append(("Host", clean_text(", ".join(parts)), ""))
    enabled = [name for name, on in info.flags.items() if on is True]
    if enabled:
        rows.append(("Features", clean_text(", ".join(enabled)), ""))
    if readonly:
        rows.append(("Mode", "read-only: changes are refused", "bold"))
    else:
        rows.append(("Mode", "read-write", ""))
    return rows


class Summary(Static):
    """The summary rows, one line each at any width — a long path cut in the middle (its
    start and its file name stay), a long note or list cut at its end — so the graphs
    table below stays in view at 80 by 24. Server text: cleaned, never markup."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[SummaryRow] = []

    def show(self, rows: list[SummaryRow]) -> None:
        self.rows = rows
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        room = self.content_region.width - LABEL_WIDTH if self.content_region.width else None
        text = Text(no_wrap=True, overflow="ellipsis")
        for label, value, style in self.rows:
            text.append(f"{label:<{LABEL_WIDTH}}", style="bold")
            text.append(value if room is None else fit_value(value, room), style=style)
            text.append("\n")
        text.rstrip()
        self.update(text)


class ServerInfoScreen(AgentScreen[None]):
    # Absolute, so the app can read the same file before the first paint (see `AgentTuiApp`).
    CSS_PATH = Path(__file__).with_name("server_info.tcss")
    HELP_TITLE = "home (server and graphs)"
    BINDINGS: ClassVar[list[BindingType]] = [
        # Off the footer (80 columns) like Attention below: `?` lists them.
        Binding("r", "refresh", "Refresh", show=False, id="server_info.refresh"),
        Binding("c", "chat", "Chat", id="server_info.chat"),
        # The home screen's ways in (also `:assistants`, `:threads`, `:attention`, `:deployments`).
        Binding("a", "app.open_resource('assistants')", "Assistants", id="server_info.assistants"),
        Binding("t", "app.open_resource('threads')", "Threads", id="server_info.threads"),
        Binding(
            "d", "app.open_resource('deployments')", "Deployments", id="server_info.deployments"
        ),
        Binding(
            "exclamation_mark",
            "app.open_resource('attention')",
            "Attention",
            show=False,
            id="server_info.attention",
        ),
        # Home is the top screen: `q` quits here, as in k9s (and on the start-up screen).
        Binding("q", "app.quit", "Quit", show=False, id="server_info.quit"),
    ]

    class Shown(Message):
        """The graphs (or why they could not be listed) are on the screen."""

        def __init__(self, home: ServerInfoScreen) -> None:
            super().__init__()
            self.home = home

    def __init__(
        self,
        client: AgentServerClient,
        *,
        about: Sequence[tuple[str, str]] = (),
        info: ServerInfo | None = None,
        graphs: asyncio.Future[GraphsAnswer] | None = None,
        readonly: bool = False,
    ) -> None:
        """`about` are (label, value) rows describing the connection, shown first.
        `info`: `GET /info`'s answer, and `graphs` the assistants search under way
        (`fetch_all_assistants`), when the caller asked already."""
        super().__init__()
        self.client = client
        self.about = list(about) or [("Server", client.base_url)]
        self.info = info
        self.readonly = readonly
        self._graphs = graphs

    def compose(self) -> ComposeResult:
        yield Breadcrumb()
        with VerticalScroll(id="server-info"):
            yield Summary(id="summary")
            yield Static("Graphs", classes="section-title")
            table: DataTable[Text] = DataTable(id="graphs", cursor_type="row", zebra_stripes=True)
            yield table
            yield Static(id="load-error")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#graphs", DataTable)
        table.focus()  # enter on a graph opens its assistants
        table.add_column("Graph", key="graph")
        table.add_column("Default assistant", key="assistant")
        table.add_column("Assistants", key="count")
        table.add_column("Description", key="description")
        if self.info is not None:
            self._show_info(self.info)
        graphs, self._graphs = self._graphs, None
        answered = graphs is not None and graphs.done() and not graphs.cancelled()
        if graphs is not None and answered and graphs.exception() is None:
            self._show_graphs(*graphs.result())  # in the screen's first frame
            self.post_message(self.Shown(self))
            return
        self.load(with_info=self.info is None, graphs=graphs)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """`enter` on a graph: its assistants."""
        event.stop()
        graph_id = event.row_key.value
        if graph_id:
            self.run_worker(
                self.agent_app.open_resource("assistants", graph_id), exit_on_error=False
            )

    def action_refresh(self) -> None:
        self.load()

    def action_chat(self) -> None:
        """`c`: a new thread on the selected graph, open on its chat, ready to type."""
        table: DataTable[Text] = self.query_one("#graphs", DataTable)
        if not table.row_count:
            self.notify("No graph to chat with on this server", severity="warning", markup=False)
            return
        if self.refuse_if_readonly("create a thread to chat in"):
            return
        graph_id = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        if graph_id:
            self._chat(graph_id)

    @work(exclusive=True, group="server-info-chat", exit_on_error=False)
    async def _chat(self, graph_id: str) -> None:
        assistant = ChatAssistant(graph_id, graph_id, graph_id)
        await chat_in_new_thread(self, self.client, assistant)

    def load(
        self, *, with_info: bool = True, graphs: asyncio.Future[GraphsAnswer] | None = None
    ) -> None:
        """Fetch the graphs (unless `graphs` is their request under way), and `/info`
        too unless the caller just fetched it."""
        self.query_one("#graphs", DataTable).loading = True
        self._load(with_info, graphs)

    async def _fetch(
        self, with_info: bool, graphs: asyncio.Future[GraphsAnswer] | None
    ) -> tuple[ServerInfo | None, list[Assistant], bool]:
        if graphs is None:
            graphs = request_graphs(self.client)
        try:  # both at once
            info = await self.client.info() if with_info else None
            assistants, truncated = await graphs
        finally:
            graphs.cancel()  # still running when /info failed or the screen went away
        return info, assistants, truncated

    def _show_info(self, info: ServerInfo) -> None:
        self.query_one(Summary).show(_summary_rows(self.about, info, self.readonly))

    def _show_graphs(self, assistants: list[Assistant], truncated: bool) -> None:
        table: DataTable[Text] = self.query_one("#graphs", DataTable)
        table.clear()
        for graph in summarize_graphs(assistants):
            table.add_row(
                server_text(graph.graph_id, style="bold"),
                # Short, as in the assistants table: the description gets the room.
                server_text(short_random_id(graph.default_assistant_id)),
                Text(str(graph.assistants), justify="right"),
                server_text(graph.description, style="italic"),
                key=graph.graph_id,
            )
        if not table.row_count:
            self._show_error(Text("This server has no graphs (no assistants found).", "italic"))
        elif truncated:
            self._show_error(Text(f"Showing the first {len(assistants)} assistants.", "italic"))
        else:
            self._show_error(None)

    def _show_error(self, message: Text | None) -> None:
        widget = self.query_one("#load-error", Static)
        widget.update(message or "")
        widget.display = message is not None

    @work(exclusive=True, group="server-info", exit_on_error=False)
    async def _load(self, with_info: bool, graphs: asyncio.Future[GraphsAnswer] | None) -> None:
        table = self.query_one("#graphs", DataTable)
        try:
            info, assistants, truncated = await self._fetch(with_info, graphs)
        except ApiError as error:
            self._show_error(server_text(str(error)))
            self.notify(
                clean_text(str(error)),
                title="Could not load the server's details",
                severity="error",
                markup=False,
            )
            self.post_message(self.Shown(self))
            return
        finally:
            table.loading = False
        if info is not None:
            self.info = info
            self._show_info(info)
        self._show_graphs(assistants, truncated)
        self.post_message(self.Shown(self))
