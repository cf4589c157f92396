"""A widget that grows is laid out once per growth, not twice.

Textual's `Widget.virtual_size` is a reactive that asks for a layout when it changes, and
the screen's layout is what changes it (`_size_updated`): a layout that gives a widget a
new size asks, from inside, for another layout of the whole screen right after. For a
widget whose size comes from its content (height `auto`), or a scrolling container
(Textual updates its scroll bars itself, and a scroll bar that comes or goes asks for its
own layout: `show_vertical_scrollbar`), that second layout changes nothing. Under a run's
stream each growth of the answer was two layouts of every widget on screen (measured with
`benchmarks/endless_stream.py`: a layout asked by a virtual size for every other one).

A widget class opts out with `virtual_size = virtual_size_without_layout()`.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive


def virtual_size_without_layout() -> Reactive[Size]:
    """`Widget.virtual_size` as a reactive that repaints nothing and lays nothing out."""
    return Reactive(Size(0, 0), layout=False)
