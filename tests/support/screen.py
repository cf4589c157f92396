"""What the user sees of a running app, read through Textual's public API only.

- `screen_text(app)`: every character painted now, read from the app's own screenshot
  (`App.export_screenshot`, the SVG the snapshot tests compare); `painted_control_codes`
  lists any escape or control character in it (there must be none).
- `toasts(app)`: what the notifications on the screen say. Pilot tests show none unless
  the app runs with `run_test(notifications=True)`; a toast appears a moment after
  `notify` and is gone after its timeout, so wait for one with `toast_saying`.
- `footer_keys(app)`: the footer's keys as shown (`^n`, `esc`, `?`) and what each does.

Widgets that Textual does not export (`Toast`, `FooterKey`) are found by their type name,
and read with `render()`, as they paint themselves.
"""

from __future__ import annotations

import html
import re
from typing import Any

from rich.cells import cell_len
from textual.app import App
from textual.pilot import Pilot
from textual.widget import Widget

from tests.support.waiting import wait_for

# One run of text in Rich's SVG export: its column (x / the width of a cell), its line
# (the clip path of the line it is on) and its characters (HTML-escaped, spaces as &#160;).
_SVG_TEXT = re.compile(
    r'<text class="[^"]*" x="([0-9.e+-]+)" y="[^"]*" textLength="[^"]*" '
    r'clip-path="url\(#[^)]*-line-(\d+)\)">(.*?)</text>',
    re.DOTALL,
)
_SVG_CELL_WIDTH = 20 * 0.61  # Rich's export: 20 px characters, 0.61 wide


def screen_text(app: App[Any]) -> str:
    """Every character the screen paints now (what the terminal would get, minus styles),
    one line per row, with the modal's background screens when a modal is open."""
    width, height = app.size
    rows = [[" "] * width for _ in range(height)]
    runs = _SVG_TEXT.findall(app.export_screenshot())
    assert runs, "no text in the app's screenshot: has Rich's SVG export changed?"
    for x, line, escaped in runs:
        cells = rows[int(line)]
        column = round(float(x) / _SVG_CELL_WIDTH)
        # Each line of the export ends with its newline: not a character on the screen.
        for char in html.unescape(escaped).replace("\xa0", " ").replace("\n", ""):
            char_width = cell_len(char)
            if char_width == 0:  # combining: part of the character before it
                if column:
                    cells[column - 1] += char
            elif column < width:
                cells[column] = char
                if char_width == 2 and column + 1 < width:
                    cells[column + 1] = ""  # the right half of a wide character
            column += char_width
    return "\n".join("".join(cells) for cells in rows)


def painted_control_codes(app: App[Any]) -> list[str]:
    """Escape or control characters in what is painted (there must be none)."""
    text = screen_text(app)
    return [c for c in text if c != "\n" and (ord(c) < 32 or 0x7F <= ord(c) < 0xA0)]


def toasts(app: App[Any]) -> list[str]:
    """What each notification on the screen says, oldest first: its title (when it has
    one) and its message on the next line, as shown."""
    screen = app.screen
    assert screen.query("ToastRack"), (
        "this screen shows no notifications: run the app with run_test(notifications=True)"
    )
    return [str(toast.render()) for toast in screen.query("Toast")]


def toast_widgets(app: App[Any], words: str) -> list[Widget]:
    """The notifications on the screen that say `words` (for their severity classes,
    `-information`, `-warning` and `-error`)."""
    return [toast for toast in app.screen.query("Toast") if words in str(toast.render())]


async def toast_saying(pilot: Pilot[Any], words: str, *, timeout: float = 60.0) -> str:
    """Wait until a notification on the screen says `words`, and return all it says.

    Checked while the app keeps running, without waiting for its workers: a toast is on
    screen for a few seconds only.
    """
    said: list[str] = []

    def shown() -> bool:
        if not pilot.app.screen.query("ToastRack"):
            return False  # a screen pushed a moment ago: its notifications come with it
        said[:] = [text for text in toasts(pilot.app) if words in text]
        return bool(said)

    try:
        await wait_for(pilot, shown, timeout=timeout, what=repr(words), workers=False)
    except AssertionError as timed_out:
        raise AssertionError(f"{timed_out} in a notification; shown: {toasts(pilot.app)}") from None
    return said[0]


async def toasts_shown(pilot: Pilot[Any], count: int, *, timeout: float = 60.0) -> list[str]:
    """Wait until at least `count` notifications are on the screen; what they all say."""
    await wait_for(
        pilot,
        lambda: len(toasts(pilot.app)) >= count,
        timeout=timeout,
        what=f"{count} notification(s)",
        workers=False,
    )
    return toasts(pilot.app)


async def clear_toasts(pilot: Pilot[Any]) -> None:
    """Dismiss every notification, and wait until none is left on the screen."""
    pilot.app.clear_notifications()
    await wait_for(pilot, lambda: not toasts(pilot.app), what="no notification", workers=False)


def _key_and_description(hint: Widget) -> tuple[str, str]:
    """A footer key's hint as shown, `^n New thread`: its key and what it does."""
    key, _, description = str(hint.render()).strip().partition(" ")
    return key, description


def footer_keys(app: App[Any]) -> dict[str, str]:
    """What the footer shows: each key as displayed (`^n`, `esc`, `?`) → what it does."""
    return dict(_key_and_description(hint) for hint in app.screen.query("FooterKey"))


def footer_keys_in_view(app: App[Any]) -> set[str]:
    """The footer's keys (as displayed) whose whole hint is on screen: not past the right
    edge, not under the command palette's hint docked there."""
    width = app.screen.size.width
    hints = [hint for hint in app.screen.query("FooterKey") if hint.display and hint.region.width]
    docked = [hint.region.x for hint in hints if hint.has_class("-command-palette")]
    edge = min([width, *docked])
    return {
        _key_and_description(hint)[0]
        for hint in hints
        if not hint.has_class("-command-palette") and hint.region.right <= edge
    }
