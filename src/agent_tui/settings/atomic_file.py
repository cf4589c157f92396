"""Write a file so that readers see the old or the new content, never half of either.

Headless. Every file agent-tui writes (config, contexts' keys, UI state, exports, event
exports, the local server's records; logs excepted) goes through here: the text goes to a
temporary file beside the target, is synced, and is `os.replace`d over the target only
once all of it is written. A write that fails (a full disk, text that cannot be encoded)
or a crash mid-write leaves the previous file as it was, and no temporary file behind.

`write_private_text` creates the temporary file with mode 0600 (mkstemp's), so a file
holding a key is never readable by others, not even for a moment; `write_text_atomically`
gives the file the mode it had, or the one a new file gets (0666 less the umask).
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
    _replace(path, text, PRIVATE_FILE_MODE)


def write_text_atomically(path: Path, text: str, *, mode: int | None = None) -> None:
    """Replace `path` with `text` (UTF-8), whole or not at all. Its folder must exist.

    `mode`: default the old file's, else what a new file would get. A symbolic link is
    followed (the file it points to is replaced, the link stays); what is no regular file
    (`/dev/stdout`, a FIFO) cannot be replaced, and is written to as it is.
    """
    if path.is_symlink():
        path = path.resolve()
    if path.exists() and not path.is_file():
        with path.open("w", encoding="utf-8", newline="") as file:
            file.write(text)
        return
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
    _replace(path, text, mode)


def _replace(path: Path, text: str, mode: int) -> None:
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)  # mkstemp's 0600 for a private file; explicit all the same
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_directory(path.parent)


def _umask() -> int:
    """The process's umask, read without changing it (other threads may create files)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return 0o022


def _sync_directory(directory: Path) -> None:
    # Makes the rename itself durable on POSIX; directories cannot be opened on Windows.
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_export(path: Path, text: str, *, replace: bool = False) -> Path:
    """Write `text` to the file `path` (`~` expanded, its folder made), whole or not at
    all, and return it as an absolute path. A file already there is written over only
    when `replace`: else `FileExistsError`; a folder at `path` is `IsADirectoryError`, a
    file where a folder of it should be `NotADirectoryError`; anything else the system
    refuses (no permission, a full disk) its own `OSError`. Nothing is left half-written,
    and a refused file keeps what it held."""
    target = path.expanduser().absolute()
    for folder in target.parents:
        if folder.exists():
            if not folder.is_dir():
                raise NotADirectoryError(f"{folder} is a file, not a folder")
            break
    if target.is_dir():
        raise IsADirectoryError(f"{target} is a folder: name a file in it")
    if target.exists() and not replace:
        raise FileExistsError(f"{target} already exists")
    target.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(target, text)
    return target
