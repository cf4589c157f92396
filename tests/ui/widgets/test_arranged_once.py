"""A screen's update under a growing, followed scroll: the layout arranges the screen once,
the paint draws only what shows in the rows it paints, and paints what Textual would."""

from __future__ import annotations

from typing import Any

from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.widgets import Static

from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.widgets.arranged_once import ArrangedOnce
from tests.support.screen import screen_text
from tests.support.waiting import WaitFor


class CountedStatic(Static):
    """A line that counts how often it is drawn."""

    drawn = 0

    def render_lines(self, crop: Region) -> Any:
        self.drawn += 1
        return super().render_lines(crop)


class GrowingScreen(AgentScreen[None]):
    def compose(self) -> ComposeResult:
        yield CountedStatic("the header", id="header")
        yield VerticalScroll(id="log")
        yield CountedStatic("the footer", id="footer")

    def on_mount(self) -> None:
        self.query_one("#log").anchor()


class GrowingApp(App[None]):
    CSS = "#log { height: 1fr; } #header, #footer { height: 1; }"

    def on_mount(self) -> None:
        self.push_screen(GrowingScreen())


async def test_a_followed_scroll_that_grows_paints_its_lines_not_the_screen(
    wait_for: WaitFor,
) -> None:
    app = GrowingApp()
    async with app.run_test(size=(60, 12)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GrowingScreen))
        screen = app.screen
        compositor = screen._compositor
        assert isinstance(compositor, ArrangedOnce)
        await wait_for(pilot, lambda: "the footer" in screen_text(app))
        header = screen.query_one("#header", CountedStatic)
        log = screen.query_one("#log", VerticalScroll)
        arranged = layouts = 0
        arrange, reflow = compositor._arrange_root, compositor.reflow

        def counted_arrange(*args: Any, **kwargs: Any) -> Any:
            nonlocal arranged
            arranged += 1
            return arrange(*args, **kwargs)

        def counted_reflow(*args: Any, **kwargs: Any) -> Any:
            nonlocal layouts
            layouts += 1
            return reflow(*args, **kwargs)

        compositor._arrange_root = counted_arrange  # type: ignore[method-assign]
        compositor.reflow = counted_reflow  # type: ignore[method-assign]
        painted = 0  # the header drawn by the app's own paints
        first = Static("line 0")
        await log.mount(first)
        for n in range(1, 21):
            before = header.drawn
            first.update(f"line 0, updated {n} times")  # out of view soon: still dirty
            await log.mount(Static(f"line {n}"))
            await pilot.pause()
            painted += header.drawn - before
            # What this compositor paints is what Textual's own paints, on every row.
            crop = Region(0, 1, 60, 10)
            ours = compositor._render_chops(crop, lambda y: True)
            theirs = Compositor._render_chops(compositor, crop, lambda y: True)
            for y in range(1, 11):
                assert "".join(s.text for s in ours[y].values() if s) == "".join(
                    s.text for s in theirs[y].values() if s
                ), f"row {y} after line {n}"
        assert painted <= 2  # not once per paint of the scroll (Textual's: 20)
        assert arranged <= layouts + 2  # once per layout (Textual's: twice)
        await wait_for(pilot, lambda: "line 20" in screen_text(app), what="the newest line")


def test_a_textual_without_the_parts_it_builds_on_keeps_its_own_compositor(
    monkeypatch: Any,
) -> None:
    from agent_tui.tui.widgets import arranged_once

    assert isinstance(arranged_once.screen_compositor(), ArrangedOnce)
    monkeypatch.delattr(Compositor, "_render_chops")
    kept = arranged_once.screen_compositor()
    assert type(kept) is Compositor
