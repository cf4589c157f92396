"""Files are written whole or not at all (`settings/atomic_file.py`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_tui.settings.atomic_file import write_export, write_private_text, write_text_atomically


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    path.write_text('{"old": true}\n', encoding="utf-8")
    # A lone surrogate cannot be encoded: the write fails halfway, as a full disk would.
    with pytest.raises(UnicodeEncodeError):
        write_text_atomically(path, '{"new": "' + "x" * 100_000 + '\ud800"}')
    assert path.read_text(encoding="utf-8") == '{"old": true}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["export.json"]


def test_a_replaced_file_keeps_its_mode_and_a_new_one_follows_the_umask(tmp_path: Path) -> None:
    kept = tmp_path / "kept.json"
    kept.write_text("old", encoding="utf-8")
    kept.chmod(0o640)
    write_text_atomically(kept, "new")
    assert (kept.read_text(encoding="utf-8"), kept.stat().st_mode & 0o777) == ("new", 0o640)
    old_umask = os.umask(0o027)
    try:
        write_text_atomically(tmp_path / "new.json", "x")
    finally:
        os.umask(old_umask)
    assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o640
    write_private_text(tmp_path / "key", "secret")
    assert (tmp_path / "key").stat().st_mode & 0o777 == 0o600


def test_a_link_is_followed_and_what_is_no_file_is_written_to(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_text_atomically(link, "new")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new"
    # `-o /dev/null` (or a FIFO): written to, never replaced by a file.
    write_text_atomically(Path(os.devnull), "nothing")
    assert Path(os.devnull).is_char_device()


def test_an_export_is_a_new_file_unless_replacing(tmp_path: Path) -> None:
    target = tmp_path / "made" / "on the way" / "out.jsonl"
    assert write_export(target, "one\n") == target
    with pytest.raises(FileExistsError, match="already exists"):
        write_export(target, "two\n")
    assert target.read_text() == "one\n"
    assert write_export(target, "two\n", replace=True) == target
    assert target.read_text() == "two\n"
    with pytest.raises(IsADirectoryError, match="is a folder"):
        write_export(tmp_path / "made", "x")
    with pytest.raises(NotADirectoryError, match=f"{target} is a file, not a folder"):
        write_export(target / "deeper" / "x.json", "x")
    with pytest.raises(OSError) as refused:  # the system's own words
        write_export(tmp_path / ("x" * 300), "x")
    assert refused.value.strerror == "File name too long"
    assert target.read_text() == "two\n" and sorted(p.name for p in target.parent.iterdir()) == [
        "out.jsonl"
    ]
