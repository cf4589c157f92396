"""What a project's environment is built from: `plan_environment` over langgraph.json shapes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.local import DEMO_CONFIG, load_langgraph_config
from agent_tui.local.project_env.environment import plan_environment
from tests.support.paths import GRAPHS_CONFIG


def project(folder: Path, dependencies: list[str], files: dict[str, str] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in (files or {}).items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    config = folder / "langgraph.json"
    config.write_text(json.dumps({"dependencies": dependencies, "graphs": {"g": "./g.py:g"}}))
    return config


def test_the_demo_and_the_test_graphs_need_nothing_installed() -> None:
    # They keep starting at once on agent-tui's own interpreter.
    assert plan_environment(load_langgraph_config(DEMO_CONFIG)).is_empty
    assert plan_environment(load_langgraph_config(GRAPHS_CONFIG)).is_empty


def test_requirement_strings_and_local_packages(tmp_path: Path) -> None:
    buildable = '[project]\nname = "p"\n[build-system]\nrequires = ["hatchling"]\n'
    config = project(
        tmp_path / "app",
        [".", "langchain-openai>=0.3", "./libs/tools", "./reqs.txt"],
        {
            "pyproject.toml": buildable,
            "libs/tools/requirements.txt": "requests\n",
            "reqs.txt": "httpx\n",
        },
    )
    plan = plan_environment(load_langgraph_config(config), tmp_path / "env")
    assert plan.requirements == ["langchain-openai>=0.3"]
    assert plan.editables == [(tmp_path / "app").resolve()]
    assert plan.requirement_files == [
        (tmp_path / "app" / "reqs.txt").resolve(),
        (tmp_path / "app" / "libs" / "tools" / "requirements.txt").resolve(),
    ]


def test_a_pyproject_without_build_system_gives_its_dependencies(tmp_path: Path) -> None:
    # A uv "virtual" project cannot be installed, but what it declares can.
    folder = tmp_path / "app"
    config = project(folder, ["."])
    (folder / "pyproject.toml").write_text(
        '[project]\nname = "app"\nversion = "0"\ndependencies = ["tavily-python", "rich>=13"]\n'
    )
    plan = plan_environment(load_langgraph_config(config), tmp_path / "env")
    assert plan.requirements == ["tavily-python", "rich>=13"]
    assert plan.editables == []


def test_the_project_pyproject_counts_even_without_dot(tmp_path: Path) -> None:
    folder = tmp_path / "app"
    config = project(folder, ["numpy"])
    (folder / "requirements.txt").write_text("pandas\n")
    plan = plan_environment(load_langgraph_config(config), tmp_path / "env")
    assert plan.requirements == ["numpy"]
    assert plan.requirement_files == [(folder / "requirements.txt").resolve()]


def test_the_key_follows_dependency_files_not_code(tmp_path: Path) -> None:
    folder = tmp_path / "app"
    config = project(folder, ["."])
    (folder / "requirements.txt").write_text("pandas\n")
    (folder / "g.py").write_text("g = 1\n")
    key = plan_environment(load_langgraph_config(config), tmp_path / "env").key()

    (folder / "g.py").write_text("g = 2\n")  # code: reloaded, not rebuilt
    assert plan_environment(load_langgraph_config(config), tmp_path / "env").key() == key

    (folder / "requirements.txt").write_text("pandas\nnumpy\n")
    assert plan_environment(load_langgraph_config(config), tmp_path / "env").key() != key


def test_python_version_is_kept_only_when_it_differs(tmp_path: Path) -> None:
    import sys

    own = f"{sys.version_info.major}.{sys.version_info.minor}"
    folder = tmp_path / "app"
    config = project(folder, ["requests"])
    raw = json.loads(config.read_text())
    for version, expected in ((own, None), ("3.99", "3.99")):
        raw["python_version"] = version
        config.write_text(json.dumps(raw))
        plan = plan_environment(load_langgraph_config(config), tmp_path / "env")
        assert plan.python_version == expected


def test_without_uv_the_message_says_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from agent_tui.local.project_env.builder import EnvironmentBuildError, find_uv

    monkeypatch.setenv("PATH", str(tmp_path))  # no uv on it
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))  # none beside it
    monkeypatch.setitem(sys.modules, "uv", None)  # nor the uv package
    with pytest.raises(EnvironmentBuildError) as failure:
        find_uv()
    assert "needs uv, which was not found" in failure.value.reason
    assert "pip install uv" in failure.value.reason
