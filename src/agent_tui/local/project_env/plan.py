"""What a project's environment is built from (`EnvironmentPlan`).

`environment` makes the plan and decides when to build; `builder` builds it. Both read the
plan from here, so neither imports the other's module for it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui import __version__
from agent_tui.local.server_versions import server_requirements


@dataclass(frozen=True)
class EnvironmentPlan:
    """What a project's environment is built from, and where it lives."""

    config_path: Path
    env_dir: Path
    requirements: list[str] = field(default_factory=list)
    """Requirement strings (from ``dependencies`` and unbuildable ``pyproject.toml`` files)."""
    editables: list[Path] = field(default_factory=list)
    """Local packages installed editable."""
    requirement_files: list[Path] = field(default_factory=list)
    python_version: str | None = None
    """``langgraph.json`` ``python_version`` when it is not agent-tui's own."""
    sources: list[Path] = field(default_factory=list)
    """The files whose content the environment depends on (hashed)."""

    @property
    def is_empty(self) -> bool:
        return not (self.requirements or self.editables or self.requirement_files)

    @property
    def python(self) -> Path:
        """The environment's interpreter."""
        if os.name == "nt":
            return self.env_dir / "Scripts" / "python.exe"
        return self.env_dir / "bin" / "python"

    def key(self) -> str:
        """A hash of everything the environment is built from."""
        digest = hashlib.sha256()
        parts: dict[str, Any] = {
            "agent_tui": __version__,
            "interpreter": sys.executable,
            "python_version": self.python_version,
            "requirements": self.requirements,
            "editables": [str(path) for path in self.editables],
            "requirement_files": [str(path) for path in self.requirement_files],
            "server": server_requirements(),
        }
        digest.update(json.dumps(parts, sort_keys=True).encode())
        for source in self.sources:
            digest.update(str(source).encode())
            with contextlib.suppress(OSError):
                digest.update(source.read_bytes())
        return digest.hexdigest()[:24]
