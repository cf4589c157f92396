"""What an empty chat says: how to send, to which assistant, and what it does."""

from __future__ import annotations

from rich.text import Text

from agent_tui.chat.assistant import ChatAssistant
from agent_tui.tui.widgets.text import server_text


def empty_chat_hint(
    assistant: ChatAssistant | None, description: str | None, *, readonly: bool
) -> Text:
    text = Text("No messages yet. ", style="bold")
    if readonly:
        text.append("Read-only: this context can show runs but not start them.")
    elif assistant is None:
        text.append("Pick an assistant with f4, then type below; enter sends.")
    else:
        text.append("Type below; enter sends it to ")
        text.append_text(server_text(assistant.shown, style="bold"))
        text.append(" (f4 picks another).")
    if description:
        text.append("\n\n")
        text.append_text(server_text(description, style="italic"))
    return text
