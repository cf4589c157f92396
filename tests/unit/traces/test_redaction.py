"""Nothing secret reaches the trace store: keys by name, keys by shape, the collector's
own key; and what only looks like a secret's name (token counts) stays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.traces.query import get_run
from agent_tui.traces.redaction import REDACTED, Redactor, is_secret_key
from agent_tui.traces.store import TraceStore

OPENAI_KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz0123"
LANGSMITH_KEY = "lsv2_sk_0123456789abcdef0123456789abcdef_0123456789"
OWN_KEY = "ltc_own-collector-key-0123456789"


def model_call() -> dict[str, object]:
    return {
        "id": "run-1",
        "trace_id": "run-1",
        "name": "ChatOpenAI",
        "run_type": "llm",
        "inputs": {"messages": [[{"content": f"use {OPENAI_KEY} please"}]]},
        "extra": {
            "invocation_params": {
                "model": "gpt-x",
                "api_key": OPENAI_KEY,
                "max_tokens": 50,
                "default_headers": {"Authorization": f"Bearer {LANGSMITH_KEY}", "X-Trace": "1"},
            },
            "metadata": {
                "x-api-key": LANGSMITH_KEY,
                "ls_model_name": "gpt-x",
                "note": f"the collector's key is {OWN_KEY}",
                "usage_metadata": {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7},
            },
        },
        "serialized": {
            "kwargs": {
                "openai_api_key": {"lc": 1, "type": "secret", "id": ["OPENAI_API_KEY"]},
                "client_secret": "s3cr3t-value",
                "password": "hunter2hunter2",
            }
        },
    }


def test_secrets_are_replaced_and_the_rest_kept() -> None:
    run = Redactor([OWN_KEY]).run(model_call())
    params = run["extra"]["invocation_params"]
    meta = run["extra"]["metadata"]

    assert params["api_key"] == REDACTED
    assert params["default_headers"]["Authorization"] == REDACTED
    assert params["default_headers"]["X-Trace"] == "1"
    assert (params["model"], params["max_tokens"]) == ("gpt-x", 50)
    assert meta["x-api-key"] == REDACTED
    assert meta["note"] == f"the collector's key is {REDACTED}"
    assert meta["usage_metadata"] == {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7}
    assert run["inputs"]["messages"][0][0]["content"] == f"use {REDACTED} please"
    serialized = run["serialized"]["kwargs"]
    # A secret reference names a variable and holds nothing: kept, it says where the key was.
    assert serialized["openai_api_key"] == {"lc": 1, "type": "secret", "id": ["OPENAI_API_KEY"]}
    assert serialized["client_secret"] == serialized["password"] == REDACTED


@pytest.mark.parametrize(
    "name",
    [
        "api_key",
        "openai_api_key",
        "x-api-key",
        "X-Api-Key",
        "apiKey",
        "api_token",
        "Authorization",
        "proxy-authorization",
        "password",
        "db_passwd",
        "client_secret",
        "aws_secret_access_key",
        "AWS_ACCESS_KEY",
        "private_key",
        "access_token",
        "refresh_token",
        "id_token",
        "Cookie",
        "set-cookie",
        "token",
        "auth",
        "credentials",
    ],
)
def test_names_of_secrets(name: str) -> None:
    assert is_secret_key(name)


@pytest.mark.parametrize(
    "name",
    [
        "max_tokens",
        "token_usage",
        "input_tokens",
        "total_tokens",
        "tokens",
        "key",
        "author",
        "keys",
        "monkey",
        "ls_model_name",
        "stream",
        "tool_choice",
        "authored_by",
    ],
)
def test_names_that_hold_no_secret(name: str) -> None:
    assert not is_secret_key(name)


def test_text_shaped_like_keys_is_redacted_wherever_it_is() -> None:
    redactor = Redactor()
    for secret in (
        OPENAI_KEY,
        LANGSMITH_KEY,
        "Bearer abc.def.ghi-0123456789",
        "AKIAABCDEFGHIJKLMNOP",
        "ghp_" + "a1" * 18,
        "xoxb-1234567890-abcdef",
    ):
        assert redactor.text(f"before {secret} after") == f"before {REDACTED} after", secret
    assert (
        redactor.text("max_tokens: 1024, a bearer of news") == "max_tokens: 1024, a bearer of news"
    )


def test_the_store_never_writes_a_secret(tmp_path: Path) -> None:
    path = tmp_path / "traces.sqlite3"
    store = TraceStore(path, redactor=Redactor([OWN_KEY]))
    store.ingest([("post", model_call())])
    # A patch brings its own secrets: redacted too before the merge.
    store.ingest([("patch", {"id": "run-1", "outputs": {"echo": OPENAI_KEY}, "end_time": "x"})])
    run = get_run(store, "run-1")
    store.close()

    assert run is not None and run.outputs == {"echo": REDACTED}
    on_disk = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    for secret in (OPENAI_KEY, LANGSMITH_KEY, OWN_KEY, "s3cr3t-value", "hunter2hunter2"):
        assert secret.encode() not in on_disk
    assert json.dumps(run.raw).count(REDACTED) >= 6
