"""One widget per transcript item (`chat.items`): what a human, an AI message, a tool,
a node, the graph or agent-tui itself said during a run.

Every block renders server text inertly: `server_text` for plain text, `json_syntax`
for JSON, plain text for titles (never markup), and Rich's Markdown of clean text whose
links only ask (`TranscriptView` decides which links may open). The AI block and the
interrupt block live in their own modules; `block_for.block_for` picks the block of an
item.

A block that cannot be drawn (its `compose_item` or an update raises) is the last line
of defence against what a run can hold: it shows, in its place, that this one item
could not be drawn, and logs the traceback; the app and the other blocks go on.
"""

from __future__ import annotations

import logging
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.compose import compose
from textual.containers import Vertical
from textual.widgets import Collapsible, Static

from agent_tui.chat.item_text import namespace_label, update_values
from agent_tui.chat.items import (
    CustomItem,
    ErrorItem,
    HumanItem,
    NodeUpdateItem,
    NoticeItem,
    ToolResultItem,
    TranscriptItem,
)
from agent_tui.text.sanitize import clean_text
from agent_tui.tui.widgets.json_view import json_syntax
from agent_tui.tui.widgets.laid_out_once import virtual_size_without_layout
from agent_tui.tui.widgets.text import server_text

logger = logging.getLogger(__name__)


def block_label(kind: str, *details: str | None, namespace: tuple[str, ...] = ()) -> Text:
    """The dim header line of a block: kind, then details, then the subgraph path."""
    label = Text(kind, style="bold")
    for detail in details:
        if detail:
            label.append(" · ", style="dim")
            label.append_text(server_text(detail))
    if namespace:
        label.append(" · ", style="dim")
        label.append_text(server_text(f"⤷ {namespace_label(namespace)}", style="italic"))
    return label


class BlockText(Static):
    """A block's line of text (its label, its body): sized by its text."""

    virtual_size = virtual_size_without_layout()


class ChatBlock(Vertical):
    """Base of the transcript blocks: knows its item; `refresh_item` re-renders it after
    an `Updated` change. Subclasses draw the item in `compose_item`."""

    DEFAULT_CSS = """
    ChatBlock { height: auto; margin: 0 0 1 0; padding: 0 1; }
    ChatBlock > .block-label { color: $text-muted; }
    ChatBlock > Static { height: auto; }
    ChatBlock.-broken { border-left: thick $error; }
    ChatBlock > .draw-error { color: $text-error; }
    """

    virtual_size = virtual_size_without_layout()  # its height is its content's

    KIND: ClassVar[str] = "item"
    """What the user calls the item, in "This … could not be drawn"."""

    def __init__(self, item: TranscriptItem) -> None:
        super().__init__(classes="chat-block")
        self.item = item

    @property
    def broken(self) -> bool:
        """Whether the block shows that its item could not be drawn (it has none of
        the widgets `compose_item` makes: nothing may query them)."""
        return self.has_class("-broken")

    @property
    def drawn(self) -> bool:
        """Composed, and neither being removed nor removed: its widgets are there to
        update. (A transcript is cleared while updates are on their way: a thread
        reloaded after `esc`. Textual has no public flag for a widget being removed;
        its own `recompose` reads `_pruning` too.)"""
        return self.is_mounted and self.is_attached and not self._pruning

    def compose(self) -> ComposeResult:
        # Textual exits the app on an exception in `compose`: composed here, it costs
        # this block only. (`compose` with a result composes `with` blocks too.)
        try:
            widgets = compose(self, self.compose_item())
        except Exception as error:
            widgets = [self._failed(error)]
        else:
            self.remove_class("-broken")
        yield from widgets

    def compose_item(self) -> ComposeResult:
        yield from ()

    def _failed(self, error: Exception) -> Static:
        logger.error(
            "Could not draw this %s (%s)", self.KIND, type(self.item).__name__, exc_info=error
        )
        self.add_class("-broken")
        text = Text(f"⚠ This {self.KIND} could not be drawn (", style="bold")
        text.append_text(server_text(f"{type(error).__name__}: {error}"))
        text.append("). The details are in the log.")
        return Static(text, classes="draw-error")

    async def show_failure(self, error: Exception) -> None:
        """In place of the item: that it could not be drawn (an update raised)."""
        if not self.drawn:
            return  # removed meanwhile: nothing is left to show it in
        await self.remove_children()
        await self.mount(self._failed(error))

    def refresh_item(self) -> None:
        """Show the item's current content (it was changed in place)."""
        self.call_later(self.recompose)


class HumanBlock(ChatBlock):
    DEFAULT_CSS = """
    HumanBlock { border-left: thick $primary; background: $boost; }
    """

    KIND = "message from you"

    item: HumanItem

    def compose_item(self) -> ComposeResult:
        yield BlockText(block_label("you"), classes="block-label")
        yield BlockText(server_text(self.item.text), classes="human-text")


