"""Where the embedded agent server of one ``langgraph.json`` keeps its data and its log.

Each config file gets its own working folder under the user data folder, named by
`server_key`, where the runtime keeps ``.langgraph_api/`` (threads, runs, assistants,
checkpoints): data survives restarts.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from agent_tui.settings import paths


def server_key(config_path: Path) -> str:
    """A stable, readable folder name for one config file: ``<project folder>-<hash>``."""
    resolved = config_path.expanduser().resolve()
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", resolved.parent.name).strip("-.") or "project"
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    return f"{slug[:40]}-{digest}"


def local_server_data_dir(config_path: Path) -> Path:
    """The default data folder of the server for ``config_path`` (one per config file)."""
    return paths.data_dir() / "servers" / server_key(config_path)


def local_server_log_file(config_path: Path) -> Path:
    """The default log file of the server for ``config_path``."""
    return paths.log_dir() / f"server-{server_key(config_path)}.log"
