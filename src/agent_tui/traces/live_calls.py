"""The calls of a run as it streams, from the ``events`` stream mode: for servers agent-tui
did not start, whose runs are not traced here (issue #34, part 4).

A run asked for with ``stream_mode`` ``events`` sends LangChain's ``astream_events`` (v2)
records: ``on_chat_model_start`` (``data.input.messages``, and the model and provider in
``metadata.ls_model_name`` / ``ls_provider``), ``on_chat_model_stream`` (one a chunk),
``on_chat_model_end`` (``data.output``: the message, with ``usage_metadata`` and
``response_metadata.finish_reason``), ``on_tool_start`` / ``on_tool_end`` /
``on_tool_error``, and every chain's. `LiveCalls` folds them into the same facts a trace
gives (`calls.CallSummary`, `totals.run_totals` takes either). The records carry no
times: a call's times are when its records arrived.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

STARTS = {"on_chat_model_start": "llm", "on_llm_start": "llm", "on_tool_start": "tool"}
STREAMS = frozenset({"on_chat_model_stream", "on_llm_stream"})
ENDS = frozenset({"on_chat_model_end", "on_llm_end", "on_tool_end"})
ERRORS = frozenset({"on_tool_error", "on_chat_model_error", "on_llm_error"})


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _error_text(error: Any) -> str:
    """A record's error: langgraph-api sends ``{"error": type, "message": words}``."""
    if isinstance(error, dict):
        kind, message = error.get("error"), error.get("message")
        return ": ".join(str(part) for part in (kind, message) if part) or "error"
    return str(error or "error")


@dataclass(slots=True)
class LiveCall:
    """One model or tool call of a streaming run, filled in as its records come."""

    id: str
    run_type: str
    name: str
    node: str | None
    checkpoint_ns: str | None
    model: str | None
    provider: str | None
    start_time: datetime
    inputs: Any = None
    outputs: Any = None
    first_token_time: datetime | None = None
    end_time: datetime | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    finish_reason: str | None = None
    error: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> str:
        if self.error:
            return "error"
        return "success" if self.end_time else "running"

    @property
    def latency(self) -> float | None:
        return (self.end_time - self.start_time).total_seconds() if self.end_time else None

    @property
    def time_to_first_token(self) -> float | None:
        first = self.first_token_time
        return (first - self.start_time).total_seconds() if first else None

    @property
    def messages(self) -> list[Any]:
        """The messages a model call was sent (its first prompt's)."""
        messages = _dict(self.inputs).get("messages")
        if isinstance(messages, list) and messages and isinstance(messages[0], list):
            return list(messages[0])
        return list(messages) if isinstance(messages, list) else []


class LiveCalls:
    """The calls of one run, in the order they began."""

    def __init__(self) -> None:
        self.calls: list[LiveCall] = []
        self._by_id: dict[str, LiveCall] = {}

    def feed(self, record: Any, at: datetime | None = None) -> LiveCall | None:
        """Take one ``events`` record (``at``: when it came; now by default); the call it
        changed, if it is about one."""
        record = _dict(record)
        kind = record.get("event")
        run_id = record.get("run_id")
        if not isinstance(kind, str) or not isinstance(run_id, str):
            return None
        now = at or datetime.now(UTC)
        data = _dict(record.get("data"))
        if kind in STARTS:
            return self._start(record, STARTS[kind], data, now)
        call = self._by_id.get(run_id)
        if call is None:
            return None
        if kind in STREAMS:
            if call.first_token_time is None:
                call.first_token_time = now
        elif kind in ENDS:
            call.end_time = now
            call.outputs = data.get("output")
            if call.run_type == "llm":
                self._read_answer(call, _dict(data.get("output")))
        elif kind in ERRORS:
            call.end_time = now
            call.error = _error_text(data.get("error"))
        else:
            return None
        return call

    def _start(
        self, record: dict[str, Any], run_type: str, data: dict[str, Any], now: datetime
    ) -> LiveCall:
        meta = _dict(record.get("metadata"))
        namespace = meta.get("langgraph_checkpoint_ns") or meta.get("checkpoint_ns")
        call = LiveCall(
            id=record["run_id"],
            run_type=run_type,
            name=str(record.get("name") or ""),
            node=meta.get("langgraph_node"),
            checkpoint_ns=namespace if isinstance(namespace, str) else None,
            model=meta.get("ls_model_name") if run_type == "llm" else None,
            provider=meta.get("ls_provider") if run_type == "llm" else None,
            start_time=now,
            inputs=data.get("input"),
            metadata=meta,
        )
        if call.id not in self._by_id:
            self.calls.append(call)
        self._by_id[call.id] = call
        return call

    @staticmethod
    def _read_answer(call: LiveCall, message: dict[str, Any]) -> None:
        fields = _dict(message.get("kwargs")) or message  # serialized or plain
        usage = _dict(fields.get("usage_metadata"))
        call.input_tokens = _int(usage.get("input_tokens"))
        call.output_tokens = _int(usage.get("output_tokens"))
        response = _dict(fields.get("response_metadata"))
        reason = response.get("finish_reason")
        call.finish_reason = reason if isinstance(reason, str) else None
        if call.model is None and isinstance(response.get("model_name"), str):
            call.model = response["model_name"]


def call_line(call: LiveCall) -> str:
    """The call in one line, as the chat shows it live: kind, node, name and model,
    tokens, latency and first token, finish reason, or its error. Plain text: whoever
    shows it renders it inertly."""
    parts = ["model call" if call.run_type == "llm" else "tool call"]
    if call.node:
        parts.append(call.node)
    name = call.name or "?"
    if call.run_type == "llm" and call.model:
        provider = f", {call.provider}" if call.provider else ""
        name = f"{name} ({call.model}{provider})"
    parts.append(name)
    if call.input_tokens is not None or call.output_tokens is not None:
        given, made = call.input_tokens, call.output_tokens
        parts.append(f"tokens {'?' if given is None else given}→{'?' if made is None else made}")
    if call.latency is None:
        parts.append("running…")
    else:
        first = call.time_to_first_token
        parts.append(f"{call.latency:.2f}s" + (f", first token {first:.2f}s" if first else ""))
    if call.error:
        lines = call.error.strip().splitlines()
        parts.append(f"failed: {lines[-1] if lines else 'error'}")
    elif call.finish_reason:
        parts.append(call.finish_reason)
    return " · ".join(parts)
