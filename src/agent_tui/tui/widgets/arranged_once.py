"""A screen's update lays its widgets out once and paints only what shows.

Textual's compositor (8.2) does more than the screen needs under a stream, and this one
does less (measured with `benchmarks/endless_stream.py`, the paint and the layout timed):

- It marks its map of every widget stale when a widget to repaint is not on screen
  (`Compositor.update_widgets`: a widget just mounted, or one scrolled out of view), and
  the layout that follows builds that map again (`reflow`) without marking it fresh: the
  first `widget.region` asked for by the paint right after arranged every widget of the
  screen a second time (395 arrangements for 182 layouts). Here a layout leaves it fresh.
- A partial paint (the transcript grew) drew every widget whose container overlaps the
  region to paint, each for its whole height: the header, the footer, the prompt and the
  thread's history beside the chat were drawn at every showing of a streamed answer.
  Here a widget is drawn only for the rows to paint, and only if it shows in them.
- Widgets are drawn front to back, and what a widget in front covers is thrown away:
  the containers under the transcript (seven levels, each a screenful of lines) were
  drawn and cut at every paint for nothing. Here a widget whose every piece on the rows
  to paint is already covered is not drawn.

`AgentScreen` uses `ArrangedOnce` as its compositor (`screen_compositor`), written
against Textual 8.2 (pinned in pyproject.toml): where Textual's compositor lacks a part it
reads or replaces, the screen keeps Textual's own (`tests/ui/widgets/test_arranged_once.py`
checks the two paint the same).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from textual._compositor import Compositor, ReflowResult
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

# What `ArrangedOnce` reads or replaces of Textual's compositor.
_PARTS = ("reflow", "_render_chops", "_get_renders", "cuts", "visible_widgets")


def screen_compositor() -> Compositor:
    """`ArrangedOnce` where this Textual's compositor has the parts it builds on (and
    keeps its map's freshness as `_full_map_invalidated`), else Textual's own."""
    compositor = Compositor()
    if all(hasattr(Compositor, part) for part in _PARTS) and isinstance(
        getattr(compositor, "_full_map_invalidated", None), bool
    ):
        return ArrangedOnce()
    return compositor


class ArrangedOnce(Compositor):
    """Textual's compositor, laying out once and painting only what shows."""

    def reflow(self, parent: Widget, size: Size) -> ReflowResult:
        result = super().reflow(parent, size)
        # `reflow` has just built the map of every widget: nothing to build again.
        self._full_map_invalidated = False
        return result

    def _render_chops(
        self, crop: Region, is_rendered_line: Callable[[int], bool]
    ) -> Sequence[Mapping[int, Strip]]:
        # Textual's own, but for what is drawn: see the module's doc.
        cuts = self.cuts
        chops: list[dict[int, Strip | None]] = [dict.fromkeys(line[:-1]) for line in cuts]
        for widget, (region, clip) in self.visible_widgets.items():  # front to back
            # The rows of the update only (the columns stay whole: each line is cut at
            # the edges of the widgets on it).
            rows = clip.intersection(Region(clip.x, crop.y, clip.width, crop.height))
            shown = region.intersection(rows)
            if not shown or not crop.overlaps(shown):
                continue
            first_cut, last_cut = shown.column_span
            pieces = {
                y: [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
                for y in shown.line_range
                if is_rendered_line(y)
            }
            if not any(
                chops[y].get(cut, True) is None for y, at in pieces.items() for cut in at[:-1]
            ):
                continue  # hidden behind what is in front, on every row to paint
            x, y0 = shown.x, shown.y
            lines = widget.render_lines(
                Region(x - region.x, y0 - region.y, shown.width, shown.height)
            )
            for y, strip in zip(shown.line_range, lines, strict=False):
                at = pieces.get(y)
                if at is None:
                    continue
                line = chops[y]
                for cut, piece in zip(at, strip.divide([cut - x for cut in at[1:]]), strict=False):
                    if line.get(cut) is None:
                        line[cut] = piece
        return chops  # type: ignore[return-value]
