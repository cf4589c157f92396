"""The thread view's tabs, each built the first time it is shown.

Composing and mounting every tab up front (the diff, the fork tree, the timeline, beside
the one in view) was a good part of what opening a thread cost, for tabs most visits
never show. A `LazyPane` makes its content when its tab first becomes active — a key, a
click, or code setting `TabbedContent.active` — and it is in the DOM from that moment
(a query finds it); `ready()` waits until it is mounted, which is when the screen draws
into it (its `TabActivated` handler).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.widget import AwaitMount

WidgetT = TypeVar("WidgetT", bound=Widget)


class LazyPane(TabPane):
    """A tab whose content `make()` builds when the tab is first shown (the tab a view
    opens on is a plain `TabPane`)."""

    def __init__(self, title: str, make: Callable[[], Widget], *, id: str) -> None:
        super().__init__(title, id=id)
        self._make = make
        self.content: Widget | None = None
        self._mounting: AwaitMount | None = None

    def build(self) -> Widget:
        """The tab's content, made and mounted now if it was not (the pane must be
        mounted itself: `ThreadTabs` builds a tab only once it is)."""
        if self.content is None:
            self.content = self._make()
            self._mounting = self.mount(self.content)
        return self.content

    async def ready(self) -> Widget:
        """The tab's content, built and mounted."""
        content = self.build()
        if self._mounting is not None:
            await self._mounting
            self._mounting = None
        return content

    @property
    def is_ready(self) -> bool:
        """Built and mounted: what is drawn into it now shows."""
        return self.content is not None and self.content.is_mounted


class ThreadTabs(TabbedContent):
    """Tabs of `LazyPane`s (and plain `TabPane`s, built with the view)."""

    def watch_active(self, active: str) -> None:
        # Called as `active` is set, before the `TabActivated` message: the content is
        # in the DOM for whatever reads it next.
        pane = self.lazy_pane(active)
        if pane is not None and pane.is_mounted:
            pane.build()

    def lazy_pane(self, tab_id: str) -> LazyPane | None:
        if not tab_id:
            return None
        try:
            pane = self.get_pane(tab_id)
        except NoMatches:
            return None
        return pane if isinstance(pane, LazyPane) else None

    def content(self, tab_id: str, kind: type[WidgetT]) -> WidgetT:
        """The tab's content (a `kind`), built now if it was not."""
        pane = self.lazy_pane(tab_id)
        if pane is None:
            raise LookupError(f"no lazy tab {tab_id!r}")
        content = pane.build()
        if not isinstance(content, kind):
            raise TypeError(f"tab {tab_id!r} holds a {type(content).__name__}, not a {kind}")
        return content

    async def ready(self, tab_id: str | None) -> None:
        """Until the tab's content (if it is a lazy one) is mounted."""
        pane = self.lazy_pane(tab_id) if tab_id else None
        if pane is not None:
            await pane.ready()

    def is_ready(self, tab_id: str) -> bool:
        """The tab's content is mounted (a plain tab's always is)."""
        pane = self.lazy_pane(tab_id)
        return pane is None or pane.is_ready
