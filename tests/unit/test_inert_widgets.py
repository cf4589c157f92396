"""One rule for every widget that shows text: the UI's inputs, text areas and selects
come from `tui/widgets/inert.py`, which draws what they hold inertly (issue 21).

Read from the source, so a new screen that takes Textual's own `Input`, `TextArea` or
`Select` fails here before any server text reaches it.
"""

import re
from pathlib import Path

import agent_tui

RAW = {"Input", "TextArea", "Select"}
_IMPORT = re.compile(r"^from textual\.widgets import (?:\(([^)]*)\)|([^(\n]+)$)", re.M)


def _imported(source: str) -> set[str]:
    names: set[str] = set()
    for match in _IMPORT.finditer(source):
        listed = match.group(1) or match.group(2)
        names |= {name.strip() for name in listed.replace("\n", ",").split(",")}
    return names


def test_the_ui_takes_its_editing_widgets_from_the_inert_module() -> None:
    root = Path(agent_tui.__file__).parent / "tui"
    modules = {
        str(path.relative_to(root)): path.read_text(encoding="utf-8")
        for path in root.rglob("*.py")
        if path.name != "inert.py"
    }
    assert len(modules) > 50  # the UI was found
    raw = {name: sorted(_imported(text) & RAW) for name, text in modules.items()}
    raw = {name: found for name, found in raw.items() if found}
    assert not raw, f"take these from agent_tui.tui.widgets.inert: {raw}"
    # `textual.widgets.Input(...)` spelled out would slip past the imports.
    spelled = [
        name
        for name, text in modules.items()
        if re.search(r"widgets\.(Input|TextArea|Select)\(", text)
    ]
    assert not spelled, spelled


def test_the_rule_sees_a_raw_import() -> None:
    assert _imported("from textual.widgets import Button, Input, Static\n") >= {"Input"}
    assert _imported("from textual.widgets import (\n    Select,\n    Static,\n)\n") >= {"Select"}
