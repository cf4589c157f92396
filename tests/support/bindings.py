"""The key bindings a class of widget, screen or app has, from the `BINDINGS` it declares."""

from __future__ import annotations

from textual.binding import Binding
from textual.dom import DOMNode


def bindings_of(node: type[DOMNode]) -> list[Binding]:
    """Every binding an instance of `node` gets: the `BINDINGS` of its classes, base
    classes first, a subclass's bindings of a key replacing its bases' (as Textual merges
    them; compound keys such as `ctrl+c,super+c` are one binding per key)."""
    by_key: dict[str, list[Binding]] = {}
    for cls in reversed(node.__mro__):
        if issubclass(cls, DOMNode) and "BINDINGS" in vars(cls):
            declared: dict[str, list[Binding]] = {}
            for binding in Binding.make_bindings(vars(cls)["BINDINGS"]):
                declared.setdefault(binding.key, []).append(binding)
            by_key.update(declared)
    return [binding for bindings in by_key.values() for binding in bindings]
