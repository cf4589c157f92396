"""Datasets in LangSmith's JSONL shape: every bad line named, nothing taken from a bad
file, ids kept; and an example made from a thread's turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.datasets.from_thread import example_from_messages
from agent_tui.datasets.jsonl import read_examples, write_examples
from agent_tui.datasets.model import DatasetError, Example
from agent_tui.datasets.store import DatasetStore


def test_round_trip_keeps_ids_inputs_outputs_metadata() -> None:
    examples = [Example({"q": "a"}, {"answer": "b"}, {"k": 1}), Example({"q": "c"})]
    again = read_examples(write_examples(examples), "f.jsonl")
    assert [e.as_json() for e in again] == [e.as_json() for e in examples]


def test_bad_lines_are_named_and_nothing_is_taken() -> None:
    text = '{"inputs": {}}\n[1]\n{"inputs": {}, "outputs": "x"}\n{"id": "a", "inputs": {}}\n{"id": "a", "inputs": {}}\n'
    with pytest.raises(DatasetError) as raised:
        read_examples(text, "f.jsonl")
    assert str(raised.value) == (
        "3 lines are not an example (nothing was imported):\n"
        "  f.jsonl:2: an example is a JSON object with `inputs`\n"
        "  f.jsonl:3: `outputs` must be a JSON object (or null)\n"
        "  f.jsonl:5: id 'a' is also on line 4"
    )
    with pytest.raises(DatasetError, match="holds no examples"):
        read_examples("\n\n", "empty.jsonl")


def test_a_store_write_is_whole_and_an_import_again_replaces(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path)
    first = [Example({"q": 1}, id="one"), Example({"q": 2}, id="two")]
    assert store.add_examples("qa", first) == 2
    assert store.add_examples("qa", [Example({"q": 3}, id="two"), Example({"q": 4})]) == 1
    assert [e.inputs["q"] for e in store.load("qa").examples] == [1, 3, 4]
    assert store.names() == ["qa"]
    with pytest.raises(DatasetError, match="cannot name a dataset"):
        store.load("../etc")
    with pytest.raises(DatasetError, match=r"no dataset 'nope' \(datasets: qa\)"):
        store.load("nope")


def test_an_example_from_a_turn() -> None:
    messages = [
        {"type": "human", "content": "hi"},
        {"type": "ai", "content": "", "tool_calls": [{"name": "t", "args": {}}]},
        {"type": "tool", "content": "42"},
        {"type": "ai", "content": "hello"},
        {"type": "human", "content": "one"},
        {"type": "human", "content": [{"type": "text", "text": "two"}]},
        {"type": "ai", "content": "ONE TWO"},
        {"type": "human", "content": "unanswered"},
    ]
    first = example_from_messages(messages, turn=0)
    assert first.inputs == {"messages": [{"role": "user", "content": "hi"}]}
    assert first.outputs == {"answer": "hello"}
    second = example_from_messages(messages, turn=1)
    assert second.inputs["messages"] == [
        {"role": "user", "content": "one"},
        {"role": "user", "content": "two"},
    ]
    assert second.outputs == {"answer": "ONE TWO"}
    last = example_from_messages(messages, with_answer=False)
    assert (last.inputs["messages"][0]["content"], last.outputs) == ("unanswered", None)
    with pytest.raises(DatasetError, match="no answer to keep as the reference"):
        example_from_messages(messages)
    with pytest.raises(DatasetError, match="has 3 turns, not turn 5"):
        example_from_messages(messages, turn=5)
