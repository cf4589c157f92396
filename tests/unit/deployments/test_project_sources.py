"""What `agent-tui deploy` packs for a `langgraph.json` that names paths outside its
folder: as the official CLI's archive, their common parent holds them, and nothing
beside them is packed."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from agent_tui.deployments.project_sources import config_in_archive, project_sources
from agent_tui.deployments.source_archive import ArchiveError, pack_paths


def tree(root: Path, *files: str) -> Path:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(name)
    return root


def config(folder: Path, **raw: object) -> Path:
    path = folder / "langgraph.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(raw))
    return path


def names(config_path: Path) -> tuple[list[str], str]:
    sources = project_sources(config_path)
    data = pack_paths(sources.root, sources.folders, sources.files)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        return sorted(tar.getnames()), config_in_archive(config_path, sources)


def test_a_sibling_dependency_and_an_outside_graph_file_are_packed_under_their_parent(
    tmp_path: Path,
) -> None:
    tree(
        tmp_path,
        "app/agent.py",
        "common/words/__init__.py",
        "common/.venv/lib.py",
        "shared/graph.py",
        "shared/secret.txt",
        "elsewhere/private.txt",
    )
    path = config(
        tmp_path / "app",
        dependencies=[".", "../common", "langchain-openai"],
        graphs={"a": "./agent.py:graph", "b": {"path": "../shared/graph.py:graph"}, "c": "m:g"},
    )
    packed, config_path = names(path)
    assert config_path == "app/langgraph.json"
    assert packed == [
        "app/agent.py",
        "app/langgraph.json",
        "common/words/__init__.py",
        "shared/graph.py",  # the file named, not its folder
    ]


def test_a_dependency_above_the_config_takes_its_place_with_no_file_twice(
    tmp_path: Path,
) -> None:
    tree(tmp_path, "repo/lib/util.py", "repo/app/agent.py")
    path = config(tmp_path / "repo" / "app", dependencies=[".", ".."], graphs={})
    packed, config_path = names(path)
    assert config_path == "app/langgraph.json"
    assert packed == ["app/agent.py", "app/langgraph.json", "lib/util.py"]


def test_a_project_naming_nothing_outside_is_its_folder_alone(tmp_path: Path) -> None:
    tree(tmp_path, "app/agent.py", "other/x.py")
    packed, config_path = names(config(tmp_path / "app", dependencies=["."]))
    assert (packed, config_path) == (["agent.py", "langgraph.json"], "langgraph.json")


def test_a_missing_local_dependency_is_named(tmp_path: Path) -> None:
    path = config(tmp_path / "app", dependencies=["../gone"])
    with pytest.raises(ArchiveError, match=r"'\.\./gone', which is not a folder"):
        project_sources(path)


def test_what_is_packed_beside_the_folder_is_named_from_it(tmp_path: Path) -> None:
    from agent_tui.deployments.project_sources import outside_folder

    tree(tmp_path, "app/agent.py", "common/w.py", "shared/graph.py")
    path = config(
        tmp_path / "app",
        dependencies=[".", "../common"],
        graphs={"g": "../shared/graph.py:graph"},
    )
    assert outside_folder(path) == ["../common", "../shared/graph.py"]
