"""A node's update as one line: key=value, long values cut, messages by key."""

from __future__ import annotations

from agent_tui.chat.item_text import update_values


def test_values_show_and_messages_are_named_by_key() -> None:
    update = {"messages": [{"content": "hi"}], "n": 2, "topic": "owls"}
    assert update_values(update) == 'messages, n=2, topic="owls"'


def test_a_long_value_is_cut_and_server_text_is_cleaned() -> None:
    line = update_values({"notes": "x" * 100, "evil": "\x1b[31mred"}, limit=20)
    assert line.startswith('notes="' + "x" * 18 + "…, evil=")
    assert "\x1b" not in line


def test_nothing_written_says_so() -> None:
    assert update_values(None) == "nothing"
    assert update_values({}) == "nothing"
