"""The chat of a graph without `messages`: the prompt takes its input as a JSON object.

`GraphInputs` (a plain object the chat pane owns) asks once per assistant what its graph
takes (`assistants.graph_input`, from the graph's input schema). For a graph with no
messages channel the prompt's placeholder says so, with an example of its keys; a send
is checked against the schema first, and what is wrong shows in `InputError`, the line
under the prompt, while the text stays in the prompt to be fixed. Its transcript has no
messages to show: a thread reopened says what its state holds in the empty chat's hint.

What a graph takes is asked again after a live reload (the app's `graphs_changed`), so the
placeholder shows the new schema's keys; and before a send is refused for not matching
the schema learnt earlier (a server reloaded by someone else, `langgraph dev` say).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Protocol, cast

from rich.text import Text
from textual.widgets import Static

from agent_tui.assistants.graph_input import GraphInput, graph_input
from agent_tui.chat.item_text import update_values
from agent_tui.client import ApiError
from agent_tui.text.sanitize import clean_text
from agent_tui.text.user_json import JsonTextError
from agent_tui.tui.app_contract import agent_app
from agent_tui.tui.chat.prompt import PLACEHOLDER
from agent_tui.tui.widgets.text import server_text

if TYPE_CHECKING:
    from textual.widget import Widget

    from agent_tui.chat.assistant import ChatAssistant
    from agent_tui.client import AgentServerClient
    from agent_tui.tui.chat.prompt import PromptArea


STATE_VALUE_LIMIT = 200  # characters of one state value in the empty chat's hint


class _InputHost(Protocol):
    """The chat pane, as what a graph takes is shown in it."""

    @property
    def assistant(self) -> ChatAssistant | None: ...

    @property
    def prompt(self) -> PromptArea: ...

    def show_empty_hint(self) -> None: ...


class InputError(Static):
    """What is wrong with the input typed in the prompt (hidden when nothing is)."""

    DEFAULT_CSS = """
    InputError { height: auto; max-height: 4; padding: 0 1; color: $text-error; display: none; }
    """

    def say(self, text: str) -> None:
        self.update(server_text(text))
        self.display = bool(text)


def placeholder_for(takes: GraphInput) -> str:
    if takes.takes_messages:
        return PLACEHOLDER
    example = clean_text(takes.example())
    return f"The graph's input as JSON, e.g. {example} — enter sends, ctrl+j newline"


class GraphInputs:
    """What each assistant's graph takes, asked once (a failed ask is asked again)."""

    def __init__(self, client: AgentServerClient) -> None:
        self.client = client
        self._known: dict[str, GraphInput] = {}
        self._state = ""  # the thread's state values, for a graph without messages

    def forget(self, assistant: ChatAssistant | None = None) -> None:
        """Ask again next time: for `assistant`, or for every assistant."""
        if assistant is None:
            self._known.clear()
        else:
            self._known.pop(assistant.assistant_id, None)

    async def of(self, assistant: ChatAssistant) -> GraphInput:
        """What `assistant`'s graph takes; on a failed ask, messages (as before)."""
        key = assistant.assistant_id
        if key not in self._known:
            try:
                self._known[key] = await graph_input(self.client, key)
            except ApiError:
                return GraphInput(known=False)
        return self._known[key]

    async def show(
        self, assistant: ChatAssistant, prompt: PromptArea, thread_id: str | None = None
    ) -> GraphInput:
        """Ask, and let the prompt's placeholder say what it takes; with `thread_id`,
        also read that thread's state for `hint` (when the graph takes no messages)."""
        takes = await self.of(assistant)
        prompt.placeholder = placeholder_for(takes)
        if thread_id is not None and not takes.takes_messages:
            try:
                values = (await self.client.threads.get(thread_id)).values
            except ApiError:
                values = None
            self._state = update_values(values, STATE_VALUE_LIMIT) if values else ""
        return takes

    async def input_for(
        self, assistant: ChatAssistant, prompt: PromptArea, text: str
    ) -> dict[str, Any] | None:
        """`text` as `assistant`'s graph input; None when the graph takes messages (the
        text is one). `JsonTextError` when it does not fit the schema asked again (the
        graph may have changed since it was learnt)."""
        takes = await self.show(assistant, prompt)
        if takes.takes_messages:
            return None
        try:
            return takes.check(text)
        except JsonTextError:
            self.forget(assistant)
            again = await self.show(assistant, prompt)
            if again == takes:
                raise
            return None if again.takes_messages else again.check(text)

    def follow_reloads(self, pane: Widget) -> None:
        """After each live reload, ask again what the graph of `pane`'s assistant takes,
        show it in its prompt's placeholder and its empty chat's hint.

        The subscription holds the pane weakly: the signal keeps its callbacks in a dict
        keyed weakly by the pane, and a callback holding the pane would keep a thread view
        left long ago alive until the next reload.
        """
        shown = weakref.ref(pane)

        def reloaded(_: None) -> None:
            self.forget()
            node = shown()
            if node is not None and node.is_attached:
                host = cast("_InputHost", node)
                node.run_worker(self._show_again(host), exit_on_error=False)

        agent_app(pane.app).graphs_changed.subscribe(pane, reloaded, immediate=True)

    async def _show_again(self, host: _InputHost) -> None:
        assistant = host.assistant
        if assistant is not None:
            await self.show(assistant, host.prompt)
            host.show_empty_hint()

    def hint(self, assistant: ChatAssistant | None) -> Text:
        """For the empty chat of a graph without messages: what to type, and what the
        thread's state holds (its transcript shows messages only)."""
        takes = self._known.get(assistant.assistant_id) if assistant is not None else None
        text = Text()
        if takes is None or takes.takes_messages:
            return text
        text.append("\n\nThis graph takes no messages: type its input as a JSON object, e.g. ")
        text.append_text(server_text(takes.example(), style="bold"))
        if self._state:
            text.append("\nThe thread's state: ")
            text.append_text(server_text(self._state))
        return text
