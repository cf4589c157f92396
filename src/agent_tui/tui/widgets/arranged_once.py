"""A screen's layout arranges its widgets once, not twice.

Textual's compositor (8.2) marks its map of every widget stale when a widget to repaint
is not on screen (`Compositor.update_widgets`: a widget just mounted, or one scrolled out
of view), and the layout that follows builds that map again (`reflow`) without marking it
fresh: the first `widget.region` asked for by the paint right after arranged every widget
of the screen a second time, the same map again. Under a run's stream that was a third of
each layout (`benchmarks/endless_stream.py`, timed around `Compositor._arrange_root`: 395
arrangements for 182 layouts).

`AgentScreen` uses `ArrangedOnce` as its compositor.
"""

from __future__ import annotations

from textual._compositor import Compositor, ReflowResult
from textual.geometry import Size
from textual.widget import Widget


class ArrangedOnce(Compositor):
    """Textual's compositor whose full layout leaves its map of every widget fresh."""

    def reflow(self, parent: Widget, size: Size) -> ReflowResult:
        result = super().reflow(parent, size)
        # `reflow` has just built the map of every widget: nothing to build again.
        self._full_map_invalidated = False
        return result
