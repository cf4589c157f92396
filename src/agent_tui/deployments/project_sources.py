"""What `agent-tui deploy` packs for a `langgraph.json`: its folder and the local paths
it names outside that folder, as the official `langgraph deploy --remote` packs them.

The official CLI (`langgraph_cli/archive.py`, `create_archive`) packs the config's folder
and each local dependency (`"dependencies": ["../common"]`) that lies outside it, under
their common parent, so that `../common` still resolves once the archive is unpacked;
`langgraph_config_path` is the config's path relative to that parent. We do the same,
and also take a graph file named outside those folders (`"graphs": {"g":
"../shared/graph.py:graph"}`), that file alone. Nothing else under the common parent is
packed: only the folders and files `langgraph.json` names.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from agent_tui.deployments.source_archive import ArchiveError

_SOURCE_SUFFIXES = (".py", ".ts", ".mts", ".cts", ".js", ".mjs", ".cjs", ".tsx", ".jsx")


@dataclass(frozen=True)
class ProjectSources:
    root: Path  # the common parent: the archive's top
    folders: tuple[Path, ...]  # packed whole (as `.gitignore` says), the config's first
    files: tuple[Path, ...]  # graph files named outside those folders

    def relative(self, path: Path) -> PurePosixPath:
        return PurePosixPath(path.relative_to(self.root).as_posix())


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _read(config: Path) -> dict[str, Any]:
    try:
        raw = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise ArchiveError(f"cannot read {config}: {error}") from None
    if not isinstance(raw, dict):
        raise ArchiveError(f"{config} is not a JSON object")
    return raw


def _dependency_folders(raw: dict[str, Any], base: Path) -> list[Path]:
    dependencies = raw.get("dependencies", [])
    folders = []
    for dependency in dependencies if isinstance(dependencies, list) else []:
        # As the official CLI: only paths ("." or "../common") are local; the rest are
        # package names the build installs.
        if not isinstance(dependency, str) or not dependency.startswith("."):
            continue
        folder = (base / dependency).resolve()
        if not folder.is_dir():
            raise ArchiveError(
                f"langgraph.json names the local dependency {dependency!r}, "
                f"which is not a folder ({folder})"
            )
        folders.append(folder)
    return folders


def _graph_files(raw: dict[str, Any], base: Path) -> list[Path]:
    graphs = raw.get("graphs", {})
    files = []
    for spec in graphs.values() if isinstance(graphs, dict) else []:
        ref = spec.get("path") if isinstance(spec, dict) else spec
        if not isinstance(ref, str):
            continue
        path = ref.rpartition(":")[0] if ":" in ref else ref
        if "/" not in path and not path.endswith(_SOURCE_SUFFIXES):
            continue  # a module ("my_pkg.graph:graph"), found on the dependencies' paths
        file = (base / path).resolve()
        if file.is_file():
            files.append(file)
    return files


def project_sources(config: Path) -> ProjectSources:
    """The folders and files to pack for ``config`` (see the module)."""
    config = config.resolve()
    base = config.parent
    folders = [base]
    for folder in _dependency_folders(_read(config), base):
        if not any(_inside(folder, kept) for kept in folders):
            # A folder above ones already taken (`".."`) takes their place.
            folders = [kept for kept in folders if not _inside(kept, folder)] + [folder]
    folders.sort(key=lambda f: (not _inside(base, f), str(f)))
    files = [
        file
        for file in _graph_files(_read(config), base)
        if not any(_inside(file, folder) for folder in folders)
    ]
    root = Path(os.path.commonpath([*folders, *(f.parent for f in files)]))
    return ProjectSources(root, tuple(folders), tuple(dict.fromkeys(files)))


def config_in_archive(config: Path, sources: ProjectSources) -> str:
    """`langgraph_config_path`: the config's path inside the archive."""
    return sources.relative(config.resolve()).as_posix()


def outside_folder(config: Path) -> list[str]:
    """What is packed beyond ``config``'s folder, as paths relative to that folder
    (`../common`), for a confirmation to name."""
    sources = project_sources(config)
    base = config.resolve().parent
    return [
        os.path.relpath(path, base)
        for path in (*sources.folders, *sources.files)
        if path != base and base not in path.parents
    ]
