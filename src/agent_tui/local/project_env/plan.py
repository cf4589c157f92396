"""What a project's environment is built from (`EnvironmentPlan`) and the server stack it pins.

`environment` makes the plan and decides when to build; `builder` builds it. Both read the
plan from here, so neither imports the other's module for it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import sys
import sysconfig
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from agent_tui import __version__

SERVER_STACK = ("langgraph-api", "langgraph-runtime-inmem")
"""The packages whose whole dependency closure is pinned to agent-tui's own versions."""


def base_site_packages() -> list[str]:
    """agent-tui's site-packages folders, which a layered environment adds after its own."""
    paths = sysconfig.get_paths()
    return list(dict.fromkeys([paths["purelib"], paths["platlib"]]))


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
            "base": base_site_packages(),
            "python_version": self.python_version,
            "requirements": self.requirements,
            "editables": [str(path) for path in self.editables],
            "requirement_files": [str(path) for path in self.requirement_files],
            "stack": server_stack_pins(),
        }
        digest.update(json.dumps(parts, sort_keys=True).encode())
        for source in self.sources:
            digest.update(str(source).encode())
            with contextlib.suppress(OSError):
                digest.update(source.read_bytes())
        return digest.hexdigest()[:24]

    def stack_pins(self, *, layered: bool) -> list[str]:
        """The server stack's pins the build holds to: its whole closure in an environment
        layered over agent-tui's; in a standalone one (another Python) only the server's
        own packages, the rest resolved anew."""
        pins = server_stack_pins()
        if layered:
            return pins
        return [pin for pin in pins if pin.split("==")[0] in SERVER_STACK]


def server_stack_pins() -> list[str]:
    """``name==version`` for every installed package of the server stack's closure."""
    return [f"{name}=={version}" for name, version in sorted(_stack_closure().items())]


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.cache
def _stack_closure() -> dict[str, str]:
    """Installed name → version for `SERVER_STACK` and everything it requires.

    This runs at every start of a project with dependencies, so it reads only the closure's
    packages (not every installed one), each one's METADATA once, and its headers as plain
    lines (the email parser cost ~5 ms a package); only a requirement with a marker is
    parsed with `packaging`.
    """
    closure: dict[str, str] = {}
    pending = [_normalize(name) for name in SERVER_STACK]
    while pending:
        name = pending.pop()
        if name in closure:
            continue
        try:
            text = metadata.distribution(name).read_text("METADATA")
        except metadata.PackageNotFoundError:
            continue
        version, requires = _version_and_requires(text or "")
        closure[name] = version
        pending.extend(_required_names(requires))
    return closure


def _version_and_requires(text: str) -> tuple[str, list[str]]:
    version, requires = "", []
    for line in text.splitlines():
        if not line:
            break  # the headers end here; the description follows
        field, _, value = line.partition(":")
        if field == "Version":
            version = value.strip()
        elif field == "Requires-Dist":
            requires.append(value.strip())
    return version, requires


_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _required_names(requires: list[str]) -> list[str]:
    """The names of the requirements that apply without extras."""
    names = []
    for spec in requires:
        if ";" in spec:
            from packaging.requirements import InvalidRequirement, Requirement

            try:
                requirement = Requirement(spec)
            except InvalidRequirement:
                continue
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                names.append(_normalize(requirement.name))
        elif match := _NAME.match(spec):
            names.append(_normalize(match.group(1)))
    return names
