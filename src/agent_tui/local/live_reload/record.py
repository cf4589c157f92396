"""A project server's live reloads, for the other copies that use it: ``reload.json``.

The process that owns a project's server (`supervisor.lock`: an agent-tui, or ``agent-tui
serve``) and reloads it on change (`live_reload`) writes its latest reload event to
``<data_dir>/reload.json``, beside the server's note (``server.json``), with its own pid
and a count that grows with each event; it writes the file as soon as it watches (no
event yet), and removes it when it stops. A copy of agent-tui attached to that server
(`session`) reads it every few seconds, so it shows each reload, and a failed one, as
the owner does.

The file is replaced atomically (a reader never sees half of it). A note whose pid is not
the server's owner's now is someone else's leftover and is not read. Headless; what an
event holds is `reloader.ReloadEvent`'s business (its ``to_json``/``from_json``).
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.settings.atomic_file import write_private_text

RELOAD_FILE = "reload.json"


@dataclass(frozen=True)
class ReloadRecord:
    owner_pid: int
    """The process that reloads the server (the owner of the data folder's lock)."""
    count: int
    """How many reload events there have been: a new one changes it."""
    event: dict[str, Any] | None
    """The latest event (``ReloadEvent.to_json``); None before the first."""


def write_reload_record(data_dir: Path, count: int, event: dict[str, Any] | None) -> None:
    """Record this process's latest reload event; raises `OSError` if it cannot."""
    note = {"owner_pid": os.getpid(), "count": count, "event": event}
    write_private_text(data_dir / RELOAD_FILE, json.dumps(note, indent=2) + "\n")


def read_reload_record(data_dir: Path) -> ReloadRecord | None:
    """The record in ``data_dir``, if there is a readable one."""
    try:
        note = json.loads((data_dir / RELOAD_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(note, dict):
        return None
    pid, count, event = _int(note.get("owner_pid")), _int(note.get("count")), note.get("event")
    if pid is None or count is None:
        return None
    return ReloadRecord(pid, count, event if isinstance(event, dict) else None)


def remove_reload_record(data_dir: Path) -> None:
    """Remove this process's record (it stops reloading); someone else's stays."""
    record = read_reload_record(data_dir)
    if record is not None and record.owner_pid == os.getpid():
        with contextlib.suppress(OSError):
            (data_dir / RELOAD_FILE).unlink()


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


IMPORTS_FILE = "standby-imports.txt"
"""The installed modules the project's graphs imported at the last graph check, one per
line: the standbys of the next reloads (also after a restart) import them ahead."""


def read_imports(data_dir: Path) -> list[str]:
    with contextlib.suppress(OSError, UnicodeDecodeError):
        return (data_dir / IMPORTS_FILE).read_text(encoding="utf-8").split()
    return []


def write_imports(data_dir: Path, names: list[str]) -> None:
    with contextlib.suppress(OSError):  # without it, the standbys import less ahead
        write_private_text(data_dir / IMPORTS_FILE, "\n".join(names) + "\n")
