"""Reading a message's text: the chat's answer text, and the one-line reading of data."""

from __future__ import annotations

from agent_tui.text.message_text import answer_text, message_role, message_text

BLOCKS = [
    {"type": "reasoning", "text": "thinking"},
    {"type": "text", "text": "Hel"},
    "lo",
    {"type": "image_url"},
]


def test_answer_text_is_the_text_blocks_joined_as_they_are() -> None:
    assert answer_text({"content": "plain"}) == "plain"
    assert answer_text({"content": BLOCKS}) == "Hello"
    assert answer_text({"content": [{"type": "image_url"}, {"type": "text", "text": 1}]}) == ""
    assert answer_text({}) == ""


def test_message_text_reads_every_block_and_marks_the_rest() -> None:
    assert message_text({"content": BLOCKS}) == "thinking Hel lo [image_url]"
    assert message_text({"content": {"odd": 1}}) == '{"odd": 1}'
    assert message_text("just text") == "just text"
    assert message_text(None) == ""


def test_message_text_falls_back_to_the_tool_calls() -> None:
    message = {"content": "", "tool_calls": [{"name": "search", "args": {"q": "x", "n": 3}}]}
    assert message_text(message) == '→ search(q="x", n=3)'


def test_message_role_is_the_type_else_the_role() -> None:
    assert message_role({"type": "ai", "role": "assistant"}) == "ai"
    assert message_role({"role": "user"}) == "user"
    assert message_role("text") == ""
