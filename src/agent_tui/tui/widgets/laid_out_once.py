"""A widget that grows is laid out once per growth, not twice.

Textual's `Widget.virtual_size` is a reactive that asks for a layout when it changes, and
the screen's layout is what changes it (`_size_updated`): a layout that gives a widget a
new size asks, from inside, for another layout of the whole screen right after. For a
widget whose size comes from its content (height `auto`), or a scrolling container
(Textual updates its scroll bars itself, and a scroll bar that comes or goes asks for its
own layout: `show_vertical_scrollbar`), that second layout changes nothing. Under a run's
stream each growth of the answer was two layouts of every widget on screen (measured with
`benchmarks/endless_stream.py`: a layout asked by a virtual size for every other one).

A widget class opts out with `virtual_size = virtual_size_without_layout()`; a widget that
sets its own virtual size as rows come below the others uses `grown_below`.

A scrolling widget drawn into before its first layout, with more lines than the screen
is high, says so with `expect_vertical_scroll_bar`: its scroll bar is placed by the first
layout instead of the second (see there).
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widget import Widget


def virtual_size_without_layout() -> Reactive[Size]:
    """`Widget.virtual_size` as a reactive that repaints nothing and lays nothing out."""
    return Reactive(Size(0, 0), layout=False)


def expect_vertical_scroll_bar(widget: Widget, lines: int) -> None:
    """Before a scrolling widget's first layout: content `lines` high, taller than the
    screen, cannot fit its box, so its vertical scroll bar is certain. Said now, the first
    layout places it. Textual finds it out in the first layout and lays the screen out
    again, the widget's content (and a neighbour's) narrower by the bar: drawn twice, on
    opening the thread view its history, its state and the state's tree. A widget whose
    height follows its content needs a `max-height` for this; a guess proven wrong (the
    bar not needed after all) costs the layout it would have cost anyway."""
    styles = widget.styles
    bounded = styles.height is None or not styles.height.is_auto or styles.max_height is not None
    if (
        not widget.container_size  # laid out: Textual keeps the bar up to date
        and bounded
        and styles.overflow_y == "auto"
        and lines > widget.app.size.height
    ):
        widget.show_vertical_scrollbar = True


def grown_below(widget: Widget, size: Size) -> bool:
    """Set a scrolling widget's `virtual_size` to `size` without a layout of the screen
    when its content only grew downward and overflowed already: no box on the screen
    changes, only the scroll bar's thumb (a layout of the thread view is ~26 ms, once for
    every page of rows loaded while paging). False, and nothing done, in any other case."""
    before = widget.virtual_size
    if not (
        widget.container_size
        and widget.show_vertical_scrollbar
        and size.width == before.width
        and size.height >= before.height
    ):
        return False
    widget.set_reactive(Widget.virtual_size, size)
    bar = widget.vertical_scrollbar
    bar.window_virtual_size = size.height
    bar.refresh()
    return True
