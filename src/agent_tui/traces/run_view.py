"""One traced run in words and as JSON: the shapes `agent-tui traces show` prints, the
UI's call list can reuse. Plain text: whoever prints it cleans it (`clean_text`)."""

from __future__ import annotations

import json
from typing import Any

from agent_tui.traces.query import TracedRun
from agent_tui.traces.totals import NOT_REPORTED, tokens_pair

PREVIEW = 200
"""Characters of one message shown in the text form (``--json`` gives it whole)."""


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}s"


def tokens_text(run: TracedRun) -> str:
    """A model call's tokens in words: ``tokens 21→7``, or ``tokens not reported``."""
    given, made, _ = run.tokens
    return f"tokens {tokens_pair(given, made) or NOT_REPORTED}"


def run_line(run: TracedRun) -> str:
    """One line: type, name, node, model, tokens, latency, first token, finish, status."""
    parts = [f"[{run.run_type or '?'}]", run.name or "(unnamed)"]
    if run.node:
        parts.append(f"node={run.node}")
    if run.run_type == "llm":
        model = run.model or "?"
        parts.append(f"model={model}" + (f" ({run.provider})" if run.provider else ""))
        parts.append(tokens_text(run))
    parts.append(seconds(run.latency))
    if run.time_to_first_token is not None:
        parts.append(f"first token {seconds(run.time_to_first_token)}")
    if run.finish_reason:
        parts.append(f"finish={run.finish_reason}")
    if run.status != "success":
        parts.append(run.status.upper())
    return "  ".join(parts)


def tree_lines(run: TracedRun, depth: int = 0) -> list[str]:
    lines = ["  " * depth + run_line(run)]
    for child in run.children:
        lines.extend(tree_lines(child, depth + 1))
    return lines


def message_text(message: Any) -> tuple[str, str]:
    """A serialized message's role and its text (content, else its tool calls)."""
    if not isinstance(message, dict):
        return "?", str(message)
    kwargs = message.get("kwargs")
    fields: dict[str, Any] = kwargs if isinstance(kwargs, dict) else message
    role = str(fields.get("type") or fields.get("role") or "")
    if not role and isinstance(message.get("id"), list) and message["id"]:
        role = str(message["id"][-1]).removesuffix("Message").lower() or "?"
    content = fields.get("content")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    calls = fields.get("tool_calls") or []
    if calls:
        named = ", ".join(str(c.get("name")) for c in calls if isinstance(c, dict))
        text = f"{text} [tool calls: {named}]".strip()
    return role or "?", text


def call_detail_lines(run: TracedRun) -> list[str]:
    """What a model call was sent and answered, for the text form."""
    lines: list[str] = []
    if run.messages:
        lines.append("messages sent:")
        for message in run.messages:
            role, text = message_text(message)
            flat = " ".join(text.split())
            lines.append(f"  {role}: {flat[:PREVIEW]}{'…' if len(flat) > PREVIEW else ''}")
    params = {k: v for k, v in run.invocation_params.items() if k != "tools"}
    if params:
        lines.append("parameters: " + json.dumps(params, ensure_ascii=False, sort_keys=True))
    tools = run.invocation_params.get("tools")
    if isinstance(tools, list) and tools:
        names = [_tool_name(tool) for tool in tools]
        lines.append("tools offered: " + ", ".join(names))
    for generation in run.outputs.get("generations") or []:
        for item in generation if isinstance(generation, list) else [generation]:
            if isinstance(item, dict) and item.get("message") is not None:
                role, text = message_text(item["message"])
                lines.append(f"answer ({role}): {' '.join(text.split())[:PREVIEW]}")
    if run.error:
        lines.append(f"error: {run.error.strip().splitlines()[-1] if run.error.strip() else ''}")
    return lines


def _tool_name(tool: Any) -> str:
    if isinstance(tool, dict):
        function = tool.get("function")
        if isinstance(function, dict) and function.get("name"):
            return str(function["name"])
        return str(tool.get("name") or "?")
    return "?"


def run_json(run: TracedRun, *, children: bool = True) -> dict[str, Any]:
    """The run with what is read out of it, its raw fields, and its children."""
    given, made, total = run.tokens if run.run_type == "llm" else (None, None, None)
    data: dict[str, Any] = {
        "id": run.id,
        "trace_id": run.trace_id,
        "parent_run_id": run.parent_run_id,
        "name": run.name,
        "run_type": run.run_type,
        "status": run.status,
        "start_time": run.raw.get("start_time"),
        "end_time": run.raw.get("end_time"),
        "latency": run.latency,
        "thread_id": run.thread_id,
        "node": run.node,
        "checkpoint_ns": run.checkpoint_ns,
        "error": run.error,
    }
    if run.run_type == "llm":
        data.update(
            model=run.model,
            provider=run.provider,
            input_tokens=given,
            output_tokens=made,
            total_tokens=total,
            first_token_time=run.first_token_time.isoformat() if run.first_token_time else None,
            time_to_first_token=run.time_to_first_token,
            finish_reason=run.finish_reason,
            invocation_params=run.invocation_params,
        )
    data.update(
        inputs=run.raw.get("inputs"),
        outputs=run.raw.get("outputs"),
        metadata=run.metadata,
        events=run.raw.get("events"),
    )
    if children:
        data["children"] = [run_json(child) for child in run.children]
    return data
