"""The chat transcript: one block per item, fed by `TranscriptChange`s.

`TranscriptView.apply(changes)` is cheap per change (a dict lookup; AI tokens only mark
their block dirty), so a run streaming thousands of tokens a second costs a few text
writes a second, not one per token: dirty AI blocks are flushed at most
`FLUSHES_PER_SECOND` times a second, each flush drawing only what changed (`markdown_text`).

Following: the view is anchored to its end (Textual's `anchor()`) so new output stays
in sight. When the user scrolls up the anchor is released and new output shows a
"new output below" marker instead of moving the view; `end` (or a click on the
marker) scrolls to the end and follows again.

Links inside AI Markdown never open by themselves: a click asks, and only http(s) links
open, only after the user confirms with `o`.

`D` adds the turn of the message in view (or the one clicked) to a dataset (`to_dataset.py`).

Folding: a block costs its widgets, however short its item (~200 KB each, and each is
laid out again as the view changes), so while the view follows its end it draws the
newest `MAX_DRAWN` blocks only; the older items are folded behind one line at the top
("N earlier items"), and come back a page at a time (`home` at the top, or a click on
that line). They are folded in batches (`FOLD_SLACK`): removing widgets holds the app's
keys for a few turns of the loop. A long thread opens, and a run that floods the chat
streams, at the cost of what is on screen, not of everything it ever showed.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar
from urllib.parse import urlsplit

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.timer import Timer
from textual.widgets import Static

from agent_tui.chat.items import (
    Added,
    Appended,
    Cleared,
    TranscriptChange,
    TranscriptItem,
    Updated,
)
from agent_tui.text.sanitize import clean_text
from agent_tui.tui.chat.ai_block import AIBlock
from agent_tui.tui.chat.block_for import block_for
from agent_tui.tui.chat.blocks import ChatBlock, QueuedBlock
from agent_tui.tui.chat.markdown_text import MarkdownText
from agent_tui.tui.chat.to_dataset import add_to_dataset, pick_at
from agent_tui.tui.memory_release import release_when_gone
from agent_tui.tui.widgets.laid_out_once import virtual_size_without_layout

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient

FLUSHES_PER_SECOND = 10
MAX_DRAWN = 40  # blocks drawn while following; older ones are folded
FOLD_SLACK = 20
"""Blocks drawn past `MAX_DRAWN` before the oldest are folded, all at once. Removing
widgets holds the app's own message loop (keys too) until their tasks have ended, a few
turns of the loop (Textual's `App._prune` awaits them with `call_next`); under a flood of
messages, a fold per new message kept a third of the keys waiting behind removals."""
UNFOLD_PAGE = 40  # folded items drawn again per `home` at the top
OPENABLE_SCHEMES = frozenset({"http", "https"})


def is_openable_link(href: str) -> bool:
    return urlsplit(href.strip()).scheme.lower() in OPENABLE_SCHEMES


class NewOutputMarker(Static):
    """Docked at the bottom while the user reads above and output keeps coming."""

    DEFAULT_CSS = """
    NewOutputMarker {
        dock: bottom; width: auto; height: 1; padding: 0 1; offset-x: 1;
        background: $accent; color: $text; display: none;
    }
    NewOutputMarker.visible { display: block; }
    """

    def on_click(self, event: events.Click) -> None:
        event.stop()
        transcript = self.parent
        if isinstance(transcript, TranscriptView):
            transcript.follow()


class FoldedMarker(Static):
    """The first line while older items are folded: how many, and how to see them."""

    DEFAULT_CSS = """
    FoldedMarker { color: $text-muted; padding: 0 1; display: none; }
    FoldedMarker.visible { display: block; }
    """

    def show(self, folded: int) -> None:
        self.set_class(folded > 0, "visible")
        if folded:
            page = min(folded, UNFOLD_PAGE)
            self.update(
                Text(
                    f"▲ {folded:,} earlier items not drawn: home (at the top) or a click draws"
                ).append(f" {page:,} more")
            )

    def on_click(self, event: events.Click) -> None:
        event.stop()
        transcript = self.parent
        if isinstance(transcript, TranscriptView):
            transcript.unfold()


class EmptyHint(Static):
    """What to do in a chat with no message yet; hidden once anything is shown."""

    DEFAULT_CSS = """
    EmptyHint { color: $text-muted; padding: 1 0; display: none; }
    """


class TranscriptView(VerticalScroll, can_focus=True):
    DEFAULT_CSS = """
    TranscriptView { height: 1fr; padding: 0 1; }
    TranscriptView.-empty > EmptyHint { display: block; }
    TranscriptView > .-picked { outline-left: thick $accent; }
    """

    virtual_size = virtual_size_without_layout()  # its scroll bar lays out by itself

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("end", "follow", "Follow", id="transcript.follow"),
        Binding("o", "open_link", "Open link", id="transcript.open_link"),
        Binding("D", "to_dataset", "Add to dataset", id="transcript.to_dataset"),
    ]

    def __init__(
        self,
        *,
        client: AgentServerClient | None = None,
        thread_id: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`client`, `thread_id`: the thread shown, whose turns `D` adds to a dataset."""
        super().__init__(id=id, classes=classes)
        self.client = client
        self.thread_id = thread_id
        self._blocks: dict[str, ChatBlock] = {}
        self._dirty: dict[str, AIBlock] = {}  # insertion-ordered set of blocks to flush
        self._resync: set[str] = set()  # of those, blocks to show whole (`sync_item`)
        self._flush_timer: Timer | None = None
        self._pending_link: str | None = None
        self._queued: QueuedBlock | None = None  # kept below every other block
        self._folded: list[TranscriptItem] = []  # items not drawn, oldest first
        self._folded_keys: set[str] = set()
        self._unmounted: list[ChatBlock] = []  # added in this `apply`, mounted at its end

    def compose(self) -> ComposeResult:
        yield FoldedMarker()
        yield EmptyHint()
        yield NewOutputMarker("new output below ↓ (end)")

    def set_empty_hint(self, hint: Text | str) -> None:
        """Shown while the transcript has no block: what the user can do first."""
        self.query_one(EmptyHint).update(hint)
        self._show_emptiness()

    def _show_emptiness(self) -> None:
        self.set_class(not self._blocks and not self._folded and self._queued is None, "-empty")

    def on_mount(self) -> None:
        self.anchor()

    def on_unmount(self) -> None:
        # A long chat's widgets are many megabytes: hand them back once they are gone
        # (even if the app froze them, see tui/memory_release.py).
        release_when_gone(self)

    # -- feeding ------------------------------------------------------------------

    def apply(self, changes: Iterable[TranscriptChange]) -> None:
        """Show `changes` (from `ChatTranscript`), in order."""
        grew = False
        for change in changes:
            if not isinstance(change, Cleared) and change.item.key in self._folded_keys:
                continue  # drawn from the item itself when unfolded
            if isinstance(change, Appended):
                block = self._blocks.get(change.item.key)
                if block is None:  # a delta for an unseen message: show the message
                    self._add(change.item)
                elif isinstance(block, AIBlock):
                    self._dirty[block.item.key] = block
                grew = True
            elif isinstance(change, Added):
                self._add(change.item)
                grew = True
            elif isinstance(change, Updated):
                block = self._blocks.get(change.item.key)
                if block is None:
                    self._add(change.item)
                    grew = True
                elif isinstance(block, AIBlock) and block.item.streaming:
                    # A streaming message re-shown whole (its middle dropped, tool calls
                    # arrived): at most once a batch, however often it comes.
                    self._dirty[block.item.key] = block
                    self._resync.add(block.item.key)
                else:
                    block.item = change.item
                    self._dirty.pop(change.item.key, None)  # sync_item flushes it
                    self._resync.discard(change.item.key)
                    block.refresh_item()
            elif isinstance(change, Cleared):
                self.clear()
        self._fold()
        if self._unmounted:
            new, self._unmounted = self._unmounted, []
            self.mount_all(new, before=self._queued)
        if self._dirty and self._flush_timer is None:
            self._flush_timer = self.set_timer(1 / FLUSHES_PER_SECOND, self._flush)
        if grew and not self.following:
            self.marker.add_class("visible")
        self._show_emptiness()

    def clear(self) -> None:
        """Remove every block (a thread reloaded from its state) but the queued message."""
        self._blocks.clear()
        self._dirty.clear()
        self._resync.clear()
        self._unmounted.clear()
        self._folded.clear()
        self._folded_keys.clear()
        self.query_one(FoldedMarker).show(0)
        # Not `query(ChatBlock).exclude(…)`: Textual's `exclude` drops the type filter,
        # which removed the hint and the "new output" marker with the blocks.
        self.remove_children([b for b in self.query(ChatBlock) if b is not self._queued])
        self.marker.remove_class("visible")
        self._show_emptiness()

    def _add(self, item: TranscriptItem) -> None:
        if item.key in self._blocks:  # the same item twice: show it once
            self._blocks[item.key].refresh_item()
            return
        block = block_for(item)
        self._blocks[item.key] = block
        self._unmounted.append(block)  # at the end of `apply`, unless folded first

    def _fold(self) -> None:
        """While following, once more than `MAX_DRAWN` + `FOLD_SLACK` blocks are drawn,
        the oldest past `MAX_DRAWN` are folded (see the module doc); those not mounted yet
        never are."""
        if len(self._blocks) <= MAX_DRAWN + FOLD_SLACK or not self.following:
            return
        excess = len(self._blocks) - MAX_DRAWN
        oldest = list(itertools.islice(self._blocks.items(), excess))
        for key, block in oldest:
            del self._blocks[key]
            self._dirty.pop(key, None)
            self._resync.discard(key)
            self._folded.append(block.item)
            self._folded_keys.add(key)
        waiting = {id(block) for block in self._unmounted}  # not given to `mount` yet
        self._unmounted = [b for b in self._unmounted if b.item.key not in self._folded_keys]
        self.remove_children([block for _, block in oldest if id(block) not in waiting])
        self.query_one(FoldedMarker).show(len(self._folded))

    @property
    def folded(self) -> int:
        """Items not drawn (folded behind the first line)."""
        return len(self._folded)

    def unfold(self) -> None:
        """Draw the newest `UNFOLD_PAGE` folded items again, above the others."""
        if not self._folded:
            return
        page = self._folded[-UNFOLD_PAGE:]
        del self._folded[-UNFOLD_PAGE:]
        blocks = {item.key: block_for(item) for item in page}
        self._folded_keys.difference_update(blocks)
        self._blocks = {**blocks, **self._blocks}
        self.mount_all(blocks.values(), after=self.query_one(EmptyHint))
        self.query_one(FoldedMarker).show(len(self._folded))

    def action_scroll_home(self) -> None:
        if self._folded and self.scroll_y == 0:
            self.unfold()
        else:
            super().action_scroll_home()

    def _flush(self) -> None:
        # Cheap: each block hands its text to its `MarkdownText`, which draws only what
        # changed, in steps of its own (nothing here waits for the drawing).
        self._flush_timer = None
        dirty, self._dirty = self._dirty, {}
        resync, self._resync = self._resync, set()
        for key, block in dirty.items():
            if self._blocks.get(key) is not block:
                continue  # cleared meanwhile (a thread reload)
            if block.is_mounted:
                block.sync_item() if key in resync else block.flush()
            else:
                self._dirty[key] = block  # not mounted yet: next time
                if key in resync:
                    self._resync.add(key)
        if self._dirty and self._flush_timer is None:
            self._flush_timer = self.set_timer(1 / FLUSHES_PER_SECOND, self._flush)

    # -- the queued message ---------------------------------------------------------

    @property
    def queued_block(self) -> QueuedBlock | None:
        return self._queued

    def show_queued(self, text: str, how: str) -> None:
        """Show `text` as queued (`how`: what happens to it), at the end, until
        `drop_queued()`."""
        self.drop_queued()
        self._queued = QueuedBlock(text, how)
        self.mount(self._queued)
        self._show_emptiness()
        if not self.following:
            self.marker.add_class("visible")

    def drop_queued(self) -> None:
        if self._queued is not None:
            queued, self._queued = self._queued, None
            queued.remove()
            self._show_emptiness()

    # -- reading the blocks -------------------------------------------------------

    def block(self, key: str) -> ChatBlock | None:
        return self._blocks.get(key)

    @property
    def blocks(self) -> list[ChatBlock]:
        return list(self._blocks.values())

    @property
    def stream_writes(self) -> int:
        """Text writes so far, over all AI blocks (tokens are batched)."""
        return sum(b.stream_writes for b in self._blocks.values() if isinstance(b, AIBlock))

    # -- following ----------------------------------------------------------------

    @property
    def marker(self) -> NewOutputMarker:
        return self.query_one(NewOutputMarker)

    @property
    def following(self) -> bool:
        """Whether new output scrolls into view (the user has not scrolled up)."""
        # Textual keeps no public flag for "anchored and not released by the user".
        return self.is_anchored and not self._anchor_released

    def follow(self) -> None:
        """Scroll to the newest output and keep following it."""
        self.anchor()
        self.marker.remove_class("visible")
        self._fold()

    def action_follow(self) -> None:
        self.follow()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.following:
            # A query, not `marker`: while the app shuts down the marker may be gone.
            self.query(NewOutputMarker).remove_class("visible")

    # -- links ----------------------------------------------------------------------

    @on(MarkdownText.LinkClicked)
    def _link_clicked(self, event: MarkdownText.LinkClicked) -> None:
        event.stop()
        href = clean_text(event.href)
        if not is_openable_link(href):
            self._set_pending_link(None)
            self.notify(
                f"Not opening {href!r}: only http(s) links can be opened.",
                severity="warning",
                markup=False,
            )
            return
        self._set_pending_link(href)
        self.notify(f"Open {href}? Press o to open it.", markup=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # `o` means something only while a link waits for confirmation; otherwise the
        # key goes on to the screen's bindings and the footer does not offer it.
        if action == "open_link":
            return self._pending_link is not None
        if action == "to_dataset":
            return self.thread_id is not None
        return True

    def on_click(self, event: events.Click) -> None:
        pick_at(self, event.widget)

    def action_to_dataset(self) -> None:
        if self.client is not None and self.thread_id is not None:
            add_to_dataset(self, self.blocks, self.client, self.thread_id)

    def _set_pending_link(self, href: str | None) -> None:
        self._pending_link = href
        self.refresh_bindings()

    def action_open_link(self) -> None:
        href = self._pending_link
        self._set_pending_link(None)
        if href is not None and is_openable_link(href):
            self.app.open_url(href)
