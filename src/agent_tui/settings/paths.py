"""The user folders agent-tui reads and writes (platformdirs), overridable for tests.

`AGENT_TUI_HOME` puts every folder under one directory, which tests and the
screenshot script use so they never touch the real user folders.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import platformdirs

APP_NAME = "agent-tui"
CONFIG_ENV = "AGENT_TUI_CONFIG"  # the config file's path, instead of the user config folder


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


def control_plane_data_dir() -> Path:
    """The local control plane's data folder, unless told another (`--data-dir`)."""
    return data_dir() / "control-plane"


def log_dir() -> Path:
    return _ensure(_home_override("log") or Path(platformdirs.user_log_dir(APP_NAME)))


def config_file() -> Path:
    return config_dir() / "config.toml"


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """`AGENT_TUI_CONFIG` if set, else `config.toml` in the user config folder.

    Here rather than in `config` (which re-exports it) so the command line can look for
    the file without importing the config models (pydantic) first.
    """
    env = os.environ if environ is None else environ
    override = env.get(CONFIG_ENV, "").strip()
    return Path(override).expanduser() if override else config_file()
