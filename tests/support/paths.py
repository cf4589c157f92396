"""Where the tests' own files are, wherever the test that needs them lives."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
# The test graphs (`counter`, `ticker`, `loop`, `nested`, `questions`, `failing`, `memory`) and the
# `langgraph.json` that serves them with the demo graphs.
GRAPHS = TESTS / "graphs"
GRAPHS_CONFIG = GRAPHS / "langgraph.json"
# A copy of the control plane's OpenAPI contract, so a clean clone can run the tests.
CONTROL_PLANE_SPEC = TESTS / "contracts" / "control-plane.openapi.json"
# A project whose graph imports a tiny local package (tests.support.projects).
WEATHER_PROJECT = TESTS / "projects" / "weather"
