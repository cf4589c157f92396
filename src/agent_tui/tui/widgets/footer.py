"""The footer of the keys, drawn again only when the keys it shows changed.

Textual's `Footer` rebuilds its keys (a widget each) every time the screen says its
bindings may have changed: a focus change says so twice (at once and after the next
refresh) and a screen coming into view once more, so opening a screen rebuilt the same
keys three times in a row, each a mount and a layout (~20 ms of CPU for the thread view's
eight keys: `benchmarks/thread_view.py`). This one rebuilds them when what it would show
— each key, its label, whether it is enabled, its tooltip — differs from what it shows,
and draws the first ones at once, before the screen's first layout rather than after its
first paint.
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer


class KeysFooter(Footer):
    """A `Footer` that skips rebuilding keys identical to the ones it shows."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._drawn: tuple[Any, ...] | None = None

    def _keys(self) -> tuple[Any, ...]:
        """What `compose` draws from: the shown bindings, the palette key, the looks."""
        app = self.app
        return (
            tuple(
                (
                    binding.key,
                    app.get_key_display(binding),
                    binding.description,
                    binding.action,
                    binding.group,
                    enabled,
                    tooltip,
                )
                for (_, binding, enabled, tooltip) in self.screen.active_bindings.values()
                if binding.show or binding.action == "command_palette"
            ),
            self.show_command_palette,
            self.compact,
        )

    def bindings_changed(self, screen: Screen[Any]) -> None:
        # The first keys are drawn as soon as the screen says what they are (its focus
        # set as it mounts), not after the next refresh as `Footer` does: drawn before
        # the screen's first layout, they take no layout of their own after it.
        first = self._drawn is None and screen.app.app_focus and self.is_attached
        if first and screen is self.screen:
            self._bindings_ready = True
            self.call_later(self.recompose)
            return
        super().bindings_changed(screen)

    async def recompose(self) -> None:
        if not self.is_attached:
            return
        keys = self._keys()
        if keys == self._drawn:
            return
        self._drawn = keys
        await super().recompose()
