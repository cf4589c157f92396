"""Run a key's action only after the keys typed before it have been handled.

Priority bindings (`ctrl+s` in a form, `enter` in the chat prompt) run in the app as
soon as the key is read, while the letters read in the same burst (fast typing, a
paste without bracketed paste, a laggy ssh link) still wait in the focused widget's
queue. Acting at once would save or send the text without its last characters; with
nothing waiting, acting at once keeps the key's effect immediate.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.message_pump import MessagePump
from textual.screen import Screen


def after_queued(target: MessagePump, callback: Callable[[], object]) -> None:
    """Call `callback` now, or once `target` has handled the messages queued for it."""
    if target.message_queue_size:
        target.call_later(callback)
    else:
        callback()


def after_typed_keys(screen: Screen[Any], callback: Callable[[], object]) -> None:
    """Call `callback` once the focused widget has handled every key queued for it."""
    after_queued(screen.focused or screen, callback)