class QueuedBlock(HumanBlock):
    """A message waiting for the active run to end: dimmed, always last (the transcript
    mounts new blocks above it). Not a transcript item: the thread does not hold it yet."""

    DEFAULT_CSS = """
    QueuedBlock { border-left: thick $primary 40%; background: transparent; }
    QueuedBlock > Static { color: $text-muted; }
    """

    KIND = "queued message"

    def __init__(self, text: str, how: str) -> None:
        super().__init__(HumanItem(key="queued", text=text))
        self.how = how  # what happens to it, e.g. "queued: sent when this run ends"

    def compose_item(self) -> ComposeResult:
        label = block_label("you")
        label.append(f" · {self.how}", style="italic")
        yield BlockText(label, classes="block-label")
        yield BlockText(server_text(self.item.text), classes="human-text")


class ToolResultBlock(ChatBlock):
    DEFAULT_CSS = """
    ToolResultBlock { border-left: thick $secondary; }
    ToolResultBlock.error { border-left: thick $error; }
    ToolResultBlock.error > .tool-content { color: $text-error; }
    """

    KIND = "tool result"

    item: ToolResultItem

    def compose_item(self) -> ComposeResult:
        item = self.item
        failed = item.status == "error"
        self.set_class(failed, "error")
        status = Text(item.status, style="bold red" if failed else "green")
        label = block_label("tool", item.name, namespace=item.namespace)
        yield BlockText(Text.assemble(label, " ", status), classes="block-label")
        yield BlockText(server_text(item.content), classes="tool-content")


TITLE_VALUE_LIMIT = 80  # characters of one value in a node update's one line
TITLE_LIMIT = 240  # characters of that line


class NodeUpdateBlock(ChatBlock):
    """A node's step, collapsed to one line ("node ▸ key=value, …", long values cut;
    messages by key: they show as messages); expands to the whole update as JSON."""

    DEFAULT_CSS = """
    NodeUpdateBlock { margin: 0; }
    NodeUpdateBlock Collapsible { border-top: none; padding: 0; background: transparent; }
    NodeUpdateBlock Collapsible > Contents { padding: 0 0 0 2; }
    NodeUpdateBlock .node-update { height: auto; }
    """

    KIND = "node update"

    item: NodeUpdateItem

    @property
    def title(self) -> str:
        """The update's one line, as painted (plain text, not markup)."""
        item = self.item
        path = f"{namespace_label(item.namespace)} ▸ " if item.namespace else ""
        text = clean_text(f"{path}{item.node} ▸ {update_values(item.update, TITLE_VALUE_LIMIT)}")
        if len(text) > TITLE_LIMIT:
            text = text[: TITLE_LIMIT - 1] + "…"
        return text

    def compose_item(self) -> ComposeResult:
        # Collapsible parses a str title as markup (escaping is no defence: `[link=…]`
        # inside a list breaks it, a backslash before `[` is doubled); Text it keeps.
        title = server_text(self.title)
        yield Collapsible(title=title, collapsed=True)  # type: ignore[arg-type]

    @on(Collapsible.Expanded)
    def _show_update(self, event: Collapsible.Expanded) -> None:
        # The JSON is built and laid out once opened: an update holds whole messages (a
        # long answer's is hundreds of KB: ~0.3 s to highlight and measure), and most
        # stay closed.
        contents = event.collapsible.query_one(Collapsible.Contents)
        if not contents.children:
            contents.mount(BlockText(json_syntax(self.item.update), classes="node-update"))


class CustomBlock(ChatBlock):
    DEFAULT_CSS = """
    CustomBlock { border-left: thick $accent; }
    """

    KIND = "custom event"

    item: CustomItem

    def compose_item(self) -> ComposeResult:
        yield BlockText(block_label("custom", namespace=self.item.namespace), classes="block-label")
        data = self.item.data
        body = server_text(data) if isinstance(data, str) else json_syntax(data)
        yield BlockText(body, classes="custom-data")


class ErrorBlock(ChatBlock):
    DEFAULT_CSS = """
    ErrorBlock { border-left: thick $error; }
    """

    KIND = "error"

    item: ErrorItem

    def compose_item(self) -> ComposeResult:
        # `Failure.line()`'s words, each part styled on its own: "ConnectError in
        # call_model: [Errno 111] Connection refused".
        failure = self.item.failure()
        text = Text()  # not the type's Text: its style would colour the whole line
        text.append_text(server_text(failure.error or "Error", style="bold red"))
        if failure.node:
            text.append(" in ", style="red")
            text.append_text(server_text(failure.node, style="bold"))
        if failure.message:
            text.append(": ")
            text.append_text(server_text(failure.message))
        yield BlockText(text, classes="error-text")


_NOTICE_STYLES = {"information": "dim", "warning": "yellow", "error": "bold red"}


class NoticeBlock(ChatBlock):
    DEFAULT_CSS = """
    NoticeBlock { margin: 0; }
    """

    KIND = "notice"

    item: NoticeItem

    def compose_item(self) -> ComposeResult:
        yield BlockText(self._line(), classes="notice-text")

    def _line(self) -> Text:
        style = _NOTICE_STYLES.get(self.item.severity, "dim")
        return server_text(f"— {self.item.text}", style=style)

    def refresh_item(self) -> None:
        # A live call's line when the call ends (`run_calls.py`): its one Static
        # updated in place, not the block composed again.
        shown = self.query(".notice-text").results(Static) if self.drawn else iter(())
        line = next(shown, None)
        if line is not None and not self.broken:
            line.update(self._line())
        else:
            super().refresh_item()
