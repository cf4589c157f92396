"""Text that tries to take over a terminal, for every output path's tests.

A server, a config file or an export file can hold any of these; none may reach the
terminal as something it acts on. `HOSTILE` names each trick; `EVERYTHING` is all of
them in one string (a name, a value, a log line), with a visible `marker` kept around
it so a test can check the text was shown, not dropped.

`terminal_controls(text)` lists what a terminal would act on in output: ESC and every
other C0 control but newline and tab, DEL, C1 controls (8-bit CSI and OSC), and the bidi
overrides and isolates that make text read differently from what it is, and the
invisible format characters (zero-width spaces, joiners, BOM). Markup is text
to a terminal: it may be printed, literally.
"""

from __future__ import annotations

import re

from agent_tui.text.sanitize import INVISIBLE

# Text shaped like markup, as tools and people write it: a parser that reads it as
# markup fails on it (`[link=file:…]`, `[/]` with nothing open), applies it, or eats
# the backslash before `[`. Each must be painted as it is.
MARKUP_SHAPES: dict[str, str] = {
    "markup-link": "[link=file:///etc/passwd]x",
    "markup-errno": "[Errno -2] x",
    "markup-tag": "[bold]x[/]",
    "markup-lone-close": "[/]",
    "markup-click": "[@click=app.quit]x",
    "markup-unbalanced": "[ unbalanced",
    "markup-escaped": "a\\[bold]b",
}

HOSTILE: dict[str, str] = {
    "osc-title": "\x1b]0;pwned\x07",
    "osc52-clipboard": "\x1b]52;c;Y3VybCBldmlsfHNo\x07",
    "osc8-link": "\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\",
    "clear-screen": "\x1b[2J",
    "csi-colour": "\x1b[31mred\x1b[0m",
    "csi-cursor": "\x1b[H\x1b[?25l",
    "esc-reset": "\x1bc",
    "dcs": "\x1bP1$r0m\x1b\\",
    "c1-csi": "\x9b31m",
    "c1-osc": "\x9d0;pwned\x9c",
    "c0": "\x00\x07\x08\x0b\x0c\x7f",
    "carriage-return": "shown\rhidden",
    "bidi-override": "\u202eevil\u202c",
    "bidi-isolate": "\u2066x\u2069",
    "zero-width": "ad\u200bmin\u200d\ufeff\u00ad",
    **MARKUP_SHAPES,
    "textual-markup": "[@click=app.quit]click[/]",
    "rich-markup": "[bold]b[/bold]",
}

MARKER = "hostile"
EVERYTHING = MARKER + "".join(HOSTILE.values()) + MARKER

# Invisible format characters count too: no output path may pass them through raw
# (screens drop them, logs and JSON write them out), or two names that differ only by
# one would look the same.
_TERMINAL_CONTROL = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069" + INVISIBLE + "]"
)


def terminal_controls(text: str) -> list[str]:
    """The characters of `text` a terminal would act on (empty: the text is inert)."""
    return [repr(char) for char in _TERMINAL_CONTROL.findall(text)]
