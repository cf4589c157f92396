"""Reading a project's small files (``langgraph.json``, ``.env``, ``pyproject.toml``) safely.

A path in a config can name anything: ``/dev/zero`` never ends, a FIFO blocks until
someone writes to it, and a multi-gigabyte file would be read whole into memory. Only
regular files are read, up to a size limit; anything else raises `ProjectFileError`
(an `OSError`, so callers that already handle unreadable files handle these too).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable
from pathlib import Path

MAX_PROJECT_FILE = 4 << 20
"""Bytes read at most from a config or environment file (real ones are a few KiB)."""

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
# O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused right after).


class ProjectFileError(OSError):
    """A project file that is not read: not a regular file, or too large."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.strerror = reason  # what callers of an unreadable file's error show

    def __str__(self) -> str:
        return self.reason


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    kinds: list[tuple[Callable[[int], bool], str]] = [
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISSOCK, "a socket"),
    ]
    return next((name for check, name in kinds if check(mode)), "not a regular file")


def check_project_file(mode: int, size: int, limit: int = MAX_PROJECT_FILE) -> str | None:
    """Why a file with this ``stat`` mode and size will not be read (None: it will)."""
    if not stat.S_ISREG(mode):
        return f"it is {file_kind(mode)}, not a regular file"
    if size > limit:
        return f"it is larger than {_size(limit)}"
    return None


def read_project_file(path: Path, limit: int = MAX_PROJECT_FILE) -> bytes:
    """The bytes of a regular file no larger than ``limit``; else `ProjectFileError`.

    Other `OSError`s (no such file, permission denied) are raised as they are.
    """
    fd = os.open(path, _OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        if problem := check_project_file(info.st_mode, info.st_size, limit):
            raise ProjectFileError(problem)
        with contextlib.suppress(OSError, AttributeError):
            os.set_blocking(fd, True)
        chunks: list[bytes] = []
        total = 0
        while chunk := os.read(fd, min(1 << 20, limit + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # it grew after the size check
                raise ProjectFileError(f"it is larger than {_size(limit)}")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_project_text(path: Path, limit: int = MAX_PROJECT_FILE) -> str:
    """`read_project_file` decoded as UTF-8 (`UnicodeDecodeError` when it is not)."""
    return read_project_file(path, limit).decode("utf-8")


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit} bytes"
