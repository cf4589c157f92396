"""Evaluators judge an answer against its reference as a user reads the words: exact
(surrounding space ignored), contains, regex, a JSON path, a user's function."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agent_tui.experiments.evaluators import EvaluatorError, Verdict, evaluator_of
from agent_tui.experiments.outputs import output_of, reference_of

EXAMPLE = {"id": "e1", "inputs": {"q": 1}, "outputs": None}


async def judged(spec: str, output: object, reference: object) -> bool | None:
    return (await evaluator_of(spec).verdict(output, reference, EXAMPLE)).passed


async def test_the_built_in_evaluators() -> None:
    assert await judged("exact", " Paris\n", "Paris") is True
    assert await judged("exact", "paris", "Paris") is False
    assert await judged("exact", {"a": 1}, {"a": 1}) is True
    assert await judged("contains", "The capital is Paris.", "Paris") is True
    assert await judged("contains", "Rome", "Paris") is False
    assert await judged("regex:^\\d+$", "1234", None) is True
    assert await judged("regex:^\\d+$", "12a", None) is False
    assert (
        await judged("json:city.name", '{"city": {"name": "Oslo"}}', {"city": {"name": "Oslo"}})
        is True
    )
    # A reference without the path is compared whole.
    assert await judged("json:$.items[1]", {"items": [1, 2]}, 2) is True
    verdict = await evaluator_of("json:missing").verdict({"a": 1}, 1, EXAMPLE)
    assert verdict == Verdict(False, comment="no missing in the answer")


async def test_no_reference_no_verdict() -> None:
    assert await judged("exact", "x", None) is None
    assert await judged("contains", "x", None) is None


async def test_a_users_function(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "unit_judges.py").write_text(
        "async def close(outputs, reference_outputs, inputs):\n"
        "    return {'score': 0.5 if outputs != reference_outputs else 1, 'comment': str(inputs)}\n"
        "def broken(outputs):\n"
        "    raise KeyError('nope')\n"
        "def nothing(x):\n"
        "    return True\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    verdict = await evaluator_of("unit_judges:close").verdict("a", "b", EXAMPLE)
    assert verdict == Verdict(True, 0.5, "{'q': 1}")
    verdict = await evaluator_of("unit_judges:broken").verdict("a", "b", EXAMPLE)
    assert verdict == Verdict(False, comment="the evaluator failed: KeyError: 'nope'")
    with pytest.raises(EvaluatorError, match="takes none of example, inputs, outputs"):
        evaluator_of("unit_judges:nothing")
    with pytest.raises(EvaluatorError, match="has no function missing"):
        evaluator_of("unit_judges:missing")


def test_unknown_evaluators_say_what_there_is() -> None:
    with pytest.raises(EvaluatorError, match="exact, contains, regex:PATTERN, json:PATH"):
        evaluator_of("fuzzy")
    with pytest.raises(EvaluatorError, match="not a regular expression"):
        evaluator_of("regex:[")


def test_answers_and_references_are_read_alike() -> None:
    values = {"messages": [{"type": "human", "content": "hi"}, {"type": "ai", "content": "HI"}]}
    assert output_of(values) == "HI"
    assert output_of({"summary": "s", "n": 2}) == {"summary": "s", "n": 2}
    assert output_of({"summary": "s", "n": 2}, ["summary"]) == "s"
    assert output_of({"summary": "s", "n": 2}, ["summary", "n"]) == {"summary": "s", "n": 2}
    assert reference_of({"answer": "HI"}) == "HI"
    assert reference_of({"messages": [{"role": "assistant", "content": "HI"}]}) == "HI"
    assert reference_of({"summary": "s", "other": 1}, ["summary"]) == "s"
    assert reference_of(None) is None
