"""Stored API keys: a private file, written atomically, that never shows a key."""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

import pytest

from agent_tui.settings.secrets_store import KeyStore, KeyStoreError, key_file

SECRET = "lsv2_pt_0123456789abcdef"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_round_trip(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys" / "api-keys.json")
    assert store.get("prod") is None
    store.set("prod", f"  {SECRET}\n")
    store.set("dev", "other")
    assert KeyStore(store.path).get("prod") == SECRET  # a new reader sees it
    assert store.names() == ["dev", "prod"]
    assert store.delete("prod") is True
    assert store.delete("prod") is False
    assert store.names() == ["dev"]


def test_the_file_is_private_and_left_whole(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys" / "api-keys.json")
    store.set("prod", SECRET)
    assert mode(store.path) == 0o600
    assert mode(store.path.parent) == 0o700
    assert os.listdir(store.path.parent) == ["api-keys.json"]
    assert json.loads(store.path.read_text()) == {"version": 1, "keys": {"prod": SECRET}}


def test_a_failed_write_keeps_the_previous_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = KeyStore(tmp_path / "api-keys.json")
    store.set("prod", SECRET)
    before = store.path.read_text()

    def crash(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("agent_tui.settings.atomic_file.os.replace", crash)
    with pytest.raises(OSError, match="disk full"):
        store.set("dev", "other")
    assert store.path.read_text() == before
    assert os.listdir(tmp_path) == ["api-keys.json"]  # the temporary file is gone


def test_nothing_shows_a_key(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = KeyStore(tmp_path / "api-keys.json")
    with caplog.at_level(logging.DEBUG):
        store.set("prod", SECRET)
        store.get("prod")
        store.delete("prod")
    assert "prod" in caplog.text
    assert SECRET not in caplog.text
    assert SECRET not in repr(store)


def test_a_file_readable_by_others_is_made_private(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = KeyStore(tmp_path / "api-keys.json")
    store.set("prod", SECRET)
    os.chmod(store.path, 0o644)
    assert store.get("prod") == SECRET
    assert mode(store.path) == 0o600
    assert "was readable by others" in caplog.text


@pytest.mark.parametrize("content", ["{not json " + SECRET, '{"keys": ["' + SECRET + '"]}', "[]"])
def test_a_damaged_file_is_an_error_naming_the_file(tmp_path: Path, content: str) -> None:
    path = tmp_path / "api-keys.json"
    path.write_text(content)
    with pytest.raises(KeyStoreError) as info:
        KeyStore(path).get("prod")
    assert str(path) in str(info.value)
    assert SECRET not in str(info.value)


def test_empty_keys_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="empty"):
        KeyStore(tmp_path / "k.json").set("prod", "  ")


def test_the_default_file_is_in_the_user_data_folder() -> None:
    # AGENT_TUI_HOME (tests/conftest.py) holds every folder during the tests.
    assert key_file() == Path(os.environ["AGENT_TUI_HOME"]) / "data" / "api-keys.json"
