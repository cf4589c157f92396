"""Fitting a value on one line of a given width, without wrapping. Headless.

A path keeps its start and its end (the file name), cut in the middle; other text is cut
at its end. A value written `main  (note)` keeps its main part whole while it fits and
gives up the note first. Widths are in characters: callers that show wide characters
also cut on the screen as a last resort.
"""

from __future__ import annotations

ELLIPSIS = "…"
NOTE_SEPARATOR = "  ("
MIN_NOTE = 8  # `  (abc…)`: shorter than this, a note says nothing and is left out


def cut_end(text: str, width: int) -> str:
    """`text` in `width` characters, its end replaced by `…` when too long."""
    if len(text) <= width:
        return text
    return (text[: max(width - 1, 0)] + ELLIPSIS)[: max(width, 0)]


def cut_middle(text: str, width: int) -> str:
    """`text` in `width` characters, its middle replaced by `…` when too long; the end
    (a path's file name) gets the larger part."""
    if len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    head = (width - 1) // 3
    tail = width - 1 - head
    return text[:head] + ELLIPSIS + text[len(text) - tail :]


def looks_like_path(text: str) -> bool:
    return "/" in text or "\\" in text


def fit_value(value: str, width: int) -> str:
    """`value` on one line of `width` characters: whole when it fits; else its note
    (`  (…)` at the end) cut, then left out; a path cut in the middle, anything else at
    its end."""
    if len(value) <= width:
        return value
    main, separator, note = value.partition(NOTE_SEPARATOR)
    if separator and len(main) + MIN_NOTE <= width:
        room = width - len(main) - len(separator) - 1  # the closing parenthesis stays
        return main + separator + cut_end(note.removesuffix(")"), room) + ")"
    cut = cut_middle if looks_like_path(main) else cut_end
    return cut(main, width)
