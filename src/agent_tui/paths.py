"""The user folders agent-tui reads and writes (platformdirs), overridable for tests.

`AGENT_TUI_HOME` puts every folder under one directory, which tests and the
screenshot script use so they never touch the real user folders.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "agent-tui"


def _home_override(kind: str) -> Path | None:
    home = os.environ.get("AGENT_TUI_HOME")
    return Path(home) / kind if home else None


def _ensure(path: Path) -> Path:
    # 0700: these folders can hold thread data and stored keys.
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def config_dir() -> Path:
    return _ensure(_home_override("config") or Path(platformdirs.user_config_dir(APP_NAME)))


def data_dir() -> Path:
    return _ensure(_home_override("data") or Path(platformdirs.user_data_dir(APP_NAME)))


def log_dir() -> Path:
    return _ensure(_home_override("log") or Path(platformdirs.user_log_dir(APP_NAME)))


def config_file() -> Path:
    return config_dir() / "config.toml"
