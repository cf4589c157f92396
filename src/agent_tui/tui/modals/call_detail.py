"""One traced model or tool call whole: what it was sent, with what parameters, what came
back, and the run as stored (`traces.query.TracedRun`).

Sections, top to bottom in one scroll: a summary line (node, subgraph, model and
provider, tokens, latency, first token, finish reason, status); for a model call the
messages sent — the system prompt, the history, each message whole — the tools offered
with their schemas, the invocation parameters and the response (its text and tool
calls); for a tool call its input and output; the error, if it failed; the raw run as
JSON. `c` copies the raw JSON exactly. Everything here came from a server or a model:
`Text` and `Syntax`, cleaned, never markup.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from agent_tui.text.escaping import exact_json
from agent_tui.traces.query import TracedRun
from agent_tui.traces.run_view import message_text, run_json, seconds, tokens_text
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.widgets.json_view import json_syntax
from agent_tui.tui.widgets.text import server_line, server_text

ROLE_STYLES = {"system": "bold yellow", "human": "bold green", "user": "bold green"}


def summary_line(run: TracedRun) -> Text:
    parts = [f"node {run.node}" if run.node else "", f"namespace {run.checkpoint_ns or '—'}"]
    if run.run_type == "llm":
        provider = f" ({run.provider})" if run.provider else ""
        parts += [f"model {run.model or '?'}{provider}", tokens_text(run)]
    parts.append(f"latency {seconds(run.latency)}")
    if run.time_to_first_token is not None:
        parts.append(f"first token {seconds(run.time_to_first_token)}")
    if run.finish_reason:
        parts.append(f"finish {run.finish_reason}")
    parts.append(run.status)
    return server_line("  ·  ".join(part for part in parts if part))


def message_fields(message: Any) -> dict[str, Any]:
    """A message's fields: a serialized message keeps them in ``kwargs``."""
    if not isinstance(message, dict):
        return {}
    kwargs = message.get("kwargs")
    return kwargs if isinstance(kwargs, dict) else message


def message_block(message: Any) -> Text:
    """One message sent or answered: its role, then its text whole, then its tool calls."""
    role, _ = message_text(message)
    fields = message_fields(message)
    content = fields.get("content", "") if fields else str(message)
    block = server_text(f"{role}\n", style=ROLE_STYLES.get(role, "bold cyan"))
    body = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    if body:
        block.append_text(server_text(body))
    for call in fields.get("tool_calls") or []:
        if isinstance(call, dict):
            args = json.dumps(call.get("args", {}), ensure_ascii=False)
            block.append_text(server_text(f"\n→ tool call {call.get('name')}({args})"))
    return block


def answers(run: TracedRun) -> list[Any]:
    """The messages a model call answered with (one a generation)."""
    found = []
    for group in run.outputs.get("generations") or []:
        for item in group if isinstance(group, list) else [group]:
            if isinstance(item, dict) and item.get("message") is not None:
                found.append(item["message"])
            elif isinstance(item, dict) and isinstance(item.get("text"), str):
                found.append({"type": "ai", "content": item["text"]})
    return found


def sections(run: TracedRun) -> list[tuple[str, RenderableType]]:
    """The call's sections, as titled renderables, in the order shown."""
    shown: list[tuple[str, RenderableType]] = [("Summary", summary_line(run))]
    if run.run_type == "llm":
        sent = Text("\n\n").join(message_block(m) for m in run.messages)
        shown.append((f"Messages sent ({len(run.messages)})", sent or Text("—")))
        tools = run.invocation_params.get("tools")
        if isinstance(tools, list) and tools:
            shown.append((f"Tools offered ({len(tools)})", json_syntax(tools)))
        params = {k: v for k, v in run.invocation_params.items() if k != "tools"}
        shown.append(("Invocation parameters", json_syntax(params)))
        replies = Text("\n\n").join(message_block(m) for m in answers(run))
        shown.append(("Response", replies or Text("— (no answer recorded)", style="dim")))
    else:
        shown.append(("Input", json_syntax(run.inputs)))
        shown.append(("Output", json_syntax(run.outputs)))
    if run.error:
        shown.append(("Error", server_text(run.error, style="red")))
    shown.append(("Raw run (JSON)", json_syntax(run_json(run, children=False))))
    return shown


def section_widgets(title: str, body: RenderableType) -> ComposeResult:
    yield Static(Text(title), classes="call-heading")
    yield Static(body, classes="call-body")


def call_title(run: TracedRun) -> str:
    kind = "model call" if run.run_type == "llm" else f"{run.run_type or '?'} call"
    model = f" · {run.model}" if run.run_type == "llm" and run.model else ""
    return f"{kind} · {run.name or '(unnamed)'}{model}"


class CallDetailScreen(ModalScreen[None]):
    """One call whole; `esc` closes it."""

    DEFAULT_CSS = """
    CallDetailScreen { align: center middle; }
    CallDetailScreen > Vertical {
        width: 94%; height: 94%; border: thick $primary; background: $surface;
    }
    CallDetailScreen #call-title { text-style: bold; padding: 0 1; background: $primary 30%; }
    CallDetailScreen VerticalScroll { padding: 0 1; }
    CallDetailScreen .call-heading { text-style: bold; color: $accent; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *AgentScreen.BINDINGS,
        Binding("escape,q", "dismiss", "Close", id="call_detail.close"),
        Binding("c", "copy", "Copy raw JSON", id="call_detail.copy"),
    ]

    def __init__(self, run: TracedRun) -> None:
        super().__init__()
        self.run = run
        self.shown = sections(run)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(server_line(call_title(self.run)), id="call-title")
            with VerticalScroll(id="call-sections", can_focus=True):
                for title, body in self.shown:
                    yield from section_widgets(title, body)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#call-sections").focus()

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(exact_json(run_json(self.run, children=False)))
        self.notify("Copied the call's raw JSON to the clipboard", markup=False)
