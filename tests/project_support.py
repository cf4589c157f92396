"""Small projects for the tests that start a local server on one.

``tiny_config`` writes a ``langgraph.json`` with one graph (``tiny``, the test counter
graph) and nothing to install.

``tests/projects/weather`` is a ``langgraph.json`` whose graph imports ``tinyweather``, a
tiny local package (``packages/tinyweather``, built with hatchling) that agent-tui's own
environment does not have: the graph runs only in the project's environment. Installing
it needs no network (uv builds it with a backend from its cache).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

WEATHER_PROJECT = Path(__file__).parent / "projects" / "weather"
TEST_GRAPHS = Path(__file__).parent / "graphs"


def tiny_config(folder: Path) -> Path:
    """A ``langgraph.json`` in ``folder`` serving the test counter graph as ``tiny``."""
    config = folder / "langgraph.json"
    graph = TEST_GRAPHS / "counter.py"
    config.write_text(json.dumps({"graphs": {"tiny": f"{graph}:graph"}, "env": {}}))
    return config


def copy_weather_project(destination: Path) -> Path:
    """A private copy of the weather project (tests edit it); its ``langgraph.json``."""
    folder = destination / "weather"
    shutil.copytree(
        WEATHER_PROJECT, folder, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    return folder / "langgraph.json"


def add_dependency(config: Path, dependency: str) -> None:
    """Add a requirement string (or local path) to a project's ``dependencies``."""
    raw = json.loads(config.read_text())
    raw["dependencies"] = [*raw.get("dependencies", []), dependency]
    config.write_text(json.dumps(raw, indent=2))
