"""API keys that the user asked agent-tui to keep (`config set-context NAME --store-api-key`).

Headless. One JSON file, `api-keys.json` in the user data folder (not beside the config
file, which people copy into dotfile repositories), mode 0600 in a 0700 folder,
written atomically. Nothing here logs, prints or reprs a key.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

from agent_tui.settings import paths
from agent_tui.settings.atomic_file import PRIVATE_FILE_MODE, write_private_text

logger = logging.getLogger(__name__)

KEY_FILE_NAME = "api-keys.json"
_FORMAT_VERSION = 1


class KeyStoreError(Exception):
    """The key file is unusable; the message names the file, never a key."""


def key_file() -> Path:
    return paths.data_dir() / KEY_FILE_NAME


class KeyStore:
    """Keys by context name. Reads the file on every call: other processes may write it."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = key_file() if path is None else path

    def __repr__(self) -> str:
        return f"KeyStore({str(self.path)!r})"

    def get(self, context: str) -> str | None:
        return self._read().get(context)

    def names(self) -> list[str]:
        """The contexts that have a stored key."""
        return sorted(self._read())

    def set(self, context: str, key: str) -> None:
        key = key.strip()
        if not key:
            raise ValueError("the API key is empty")
        keys = self._read()
        keys[context] = key
        self._write(keys)
        logger.info("stored an API key for context %r in %s", context, self.path)

    def delete(self, context: str) -> bool:
        """Forget the context's key; False if there was none."""
        keys = self._read()
        if keys.pop(context, None) is None:
            return False
        self._write(keys)
        logger.info("deleted the stored API key of context %r", context)
        return True

    def _read(self) -> dict[str, str]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as error:
            raise KeyStoreError(f"cannot read the key file {self.path}: {error}") from None
        self._tighten_mode()
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            # The decoder's message gives a position, never the document's content.
            raise KeyStoreError(f"the key file {self.path} is damaged: {error}") from None
        keys = data.get("keys") if isinstance(data, dict) else None
        if not isinstance(keys, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in keys.items()
        ):
            raise KeyStoreError(f"the key file {self.path} is damaged: no 'keys' table")
        return dict(keys)

    def _write(self, keys: dict[str, str]) -> None:
        text = json.dumps({"version": _FORMAT_VERSION, "keys": keys}, indent=2, sort_keys=True)
        write_private_text(self.path, text + "\n")

    def _tighten_mode(self) -> None:
        if os.name != "posix":
            return
        mode = stat.S_IMODE(self.path.stat().st_mode)
        if mode & 0o077:
            logger.warning(
                "the key file %s was readable by others (mode %o); made it 0600", self.path, mode
            )
            os.chmod(self.path, PRIVATE_FILE_MODE)
