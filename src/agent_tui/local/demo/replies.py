"""The demo chat model's "brain": pure, deterministic rules from a conversation to a reply.

Kept apart from the chat model class so the rules read top to bottom and can be tested
without LangChain's callback machinery. See `agent_tui.local.demo.chat` for the behaviour
as a user sees it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolCall, ToolMessage

Style = Literal["plain", "pirate"]

# The longest answer "count to N" produces: long enough to exercise cancel and
# rejoin, short enough that a typo can't make the demo stream for minutes.
MAX_COUNT = 2000

_DEPLOY = re.compile(r"\bdeploy(?:\s+to\s+(?P<target>[a-z][\w-]*))?", re.IGNORECASE)
_WEATHER = re.compile(r"\bweather\s+in\s+(?P<city>[a-z][a-z .'-]*)", re.IGNORECASE)
_CALC = re.compile(r"\bcalc(?:ulate)?\s+(?P<expression>.+)", re.IGNORECASE)
_COUNT = re.compile(r"\bcount\s+to\s+(?P<n>\d+)", re.IGNORECASE)
_FAIL = re.compile(r"\bfail", re.IGNORECASE)


def wants_failure(text: str) -> bool:
    """Whether the user asked the demo to raise (any word starting with "fail")."""
    return _FAIL.search(text) is not None


def styled(text: str, *, style: Style, shout: bool) -> str:
    """Apply the context's `style` and `shout` to an answer text."""
    if style == "pirate":
        text = f"Arr! {text}"
    return text.upper() if shout else text


def tool_call(name: str, args: dict[str, str], *, turn: int) -> ToolCall:
    # Ids derive from the position in the thread, so replays produce the same ids.
    return ToolCall(name=name, args=args, id=f"call_{name}_{turn}", type="tool_call")


def decide(messages: Sequence[BaseMessage], *, style: Style, shout: bool) -> AIMessage:
    """The reply to the conversation so far: a text answer or one tool call."""
    last = messages[-1] if messages else None
    if isinstance(last, ToolMessage):
        # After a tool ran, the answer repeats its result.
        return AIMessage(content=styled(last.text, style=style, shout=shout))
    if not isinstance(last, HumanMessage):
        return AIMessage(content=styled("Hello! Say something.", style=style, shout=shout))

    text = last.text.strip()
    turn = len(messages)
    if match := _DEPLOY.search(text):
        target = (match.group("target") or "production").lower()
        return AIMessage(
            content="", tool_calls=[tool_call("deploy", {"target": target}, turn=turn)]
        )
    if match := _WEATHER.search(text):
        city = match.group("city").strip(" .'-").title()
        return AIMessage(
            content="", tool_calls=[tool_call("get_weather", {"city": city}, turn=turn)]
        )
    if match := _CALC.search(text):
        expression = match.group("expression").strip().rstrip("?=").strip()
        return AIMessage(
            content="", tool_calls=[tool_call("calculator", {"expression": expression}, turn=turn)]
        )
    if match := _COUNT.search(text):
        n = min(int(match.group("n")), MAX_COUNT)
        answer = " ".join(str(i) for i in range(1, n + 1)) or "Nothing to count."
        return AIMessage(content=styled(answer, style=style, shout=shout))
    answer = f"You said: {text}" if text else "You said nothing."
    return AIMessage(content=styled(answer, style=style, shout=shout))


def tokens(text: str) -> list[str]:
    """Split a text into word tokens that keep their leading whitespace.

    Joining the tokens gives the text back, so a client that appends streamed tokens
    ends with exactly the final message.
    """
    parts = re.findall(r"\s*\S+", text)
    trailing = text[len("".join(parts)) :]
    if trailing:
        parts.append(trailing)
    return parts
