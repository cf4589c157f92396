"""From a graph's context JSON schema to typed form fields, and back to values.

Headless (no Textual): `tui/screens/assistants/schema_form.py` builds widgets from these specs and
the unit tests check the mapping and the validation without a UI.

Mapping: `string` → text, `integer` → int, `number` → float, `boolean` → bool, an
`enum` (a `Literal`) → a choice, anything else (objects, arrays, unions) → a JSON text
field. `anyOf [X, null]` is X that may be null; `$ref`s into `$defs` are followed.

A field left empty is not sent, so the graph's own default applies; the default is
shown beside the field. Keys of a context that the schema does not describe are kept
in an "other keys" JSON field rather than dropped.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from agent_tui.text import user_json
from agent_tui.text.user_json import JsonTextError, parse_json

FieldKind = Literal["str", "int", "float", "bool", "enum", "json"]


class FieldProblem(ValueError):
    """What is wrong with one field's input, in words for the user."""


@dataclass(frozen=True, slots=True)
class FieldSpec:
    name: str
    kind: FieldKind
    title: str = ""
    description: str = ""
    required: bool = False
    has_default: bool = False
    default: Any = None
    choices: tuple[Any, ...] = ()
    nullable: bool = False
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: float | None = None
    exclusive_maximum: float | None = None
    json_type: str | None = None  # for json fields: "object"/"array" when the schema says

    @property
    def label(self) -> str:
        return self.title or self.name

    def default_hint(self) -> str:
        """How the default reads beside the field (empty when there is none)."""
        return f"default: {json.dumps(self.default)}" if self.has_default else ""


_KINDS: dict[str, FieldKind] = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
}


def _resolve(node: Any, root: Mapping[str, Any], depth: int = 0) -> dict[str, Any]:
    """`node` with `$ref` (and a lone `allOf` ref, as pydantic writes) followed."""
    if not isinstance(node, Mapping):
        return {}
    result = dict(node)
    if depth > 20:
        return result
    ref = result.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part) if isinstance(target, Mapping) else None
        merged = {**_resolve(target, root, depth + 1), **result}
        merged.pop("$ref", None)
        return merged
    all_of = result.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1:
        merged = {**_resolve(all_of[0], root, depth + 1), **result}
        merged.pop("allOf", None)
        return merged
    return result


def _number(value: Any) -> float | None:
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if is_number else None


def field_spec(
    name: str, node: Mapping[str, Any], root: Mapping[str, Any], required: bool
) -> FieldSpec:
    """The form field for one property of a context schema."""
    prop = _resolve(node, root)
    nullable = False
    variants = prop.get("anyOf") or prop.get("oneOf")
    if isinstance(variants, list):
        resolved = [_resolve(v, root) for v in variants]
        non_null = [v for v in resolved if v.get("type") != "null"]
        nullable = len(non_null) < len(resolved)
        if len(non_null) == 1:
            prop = {**non_null[0], **{k: v for k, v in prop.items() if k not in ("anyOf", "oneOf")}}
    kind: FieldKind
    schema_type = prop.get("type")
    if isinstance(schema_type, list):
        types = [t for t in schema_type if t != "null"]
        nullable = nullable or len(types) < len(schema_type)
        schema_type = types[0] if len(types) == 1 else None
    choices: tuple[Any, ...] = ()
    if isinstance(prop.get("enum"), list) and prop["enum"]:
        kind, choices = "enum", tuple(prop["enum"])
    elif "const" in prop:
        kind, choices = "enum", (prop["const"],)
    elif isinstance(variants, list) and "type" not in prop:
        kind = "json"
    elif isinstance(schema_type, str) and schema_type in _KINDS:
        kind = _KINDS[schema_type]
    else:
        kind = "json"
    return FieldSpec(
        name=name,
        kind=kind,
        title=str(prop.get("title") or ""),
        description=str(prop.get("description") or ""),
        required=required,
        has_default="default" in prop,
        default=prop.get("default"),
        choices=choices,
        nullable=nullable,
        minimum=_number(prop.get("minimum")),
        maximum=_number(prop.get("maximum")),
        exclusive_minimum=_number(prop.get("exclusiveMinimum")),
        exclusive_maximum=_number(prop.get("exclusiveMaximum")),
        json_type=schema_type if kind == "json" and isinstance(schema_type, str) else None,
    )


