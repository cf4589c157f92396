"""The thread view's styles read and parsed before it is first opened, while home rests.

Textual reads a widget class's ``DEFAULT_CSS`` when the first widget of that class mounts,
and a screen's ``CSS_PATH`` when the screen is first pushed. Each new source makes it
parse the stylesheet again before the next widget is styled: opening the first thread
parsed it a dozen times (one per batch of widgets mounted), and the screen's own file
parsed every source again from scratch and restyled every widget of the app (~50 ms of
CPU of the open on a loaded 2-core machine, before its first paint). Done here, once,
when home has been drawn, the open finds every rule parsed; and the view's modules, imported
in a thread before (`read_styles_ahead_soon`), are not imported by the first open either
(0.17-0.25 s of CPU it paid).

The sources are the ones Textual itself would add (`DOMNode._get_default_css`: location,
text, tie-breaker and scope, so nothing is added twice and no rule's precedence changes);
a Textual that no longer has it is left to read them as the view opens, as before.
`tests/ui/thread_view/test_styles_ahead.py` checks that opening a thread adds no source.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from textual.app import App
from textual.dom import DOMNode

logger = logging.getLogger(__name__)

_SCREENS = Path(__file__).resolve().parent / "screens"
CSS_FILES = (_SCREENS / "thread_view" / "screen.tcss",)
"""The thread view's ``CSS_PATH``, as Textual resolves it (``Path.resolve``)."""


def thread_view_widgets() -> list[type[DOMNode]]:
    """Every widget class a thread view mounts on opening (none when Textual moved one of
    its own: then they are read as they mount, as before)."""
    from textual.containers import Horizontal
    from textual.widgets import Collapsible, ContentSwitcher, Static, Tab, TabPane

    try:  # Textual's parts of its widgets, not exported
        from textual.widgets._collapsible import CollapsibleTitle
        from textual.widgets._footer import FooterKey
        from textual.widgets._tabbed_content import ContentTabs
        from textual.widgets._tabs import Underline
    except ImportError:
        logger.debug("Textual's widget parts moved: styles read as widgets mount")
        return []

    from agent_tui.tui.screens.thread_view.checkpoint_view import CheckpointView
    from agent_tui.tui.screens.thread_view.graph_pane import GraphPane
    from agent_tui.tui.screens.thread_view.header import ThreadHeader
    from agent_tui.tui.screens.thread_view.history_pane import HistoryPane
    from agent_tui.tui.screens.thread_view.lazy_tabs import LazyPane, ThreadTabs
    from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
    from agent_tui.tui.widgets.breadcrumb import Breadcrumb
    from agent_tui.tui.widgets.footer import KeysFooter
    from agent_tui.tui.widgets.json_view import JsonTree, JsonView

    return [
        ThreadViewScreen,
        Breadcrumb,
        ThreadHeader,
        Horizontal,
        HistoryPane,
        GraphPane,
        ThreadTabs,
        ContentTabs,
        Tab,
        Underline,
        ContentSwitcher,
        TabPane,
        LazyPane,
        CheckpointView,
        Static,
        Collapsible,
        CollapsibleTitle,
        Collapsible.Contents,
        JsonTree,
        JsonView,
        KeysFooter,
        FooterKey,
    ]


def read_styles_ahead_soon(app: App[Any], then: Callable[[], None]) -> None:
    """`read_styles_ahead` with the thread view's modules imported in a thread first
    (~0.2 s of CPU the first time: the app keeps answering keys meanwhile), then `then`
    on the app's thread (also when the styles could not be read)."""

    def imported() -> None:
        widgets: list[type[DOMNode]] = []
        try:
            widgets = thread_view_widgets()
        finally:
            with contextlib.suppress(RuntimeError):  # the app ended meanwhile
                app.call_from_thread(_read_then, app, widgets, then)

    app.run_worker(imported, thread=True, group="styles-ahead", exit_on_error=False)


def _read_then(app: App[Any], widgets: list[type[DOMNode]], then: Callable[[], None]) -> None:
    try:
        if widgets:
            read_styles_ahead(app, widgets)
    finally:
        then()


def read_styles_ahead(
    app: App[Any],
    widgets: Iterable[type[DOMNode]] | None = None,
    files: Iterable[Path] = CSS_FILES,
) -> int:
    """Add the default CSS of ``widgets`` (default: the thread view's) and the CSS
    ``files`` to ``app``'s stylesheet and parse it once; how many sources were new."""
    stylesheet = app.stylesheet
    before = len(stylesheet.source)
    for path in files:
        if not stylesheet.has_source(str(path), ""):
            stylesheet.read(path)
    for read_from, css, tie_breaker, scope in _default_css(
        thread_view_widgets() if widgets is None else widgets
    ):
        stylesheet.add_source(
            css, read_from=read_from, is_default_css=True, tie_breaker=tie_breaker, scope=scope
        )
    added = len(stylesheet.source) - before
    if added:
        stylesheet.parse()
    return added


def _default_css(widgets: Iterable[type[DOMNode]]) -> Iterator[tuple[Any, str, int, str]]:
    """What Textual adds when a widget of each class registers (it reads only the class of
    the instance it is given: one made without `__init__` does)."""
    read = getattr(DOMNode, "_get_default_css", None)
    if read is None:
        logger.debug("Textual has no _get_default_css: styles read as widgets mount")
        return
    for widget in widgets:
        yield from read(widget.__new__(widget))
