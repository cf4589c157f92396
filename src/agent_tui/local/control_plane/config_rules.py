"""What an uploaded revision's ``langgraph.json`` may ask for, checked before anything is
built.

An upload (its source unpacked in ``…/revisions/<rid>/source``) comes from whoever holds
the key, from anywhere: nothing it names may lie outside that folder — no graph file, no
local dependency folder, no ``.env`` file, no ``auth``/``http``/``store``/``checkpointer``
code file (an absolute path, or ``..`` leading out), no ``file:`` requirement and no
dependency starting with ``-`` (uv would take it as an option: ``-r /elsewhere``, an
index URL). Otherwise the build would import (or install, or read) files of this machine
that were never uploaded. Each name of its ``env`` (the mapping, or the ``.env`` file it
names) must pass the allow rule of `env_names`, as the secrets do: ``LD_PRELOAD``,
``PYTHONPATH``, ``PYTHONSTARTUP``… would change how the server process runs.

A ``langgraph.json`` on this machine is the user's own project, deployed from where it
is, as under ``langgraph dev``: its graphs and dependencies may be anywhere
(``../common``) and its ``env`` may set what the user's machine needs (``SSL_CERT_FILE``
for a company proxy); no rule applies to it here.

Each problem is one log line starting ``build failed:``; the revision then ends in
BUILD_FAILED without building. A config that cannot be read gives no problem here: the
build reports what is wrong with it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent_tui.local.control_plane.env_names import env_name_problem
from agent_tui.local.langgraph_config import (
    LangGraphConfig,
    LangGraphConfigError,
    load_langgraph_config,
)

_CODE_KEYS = ("path", "app")
_OUTSIDE = "outside the uploaded source: an uploaded project may name only its own files"


def config_problems(config_path: Path, upload_root: Path | None) -> list[str]:
    """Why the revision of ``config_path`` must not be built (empty: it may be);
    ``upload_root``: the unpacked upload it comes from, None for a local project."""
    try:
        config = load_langgraph_config(config_path)
    except LangGraphConfigError:
        return []
    if upload_root is None:
        return []  # the user's own project (see above)
    root = upload_root.resolve()
    problems = _escapes(config, root)
    env_file = config.env_file
    if env_file is not None and not _inside(env_file, root):
        problems.append(f"build failed: the env file {env_file} is {_OUTSIDE}")
    else:  # the names of a file outside the upload are not repeated
        for name in config.env:
            if problem := env_name_problem(name):
                problems.append(f'build failed: langgraph.json "env" cannot set {problem}')
    return problems


def _escapes(config: LangGraphConfig, root: Path) -> list[str]:
    outside = _OUTSIDE
    problems = []
    for graph_id, spec in config.graphs.items():
        ref = str(spec["path"] if isinstance(spec, dict) else spec)
        if (file := _code_file(ref)) is not None and not _inside(file, root):
            problems.append(f"build failed: graph {graph_id!r} is {file}, {outside}")
    for written in config.declared_dependencies:
        declared = written.strip()  # as the environment build reads it
        if declared.startswith("-"):
            problems.append(
                f"build failed: dependency {declared!r} is an installer option, not a "
                "requirement: an uploaded project may name only requirements and its own files"
            )
        elif "file:" in declared.lower():
            problems.append(f"build failed: dependency {declared!r} is a file: URL, {outside}")
        elif declared.startswith((".", "/", "~", "\\")):
            folder = config.folder / Path(declared).expanduser()
            if not _inside(folder, root):
                problems.append(f"build failed: dependency {declared!r} is {outside}")
    for key, ref in _code_refs(config.options):
        if (file := _code_file(ref)) is not None and not _inside(file, root):
            problems.append(f"build failed: {key} code {file} is {outside}")
    return problems


def _code_file(ref: str) -> Path | None:
    """The file a code reference names (`load_langgraph_config` made it absolute), or
    None for a ``package.module:name`` reference."""
    location = ref.rpartition(":")[0] or ref
    if "/" in location or "\\" in location:
        return Path(location)
    return None


def _code_refs(options: dict[str, Any], where: str = "") -> Iterator[tuple[str, str]]:
    for key, value in options.items():
        name = f"{where}.{key}" if where else str(key)
        if isinstance(value, dict):
            yield from _code_refs(value, name)
        elif key in _CODE_KEYS and isinstance(value, str):
            yield name, value


def _inside(path: Path, root: Path) -> bool:
    try:
        return path.resolve().is_relative_to(root)
    except (OSError, RuntimeError, ValueError):
        return False
