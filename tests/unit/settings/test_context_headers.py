"""A context's header templates: what the config file may say, what listings show, and
the values read when the context is used."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.settings.config import ConfigError, parse_config
from agent_tui.settings.context_headers import (
    HeaderError,
    describe,
    header_secrets,
    resolve_headers,
    stored_name,
)


def problems(headers: dict[str, str]) -> str:
    data = {"contexts": {"prod": {"agent_server_url": "http://x:1", "headers": headers}}}
    with pytest.raises(ConfigError) as failure:
        parse_config(data, Path("config.toml"))
    return str(failure.value)


def test_the_config_file_refuses_what_cannot_be_sent() -> None:
    assert "'Bad Name' is not an HTTP header name" in problems({"Bad Name": "x"})
    assert "X-Tenant-Id cannot be set as a header (use workspace_id)" in problems(
        {"X-Tenant-Id": "t"}
    )
    assert "a brace that is not" in problems({"Authorization": "Bearer {env:}"})
    assert "given twice" in problems({"X-Team": "a", "x-team": "b"})
    assert "line break" in problems({"X-Team": "a\r\nX-Evil: 1"})


def test_listings_name_the_source_never_the_value() -> None:
    assert describe("Authorization", "Bearer {env:TOKEN}") == "Authorization (env TOKEN)"
    assert describe("X-Key", "{file:~/k}") == "X-Key (file ~/k)"
    assert describe("X-Signed", "{stored}") == "X-Signed (stored)"
    assert describe("X-Team", "blue") == "X-Team (set in the config file)"


def test_values_are_read_when_the_context_is_used(tmp_path: Path) -> None:
    secret_file = tmp_path / "token"
    secret_file.write_text("from-a-file\n")
    store = {stored_name("prod", "X-Signed"): "from-the-store"}
    headers = resolve_headers(
        "prod",
        {
            "Authorization": "Bearer {env:TOKEN}",
            "X-Key": f"{{file:{secret_file}}}",
            "X-Signed": "{stored}",
            "X-Team": "blue",
        },
        {"TOKEN": "from-env"},
        store,
    )
    assert headers == (
        ("Authorization", "Bearer from-env"),
        ("X-Key", "from-a-file"),
        ("X-Signed", "from-the-store"),
        ("X-Team", "blue"),
    )
    # The log redacts the credentials alone too, not only the whole value.
    assert "from-env" in header_secrets(headers)


def test_a_value_that_would_split_the_header_is_refused(tmp_path: Path) -> None:
    with pytest.raises(HeaderError, match="line break"):
        resolve_headers("prod", {"X-Key": "{env:V}"}, {"V": "a\nX-Evil: 1"}, {})
    with pytest.raises(HeaderError, match="is not set"):
        resolve_headers("prod", {"X-Key": "{env:V}"}, {}, {})
    with pytest.raises(HeaderError, match="--store-header X-Signed"):
        resolve_headers("prod", {"X-Signed": "{stored}"}, {}, {})
