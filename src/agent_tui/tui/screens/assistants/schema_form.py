"""A form generated from a graph's context JSON schema (see `schema_fields`).

One row per property: the label, the default and description (inert text: they come
from the server), the input, and a line for that field's problem. Kinds:

- `str`, `int`, `float` → `Input` (numbers restricted to numeric typing);
- `enum` → `Select` of the allowed values;
- `bool` → `Switch` when the field is required; otherwise a `Select` of true/false
  that can be left "not set" — a Switch cannot say "not set", and leaving a key out
  (so the graph's default applies, or an update drops it) is a real choice here;
- anything else (objects, arrays, unions) → a JSON `TextArea`.

Keys the schema does not describe go in "Other keys (JSON)", so a pre-filled form never
loses them. With no schema at all, that field is the whole context.

`collect()` checks every field, shows each problem under its field, and returns the
context or raises `FormInvalid`. It never talks to the server.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static, Switch
from textual.widgets.select import NoSelection

from agent_tui.assistants.schema_fields import (
    UNSET,
    FieldProblem,
    FieldSpec,
    check_choice,
    other_keys,
    parse_json_object,
    parse_text,
    text_for,
)
from agent_tui.tui.widgets.inert import Input, Select, TextArea, editable_json
from agent_tui.tui.widgets.text import server_text

OTHER_KEYS = "__other__"  # the problem key of the "other keys" field


class FormInvalid(Exception):
    """Some fields have problems: `problems` maps field name → message."""

    def __init__(self, problems: Mapping[str, str]) -> None:
        super().__init__("; ".join(f"{name}: {msg}" for name, msg in problems.items()))
        self.problems = dict(problems)


def _json_text(value: Any) -> str:
    return editable_json(value) if value else ""


class SchemaForm(Vertical):
    DEFAULT_CSS = """
    SchemaForm { height: auto; }
    SchemaForm .field { height: auto; margin-bottom: 1; }
    SchemaForm .field-label { text-style: bold; }
    SchemaForm .field-hint { color: $text-muted; }
    SchemaForm .field-problem { color: $error; display: none; }
    SchemaForm .field-problem.-shown { display: block; }
    SchemaForm .field.-invalid Input, SchemaForm .field.-invalid TextArea,
    SchemaForm .field.-invalid Select { border: tall $error; }
    SchemaForm TextArea { height: 6; }
    """

    def __init__(
        self,
        specs: Sequence[FieldSpec],
        context: Mapping[str, Any] | None = None,
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.specs = list(specs)
        self._initial = dict(context or {})
        # Values no field can show (outside an enum, not a boolean) go to "Other keys"
        # with a word under their field, as `fill` does: never dropped in silence.
        self._unfit = unfit_values(self.specs, self._initial)
        self.not_taken = {
            name: _not_taken_text(value, why) for name, (value, why) in self._unfit.items()
        }

    # -- building ---------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        for index, spec in enumerate(self.specs):
            with Vertical(classes="field", id=f"field-{index}"):
                label = server_text(spec.label)
                if spec.required:
                    label.append(" *", style="bold red")
                label.append_text(server_text(f"  ({spec.name} · {spec.kind})", style="dim"))
                yield Static(label, classes="field-label")
                hint = " · ".join(h for h in (spec.default_hint(), spec.description) if h)
                if spec.kind in ("str", "int", "float", "json") and not spec.required:
                    hint = " · ".join(h for h in (hint, "empty: not set") if h)
                if hint:
                    yield Static(server_text(hint), classes="field-hint")
                yield self._input_for(index, spec)
                yield Static("", classes="field-problem")
        with Vertical(classes="field", id="field-other"):
            title = "Other keys (JSON object)" if self.specs else "Context (JSON object)"
            yield Static(Text(title), classes="field-label")
            hint = (
                "keys the graph's schema does not describe; kept as they are"
                if self.specs
                else "this graph publishes no context schema: write the context as JSON"
            )
            yield Static(Text(hint), classes="field-hint")
            extra = {
                **other_keys(self.specs, self._initial),
                **{name: value for name, (value, _why) in self._unfit.items()},
            }
            area = TextArea(_json_text(extra), language=None, id="input-other")
            area.show_line_numbers = False
            yield area
            yield Static("", classes="field-problem")

    def on_mount(self) -> None:
        if self.not_taken:
            self.show_problems(self.not_taken)

    def _input_for(self, index: int, spec: FieldSpec) -> Widget:
        widget_id = f"input-{index}"
        value = self._initial.get(spec.name, UNSET)
        if spec.kind == "enum":
            options = [(server_text(_show(choice)), i) for i, choice in enumerate(spec.choices)]
            picked: int | NoSelection = Select.NULL
            if value is not UNSET and value in spec.choices:
                picked = spec.choices.index(value)
            elif spec.required and spec.has_default and spec.default in spec.choices:
                picked = spec.choices.index(spec.default)
            return Select(
                options,
                prompt="not set",
                allow_blank=not spec.required,
                value=picked if picked is not Select.NULL or not spec.required else 0,
                id=widget_id,
            )
        if spec.kind == "bool" and spec.required:
            start = value if isinstance(value, bool) else bool(spec.default)
            return Switch(start, id=widget_id)
        if spec.kind == "bool":
            return Select(
                [(Text("true"), 1), (Text("false"), 0)],
                prompt="not set",
                value=int(value) if isinstance(value, bool) else Select.NULL,
                id=widget_id,
            )
        text = "" if value is UNSET else text_for(spec, value)
        if spec.kind == "json":
            area = TextArea(text, language=None, id=widget_id)
            area.show_line_numbers = False
            return area
        restrict = (
            None if spec.nullable else {"int": r"-?[0-9]*", "float": r"[-+0-9.eE]*"}.get(spec.kind)
        )
        placeholder = {"int": "a whole number", "float": "a number"}.get(spec.kind, "text")
        return Input(text, placeholder=placeholder, restrict=restrict, id=widget_id)

    # -- reading ----------------------------------------------------------------------

    def collect(self) -> dict[str, Any]:
        """The context the form describes; shows problems and raises FormInvalid."""
        context, problems = self.gather()
        self.show_problems(problems)
        if problems:
            raise FormInvalid(problems)
        return context

    def gather(self) -> tuple[dict[str, Any], dict[str, str]]:
        """What the fields that parse hold, and each other field's problem (nothing
        shown)."""
        context: dict[str, Any] = {}
        problems: dict[str, str] = {}
        for index, spec in enumerate(self.specs):
            try:
                value = self._read(index, spec)
            except FieldProblem as problem:
                problems[spec.name] = str(problem)
                continue
            if value is not UNSET:
                context[spec.name] = value
        try:
            extra = parse_json_object(self.query_one("#input-other", TextArea).text, "this")
        except FieldProblem as problem:
            problems[OTHER_KEYS] = str(problem)
        else:
            clash = sorted(set(extra) & set(context))
            if clash:
                problems[OTHER_KEYS] = f"also set in the fields above: {', '.join(clash)}"
            context.update(extra)
        return context, problems

    def _read(self, index: int, spec: FieldSpec) -> Any:
        widget = self.query_one(f"#input-{index}")
        if isinstance(widget, Switch):
            return widget.value
        if isinstance(widget, Select):
            picked = widget.value
            if picked is Select.NULL or not isinstance(picked, int):
                return check_choice(spec, UNSET)
            if spec.kind == "bool":
                return check_choice(spec, bool(picked))
            return check_choice(spec, spec.choices[picked])
        if isinstance(widget, TextArea):
            return parse_text(spec, widget.text)
        assert isinstance(widget, Input)
        return parse_text(spec, widget.value)

    # -- problems ---------------------------------------------------------------------

    def show_problems(self, problems: Mapping[str, str]) -> None:
        """Show each problem under its field (by field name; OTHER_KEYS for the rest);
        clear the others. Problems for unknown names go under "other keys"."""
        names = {spec.name: f"#field-{i}" for i, spec in enumerate(self.specs)}
        leftovers = [
            f"{name}: {msg}"
            for name, msg in problems.items()
            if name not in names and name != OTHER_KEYS
        ]
        for name, selector in [*names.items(), (OTHER_KEYS, "#field-other")]:
            message = problems.get(name, "")
            if name == OTHER_KEYS and leftovers:
                message = "\n".join([message, *leftovers] if message else leftovers)
            row = self.query_one(selector, Vertical)
            row.set_class(bool(message), "-invalid")
            line = row.query_one(".field-problem", Static)
            line.update(server_text(message))
            line.set_class(bool(message), "-shown")

    def first_invalid(self) -> Widget | None:
        """The input of the first field with a problem (to move focus there)."""
        for row in self.query(".field.-invalid"):
            for widget in row.query("Input, TextArea, Select, Switch"):
                return widget
        return None

    def fill(self, context: Mapping[str, Any]) -> dict[str, str]:
        """Put `context` into the fields (after editing it as raw JSON). A value a field
        cannot show (outside an enum, not a boolean) goes to "Other keys" instead, so it
        is not lost; the answer (field → why) is also shown under each such field."""
        not_taken: dict[str, str] = {}
        kept: dict[str, Any] = {}

        def refuse(spec: FieldSpec, value: Any, why: str) -> None:
            not_taken[spec.name] = _not_taken_text(value, why)
            kept[spec.name] = value

        for index, spec in enumerate(self.specs):
            widget = self.query_one(f"#input-{index}")
            value = context.get(spec.name, UNSET)
            if isinstance(widget, Switch):
                if value is not UNSET and not isinstance(value, bool):
                    refuse(spec, value, "is not true or false")
                widget.value = value if isinstance(value, bool) else bool(spec.default)
            elif isinstance(widget, Select):
                if spec.kind == "bool" and isinstance(value, bool):
                    widget.value = int(value)
                elif spec.kind == "enum" and value is not UNSET and value in spec.choices:
                    widget.value = spec.choices.index(value)
                else:
                    if value is not UNSET:
                        why = "is not true or false" if spec.kind == "bool" else "is not a choice"
                        refuse(spec, value, why)
                    widget.clear()
            elif isinstance(widget, TextArea):
                widget.text = "" if value is UNSET else text_for(spec, value)
            elif isinstance(widget, Input):
                widget.value = "" if value is UNSET else text_for(spec, value)
        extra = {**other_keys(self.specs, context), **kept}
        self.query_one("#input-other", TextArea).text = _json_text(extra)
        self.show_problems(not_taken)
        return not_taken


def unfit_values(
    specs: Sequence[FieldSpec], context: Mapping[str, Any]
) -> dict[str, tuple[Any, str]]:
    """The values of `context` that their field cannot show: name → (value, why)."""
    unfit: dict[str, tuple[Any, str]] = {}
    for spec in specs:
        if spec.name not in context:
            continue
        value = context[spec.name]
        if spec.kind == "enum" and value not in spec.choices:
            unfit[spec.name] = (value, "is not a choice")
        elif spec.kind == "bool" and not isinstance(value, bool):
            unfit[spec.name] = (value, "is not true or false")
    return unfit


def _not_taken_text(value: Any, why: str) -> str:
    return f"{json.dumps(value, ensure_ascii=False)} {why}: kept in Other keys"


def _show(choice: Any) -> str:
    return choice if isinstance(choice, str) else repr(choice)
