"""Run a key's action only after the keys typed before it have been handled.

Priority bindings (`ctrl+s` in a form, `enter` in the chat prompt) run in the app as
soon as the key is read, while the letters read in the same burst (fast typing, a
paste without bracketed paste, a laggy ssh link) still wait in the focused widget's
queue. Acting at once would save or send the text without its last characters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.screen import Screen


def after_typed_keys(screen: Screen[Any], callback: Callable[[], object]) -> None:
    """Call `callback` once the focused widget has handled every key queued for it."""
    (screen.focused or screen).call_later(callback)
