"""Datasets in LangSmith's JSONL shape: every bad line named, nothing taken from a bad
file, ids kept; and an example made from a thread's turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.datasets.from_thread import MessageRef, example_from_messages, turn_of_message
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


def test_the_turn_of_a_message() -> None:
    messages: list[dict[str, Any]] = [
        {"type": "system", "content": "be brief", "id": "s"},
        {"type": "human", "content": "hi", "id": "h1"},
        {"type": "ai", "content": "", "tool_calls": [{"name": "t", "args": {}}], "id": "call"},
        {"type": "tool", "content": "42", "id": "tool"},
        {"type": "ai", "content": "hello", "id": "a1"},
        {"type": "human", "content": "one", "id": "h2"},
        {"type": "human", "content": "two", "id": "h3"},
        {"type": "ai", "content": "ONE TWO", "id": "a2"},
        {"type": "human", "content": "unanswered", "id": "h4"},
    ]
    turns = {m["id"]: turn_of_message(messages, m["id"]) for m in messages}
    assert turns == {
        "s": None,  # before the first human message: no turn
        "h1": 0, "call": 0, "tool": 0, "a1": 0,
        "h2": 1, "h3": 1, "a2": 1,
        "h4": 2,
    }  # fmt: skip
    assert turn_of_message(messages, "gone") is None
    # A message sent from the chat keeps a local id: found by the text that began its
    # turn, the second of two alike the second.
    messages.append({"type": "ai", "content": "UNANSWERED", "id": "a3"})
    messages.append({"type": "human", "content": "one", "id": "h5"})
    assert turn_of_message(messages, MessageRef("local-1", "one")) == 1
    assert turn_of_message(messages, MessageRef("local-2", "one", occurrence=1)) == 3
    assert turn_of_message(messages, MessageRef(None, "one", occurrence=2)) is None
    assert turn_of_message(messages, MessageRef("h4", "one")) == 2  # the id first
    # The turn it names is the one `example_from_messages` makes an example of.
    assert example_from_messages(messages, turn=1).outputs == {"answer": "ONE TWO"}