def fields_from_schema(schema: Mapping[str, Any] | None) -> list[FieldSpec]:
    """One field per property of an object schema, in the schema's order."""
    if not schema:
        return []
    root = _resolve(schema, schema)
    properties = root.get("properties")
    if not isinstance(properties, Mapping):
        return []
    required = set(root.get("required") or ())
    return [
        field_spec(str(name), node, schema, str(name) in required)
        for name, node in properties.items()
    ]


def text_for(spec: FieldSpec, value: Any) -> str:
    """How a current value is written into a text field."""
    if value is None:
        return "null" if spec.kind == "json" else ""
    if spec.kind in ("str",) and isinstance(value, str):
        return value
    if spec.kind in ("int", "float") and _number(value) is not None:
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def _check_range(spec: FieldSpec, number: float) -> None:
    if spec.minimum is not None and number < spec.minimum:
        raise FieldProblem(f"must be at least {spec.minimum:g}")
    if spec.maximum is not None and number > spec.maximum:
        raise FieldProblem(f"must be at most {spec.maximum:g}")
    if spec.exclusive_minimum is not None and number <= spec.exclusive_minimum:
        raise FieldProblem(f"must be more than {spec.exclusive_minimum:g}")
    if spec.exclusive_maximum is not None and number >= spec.exclusive_maximum:
        raise FieldProblem(f"must be less than {spec.exclusive_maximum:g}")


class _Unset:
    """A field left empty: its key is not sent."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()


def parse_text(spec: FieldSpec, text: str) -> Any:
    """The value typed into a text field; `UNSET` when it is empty (key not sent).

    Raises FieldProblem with what is wrong.
    """
    stripped = text.strip()
    if not stripped and spec.kind != "str":
        if spec.required:
            raise FieldProblem("required")
        return UNSET
    if spec.kind == "str":
        if not text and spec.required:
            raise FieldProblem("required")
        return text if text or spec.required else UNSET
    if spec.nullable and stripped == "null":
        return None
    if spec.kind == "int":
        try:
            number = int(stripped)
        except ValueError:
            raise FieldProblem("must be a whole number, like 3") from None
        _check_range(spec, number)
        return number
    if spec.kind == "float":
        try:
            real = float(stripped)
        except ValueError:
            raise FieldProblem("must be a number, like 0.5") from None
        if not math.isfinite(real):
            raise FieldProblem("must be a finite number")
        _check_range(spec, real)
        return real
    if spec.kind == "bool":
        lowered = stripped.lower()
        if lowered in ("true", "false"):
            return lowered == "true"
        raise FieldProblem("must be true or false")
    try:
        value = parse_json(stripped)
    except JsonTextError as error:
        raise FieldProblem(str(error)) from None
    if spec.kind == "enum":
        if value not in spec.choices:
            raise FieldProblem(f"must be one of {', '.join(json.dumps(c) for c in spec.choices)}")
        return value
    expected = {"object": dict, "array": list}.get(spec.json_type or "")
    if expected is not None and not isinstance(value, expected) and value is not None:
        raise FieldProblem(f"must be a JSON {spec.json_type}")
    return value


def check_choice(spec: FieldSpec, value: Any) -> Any:
    """A value picked from a choice widget (bool or enum); UNSET when none is picked."""
    if value is UNSET:
        if spec.required:
            raise FieldProblem("required")
        return UNSET
    if spec.kind == "enum" and value not in spec.choices:
        raise FieldProblem("not one of the allowed values")
    return value


def parse_json_object(text: str, what: str = "value") -> dict[str, Any]:
    """A JSON object typed by the user (metadata, other keys); empty text is `{}`."""
    try:
        return user_json.parse_json_object(text, what)
    except JsonTextError as error:
        raise FieldProblem(str(error)) from None


def other_keys(specs: list[FieldSpec], context: Mapping[str, Any]) -> dict[str, Any]:
    """The keys of `context` that no field describes."""
    names = {spec.name for spec in specs}
    return {key: value for key, value in context.items() if key not in names}
