"""UI preferences the app remembers between runs (the theme picked in the app).

Headless. A small JSON file in the user config folder, written atomically; a broken or
missing file means "no preferences" (it is a cache of choices, not configuration).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from agent_tui.settings import paths
from agent_tui.settings.atomic_file import write_private_text

logger = logging.getLogger(__name__)


def ui_state_file() -> Path:
    return paths.config_dir() / "ui-state.json"


def load_ui_state(path: Path | None = None) -> dict[str, Any]:
    path = path or ui_state_file()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        logger.warning("ignoring unreadable UI state %s: %s", path, error)
        return {}
    return data if isinstance(data, dict) else {}


def save_ui_state(changes: dict[str, Any], path: Path | None = None) -> None:
    """Merge `changes` into the file, atomically (a crash never leaves half a file)."""
    path = path or ui_state_file()
    data = {**load_ui_state(path), **changes}
    write_private_text(path, json.dumps(data, indent=2, sort_keys=True))


def saved_theme(path: Path | None = None) -> str | None:
    theme = load_ui_state(path).get("theme")
    return theme if isinstance(theme, str) and theme else None
