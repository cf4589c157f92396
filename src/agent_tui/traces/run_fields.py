"""What a traced run says, read out of the run as the `langsmith` SDK sends it.

Where each fact is (langchain-core 1.x, langsmith 0.4-0.15, LangGraph 1.x):

- ``extra.metadata``: LangGraph's ``thread_id``, ``langgraph_node``,
  ``langgraph_checkpoint_ns`` (or ``checkpoint_ns``), langgraph-api's ``run_id`` (the
  agent server's run), and for a chat model ``ls_provider``, ``ls_model_name``,
  ``ls_model_type``, ``ls_temperature``; langchain-core also puts the call's summed
  ``usage_metadata`` there when the run ends;
- ``extra.invocation_params``: the parameters the model was called with;
- ``inputs.messages``: the messages sent, one list per prompt (``[[…]]``);
- ``outputs.generations``: what came back, each with its ``message`` (serialized, its
  ``kwargs`` holding ``content``, ``tool_calls``, ``usage_metadata``,
  ``response_metadata.finish_reason``) and ``generation_info.finish_reason``;
  ``outputs.llm_output.token_usage`` in OpenAI's words (``prompt_tokens`` …);
- ``events``: ``start``, ``new_token`` (one per streamed token; the SDK drops the token
  itself and keeps its ``time``), ``end``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class RunColumns:
    """The columns the store indexes and lists, read from one (merged) run."""

    trace_id: str | None
    parent_run_id: str | None
    dotted_order: str | None
    run_type: str | None
    name: str | None
    start_time: str | None
    end_time: str | None
    failed: bool
    thread_id: str | None
    graph_run_id: str | None
    node: str | None
    checkpoint_ns: str | None
    model: str | None
    provider: str | None
    input_tokens: int | None
    output_tokens: int | None
    first_token: str | None
    finish_reason: str | None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def metadata(run: dict[str, Any]) -> dict[str, Any]:
    return _dict(_dict(run.get("extra")).get("metadata"))


def invocation_params(run: dict[str, Any]) -> dict[str, Any]:
    return _dict(_dict(run.get("extra")).get("invocation_params"))


def checkpoint_ns(run: dict[str, Any]) -> str | None:
    meta = metadata(run)
    return _text(meta.get("langgraph_checkpoint_ns") or meta.get("checkpoint_ns"))


def model_name(run: dict[str, Any]) -> str | None:
    meta = metadata(run)
    params = invocation_params(run)
    return _text(meta.get("ls_model_name") or params.get("model") or params.get("model_name"))


def provider(run: dict[str, Any]) -> str | None:
    return _text(metadata(run).get("ls_provider") or invocation_params(run).get("_type"))


def _generations(run: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for group in _dict(run.get("outputs")).get("generations") or []:
        for generation in group if isinstance(group, list) else [group]:
            if isinstance(generation, dict):
                found.append(generation)
    return found


def output_message(generation: dict[str, Any]) -> dict[str, Any]:
    """A generation's message fields (a serialized message keeps them in ``kwargs``)."""
    message = _dict(generation.get("message"))
    return _dict(message.get("kwargs")) or message


def token_usage(run: dict[str, Any]) -> tuple[int | None, int | None, int | None]:
    """Input, output and total tokens of a model call (None where nobody said)."""
    usage = _dict(metadata(run).get("usage_metadata")) or _dict(
        _dict(run.get("outputs")).get("usage_metadata")
    )
    if not usage:
        summed: dict[str, int] = {}
        for generation in _generations(run):
            found = _dict(output_message(generation).get("usage_metadata"))
            for key in ("input_tokens", "output_tokens", "total_tokens"):
                if _int(found.get(key)) is not None:
                    summed[key] = summed.get(key, 0) + found[key]
        usage = summed
    if usage:
        given = _int(usage.get("input_tokens")), _int(usage.get("output_tokens"))
        total = _int(usage.get("total_tokens"))
        if total is None and None not in given:
            total = (given[0] or 0) + (given[1] or 0)
        return given[0], given[1], total
    openai = _dict(_dict(_dict(run.get("outputs")).get("llm_output")).get("token_usage"))
    return (
        _int(openai.get("prompt_tokens")),
        _int(openai.get("completion_tokens")),
        _int(openai.get("total_tokens")),
    )


def finish_reason(run: dict[str, Any]) -> str | None:
    for generation in _generations(run):
        info = _dict(generation.get("generation_info"))
        reason = info.get("finish_reason") or _dict(
            output_message(generation).get("response_metadata")
        ).get("finish_reason")
        if reason:
            return _text(reason)
    return None


def parse_time(text: Any) -> datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def first_token_time(run: dict[str, Any]) -> datetime | None:
    for event in run.get("events") or []:
        if isinstance(event, dict) and event.get("name") == "new_token":
            return parse_time(event.get("time"))
    return None


def run_columns(run: dict[str, Any]) -> RunColumns:
    meta = metadata(run)
    run_type = _text(run.get("run_type"))
    llm = run_type == "llm"
    tokens = token_usage(run) if llm else (None, None, None)
    first = first_token_time(run) if llm else None
    trace_id = _text(run.get("trace_id"))
    if trace_id is None and run.get("parent_run_id") is None and run.get("name") is not None:
        # `POST /runs` of a client that does not batch may send no trace id: a run with no
        # parent (and a name: a post was seen, not only a patch) starts its own trace.
        trace_id = _text(run.get("id"))
    return RunColumns(
        trace_id=trace_id,
        parent_run_id=_text(run.get("parent_run_id")),
        dotted_order=_text(run.get("dotted_order")),
        run_type=run_type,
        name=_text(run.get("name")),
        start_time=_text(run.get("start_time")),
        end_time=_text(run.get("end_time")),
        failed=bool(run.get("error")),
        thread_id=_text(meta.get("thread_id")),
        graph_run_id=_text(meta.get("run_id")),
        node=_text(meta.get("langgraph_node")),
        checkpoint_ns=checkpoint_ns(run),
        model=model_name(run) if llm else None,
        provider=provider(run) if llm else None,
        input_tokens=tokens[0],
        output_tokens=tokens[1],
        first_token=first.isoformat() if first else None,
        finish_reason=finish_reason(run) if llm else None,
    )
