"""Logging to a rotating file in the user log folder, with secrets redacted.

While the TUI runs nothing may be written to stdout/stderr (it would tear the
screen), so `setup_logging` replaces every root handler with one file handler. The
embedded agent server writes its own output beside it (`server-<project>.log`, see
`agent_tui.local`), and this log names that file. Headless: no Textual import.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
from collections.abc import Iterable
from pathlib import Path

from agent_tui.settings import paths
from agent_tui.text.escaping import escape_controls
from agent_tui.text.sanitize import clean_text, redact_secrets

LOG_FILE_NAME = "agent-tui.log"
_MAX_BYTES = 2_000_000
_BACKUPS = 3
_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


class RedactingFormatter(logging.Formatter):
    """Redacts the fully formatted record, and writes out its control characters.

    A formatter rather than a filter: a filter sees the record before the exception
    traceback and stack are rendered, and tracebacks quote headers and arguments too.
    Error bodies from servers land in the log (in messages and tracebacks): written
    out as `\x1b`, their escapes cannot act on the terminal of whoever runs `tail`.
    """

    def __init__(self, fmt: str | None = _FORMAT, secrets: Iterable[str] = ()) -> None:
        super().__init__(fmt)
        self.secrets: set[str] = {s for s in secrets if s}

    def format(self, record: logging.LogRecord) -> str:
        return escape_controls(redact_secrets(super().format(record), self.secrets))


class TerminalFormatter(logging.Formatter):
    """For a terminal's stderr: secrets redacted, and what a terminal would act on
    removed (a graph's exception message or a server's answer can quote anything)."""

    def format(self, record: logging.LogRecord) -> str:
        return clean_text(redact_secrets(super().format(record)))


def setup_stderr_logging() -> None:
    """Headless commands: warnings and errors on stderr, cleaned like everything else
    they print (without this, Python's last-resort handler writes them out raw).

    Does nothing when logging is set up already (`setup_logging`, a test's capture).
    """
    handler = logging.StreamHandler()
    handler.setFormatter(TerminalFormatter("%(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])


def log_file() -> Path:
    return paths.log_dir() / LOG_FILE_NAME


def _level_from_env() -> int:
    name = os.environ.get("AGENT_TUI_LOG_LEVEL", "INFO").upper()
    level = logging.getLevelName(name)
    return level if isinstance(level, int) else logging.INFO


def setup_logging(secrets: Iterable[str] = (), *, level: int | None = None) -> Path:
    """Send all logging (ours, libraries', warnings) to the log file; return its path.

    `secrets` are key strings in use, redacted wherever they appear. The level comes
    from `AGENT_TUI_LOG_LEVEL` (default INFO) unless given.
    """
    path = log_file()
    handler = logging.handlers.RotatingFileHandler(
        path, maxBytes=_MAX_BYTES, backupCount=_BACKUPS, encoding="utf-8"
    )
    handler.setFormatter(RedactingFormatter(secrets=secrets))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
        old.close()
    root.addHandler(handler)
    root.setLevel(level if level is not None else _level_from_env())
    # httpx logs every request at INFO with the full URL; our transport logs a safer line.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)
    # Python warnings would otherwise go to stderr, over the TUI.
    logging.captureWarnings(True)
    return path


def known_secrets() -> set[str]:
    """The key strings the log redacts (`setup_logging`'s and `add_secret`'s), for
    other output that must redact them too."""
    found: set[str] = set()
    for handler in logging.getLogger().handlers:
        if isinstance(handler.formatter, RedactingFormatter):
            found |= handler.formatter.secrets
    return found


def add_secret(secret: str | None) -> None:
    """Redact `secret` from now on (e.g. a key the user enters while the app runs)."""
    if not secret:
        return
    for handler in logging.getLogger().handlers:
        if isinstance(handler.formatter, RedactingFormatter):
            handler.formatter.secrets.add(secret)
