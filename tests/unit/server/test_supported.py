"""``pyproject.toml`` asks for the langgraph-api releases the local server runs on
(`agent_tui.server.supported`), not one release."""

from __future__ import annotations

import tomllib

from agent_tui.local.server_versions import RANGES
from tests.support.paths import TESTS


def test_pyproject_asks_for_the_supported_ranges() -> None:
    with (TESTS.parent / "pyproject.toml").open("rb") as file:
        dependencies = tomllib.load(file)["project"]["dependencies"]
    asked = {
        name: [d.removeprefix(name) for d in dependencies if d.startswith(name + ">")]
        for name in RANGES
    }
    assert asked == {name: [wanted] for name, wanted in RANGES.items()}
