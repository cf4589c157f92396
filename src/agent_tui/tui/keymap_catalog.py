"""Every remappable key binding of the app, by id — to check a config's `[keymap]`.

A `[keymap]` entry whose id matches no binding does nothing, silently (Textual ignores
it), which looks like a broken config to the user. The catalogue imports every screen,
modal, pane and widget module and reads the `BINDINGS` of each class, so it knows bindings of
screens that have not been opened yet. `agent-tui config keys` prints it; the app checks
the config's keymap against it after start-up.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from textual.binding import Binding
from textual.dom import DOMNode

PACKAGES = (
    "agent_tui.tui.screens",
    "agent_tui.tui.modals",
    "agent_tui.tui.chat",
    "agent_tui.tui.widgets",
)
APP_MODULES = ("agent_tui.tui.app",)


@dataclass(frozen=True, slots=True)
class KeyBinding:
    id: str
    keys: str
    description: str
    owner: str  # the class that declares it, e.g. "ThreadViewScreen"


def _modules() -> Iterator[str]:
    yield from APP_MODULES
    for package_name in PACKAGES:
        package = importlib.import_module(package_name)
        for module in pkgutil.walk_packages(package.__path__, f"{package_name}."):
            yield module.name


def _subclasses(cls: type[DOMNode]) -> Iterator[type[DOMNode]]:
    for subclass in cls.__subclasses__():
        yield subclass
        yield from _subclasses(subclass)


def catalog() -> dict[str, KeyBinding]:
    """Binding id → its binding, for every binding of agent-tui that has an id."""
    for name in _modules():
        importlib.import_module(name)
    found: dict[str, KeyBinding] = {}
    # Base classes first: an id redeclared by a subclass is named after the class that
    # introduced it.
    classes = sorted(set(_subclasses(DOMNode)), key=lambda cls: (len(cls.__mro__), cls.__name__))
    for cls in classes:
        if not cls.__module__.startswith("agent_tui."):
            continue
        for binding in cls.__dict__.get("BINDINGS", ()):
            if not isinstance(binding, Binding) or not binding.id:
                continue
            found.setdefault(
                binding.id,
                KeyBinding(
                    binding.id,
                    binding.key,
                    binding.description or binding.tooltip or binding.action,
                    cls.__name__,
                ),
            )
    return dict(sorted(found.items()))


def unknown_ids(keymap: Mapping[str, str], known: Mapping[str, KeyBinding]) -> list[str]:
    """The keymap's ids that name no binding, in the keymap's order."""
    return [binding_id for binding_id in keymap if binding_id not in known]


def unknown_ids_message(unknown: list[str], known: Mapping[str, KeyBinding]) -> str:
    """One line per unknown id, with the closest real id when there is one."""
    import difflib

    lines = []
    for binding_id in unknown:
        close = difflib.get_close_matches(binding_id, list(known), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        lines.append(f"[keymap] {binding_id!r} is not a binding id{hint}")
    lines.append("`agent-tui config keys` lists every binding id.")
    return "\n".join(lines)
