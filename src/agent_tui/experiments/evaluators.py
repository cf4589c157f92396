"""Evaluators: how an answer is judged against its example's reference.

- `exact`: the answer equals the reference (text with surrounding space ignored;
  other values as JSON);
- `contains`: the reference's text is in the answer's;
- `regex:PATTERN`: the answer's text matches PATTERN (anywhere; no reference needed);
- `json:PATH`: the value at PATH (`a.b.0`, or `$.a.b[0]`) of the answer (parsed when it
  is JSON text) equals the reference's value there (or the reference itself, when it
  has no such path);
- `module:function`: a Python function of the user's, imported from the current folder
  or the environment, run here. It is called with the keywords it names of `inputs`,
  `outputs` (the answer), `reference_outputs` (the reference) and `example` (the
  example as JSON), may be async, and returns a bool, a number (0 fails), None (no
  verdict) or a dict with `score` (or `pass`) and an optional `comment`.

An example without a reference gets no verdict from the evaluators that need one.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.experiments.outputs import as_text

_MISSING = object()


class EvaluatorError(ValueError):
    """An evaluator that cannot be used: the message says why (before anything runs)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    passed: bool | None  # None: no verdict (no reference, or the evaluator gave none)
    score: float | None = None
    comment: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"passed": self.passed, "score": self.score, "comment": self.comment}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Verdict:
        return cls(data.get("passed"), data.get("score"), data.get("comment"))


@dataclass(frozen=True, slots=True)
class Evaluator:
    spec: str
    judge: Callable[..., Any]  # (output, reference, example) -> Verdict (or awaitable)
    needs_reference: bool = True

    async def verdict(self, output: Any, reference: Any, example: dict[str, Any]) -> Verdict:
        if self.needs_reference and reference is None:
            return Verdict(None, comment="no reference")
        try:
            result = self.judge(output, reference, example)
            if inspect.isawaitable(result):
                result = await result
        except Exception as error:  # a user's function: its failure is a verdict, not a crash
            return Verdict(False, comment=f"the evaluator failed: {type(error).__name__}: {error}")
        return result if isinstance(result, Verdict) else _read_result(result)


def _read_result(result: Any) -> Verdict:
    if result is None:
        return Verdict(None)
    if isinstance(result, bool):
        return Verdict(result, float(result))
    if isinstance(result, int | float):
        return Verdict(bool(result), float(result))
    if isinstance(result, dict):
        comment = result.get("comment")
        comment = None if comment is None else str(comment)
        if "pass" in result:
            return Verdict(bool(result["pass"]), _number(result.get("score")), comment)
        score = result.get("score")
        if isinstance(score, bool | int | float):
            return Verdict(bool(score), float(score), comment)
        return Verdict(None, None, comment)
    return Verdict(bool(result))


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def _exact(output: Any, reference: Any, example: dict[str, Any]) -> Verdict:
    if isinstance(output, str) or isinstance(reference, str):
        return Verdict(as_text(output).strip() == as_text(reference).strip())
    return Verdict(output == reference)


def _contains(output: Any, reference: Any, example: dict[str, Any]) -> Verdict:
    return Verdict(as_text(reference).strip() in as_text(output))


def _path(text: str) -> list[str | int]:
    text = text.strip()
    if text.startswith("$"):
        text = text[1:].lstrip(".")
    parts: list[str | int] = []
    for piece in re.findall(r"[^.\[\]]+", text):
        parts.append(int(piece) if piece.isdigit() else piece.strip("'\""))
    return parts


def _at(value: Any, path: list[str | int]) -> Any:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return _MISSING
    for part in path:
        if isinstance(value, dict) and str(part) in value:
            value = value[str(part)]
        elif isinstance(value, list) and isinstance(part, int) and part < len(value):
            value = value[part]
        else:
            return _MISSING
    return value


def _json_path(path_text: str) -> Callable[..., Verdict]:
    path = _path(path_text)
    if not path:
        raise EvaluatorError(f"json:{path_text}: name a path, e.g. json:answer.city")

    def judge(output: Any, reference: Any, example: dict[str, Any]) -> Verdict:
        found = _at(output, path)
        if found is _MISSING:
            return Verdict(False, comment=f"no {path_text} in the answer")
        wanted = _at(reference, path)
        wanted = reference if wanted is _MISSING else wanted
        return Verdict(found == wanted)

    return judge


def _regex(pattern: str) -> Callable[..., Verdict]:
    try:
        compiled = re.compile(pattern)
    except re.error as error:
        raise EvaluatorError(f"regex:{pattern}: not a regular expression ({error})") from None

    def judge(output: Any, reference: Any, example: dict[str, Any]) -> Verdict:
        return Verdict(compiled.search(as_text(output)) is not None)

    return judge


def _user_function(spec: str) -> Callable[..., Any]:
    module_name, _, name = spec.partition(":")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))  # as `python -m` finds the user's modules
    try:
        module = importlib.import_module(module_name)
    except Exception as error:
        raise EvaluatorError(
            f"{spec}: cannot import {module_name} ({type(error).__name__}: {error})"
        ) from None
    function = getattr(module, name, None)
    if not callable(function):
        raise EvaluatorError(f"{spec}: {module_name} has no function {name}")
    try:
        wanted = set(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        wanted = set()
    known = {"inputs", "outputs", "reference_outputs", "example"}
    if not wanted & known:
        raise EvaluatorError(
            f"{spec}: the function takes none of {', '.join(sorted(known))} (by name)"
        )

    def judge(output: Any, reference: Any, example: dict[str, Any]) -> Any:
        given = {
            "inputs": example.get("inputs"),
            "outputs": output,
            "reference_outputs": reference,
            "example": example,
        }
        return function(**{key: value for key, value in given.items() if key in wanted})

    return judge


def evaluator_of(spec: str) -> Evaluator:
    """The evaluator `spec` names; `EvaluatorError` saying what is wrong."""
    kind, colon, rest = spec.partition(":")
    if spec == "exact":
        return Evaluator(spec, _exact)
    if spec == "contains":
        return Evaluator(spec, _contains)
    if kind == "regex" and colon:
        return Evaluator(spec, _regex(rest), needs_reference=False)
    if kind == "json" and colon:
        return Evaluator(spec, _json_path(rest))
    if colon and rest and re.fullmatch(r"[A-Za-z_][\w.]*", kind) and rest.isidentifier():
        return Evaluator(spec, _user_function(spec), needs_reference=False)
    raise EvaluatorError(
        f"unknown evaluator {spec!r}: exact, contains, regex:PATTERN, json:PATH or module:function"
    )
