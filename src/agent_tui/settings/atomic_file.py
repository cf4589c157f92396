"""Write a file so that readers see the old or the new content, never half of either.

Headless. The temporary file is created beside the target with mode 0600 (mkstemp's)
and `os.replace`d over it, so a file holding a key is never readable by others, not
even for a moment, and a crash mid-write leaves the previous file intact.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def write_private_text(path: Path, text: str) -> None:
    """Atomically replace `path` with `text` (UTF-8), mode 0600; parents made 0700."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(
            temporary, PRIVATE_FILE_MODE
        )  # mkstemp's already; explicit for umask-free platforms
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_directory(path.parent)


def _sync_directory(directory: Path) -> None:
    # Makes the rename itself durable on POSIX; directories cannot be opened on Windows.
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
