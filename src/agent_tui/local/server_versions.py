"""Which langgraph-api releases agent-tui's local server runs on, and what a project's
environment must hold for it: read by the app (building a project's environment) and by
the server process (`agent_tui.server.supported`), so plain data and the standard library.

The server touches langgraph-api only through its public settings and the private names
listed in ``agent_tui.server.upstream``, checked on the newest release of each minor series
below (the suite builds the oldest and newest and runs the durability tests and a chat on
each). ``pyproject.toml`` asks for the same ranges.
"""

from __future__ import annotations

SERIES = ("0.14", "0.15", "0.16")
"""The minor series of langgraph-api the server is tested on (newest release of each)."""
RUNTIME_SERIES = {"0.14": "0.34", "0.15": "0.35", "0.16": "0.36"}
"""The langgraph-runtime-inmem series each langgraph-api series runs with."""


def _below_next(series: str) -> str:
    major, minor = series.split(".")
    return f"<{major}.{int(minor) + 1}"


RANGES = {
    "langgraph-api": f">={SERIES[0]},{_below_next(SERIES[-1])}",
    "langgraph-runtime-inmem": (
        f">={RUNTIME_SERIES[SERIES[0]]},{_below_next(RUNTIME_SERIES[SERIES[-1]])}"
    ),
    # The server's checkpoints and store (agent_tui/server/checkpointer.py, store.py).
    "langgraph-checkpoint-sqlite": ">=3.1.2,<4",
}
"""What the server needs installed beside a project's own dependencies: every other
package (httpx, pydantic, cryptography…) is the project's resolution's to choose."""


def server_requirements() -> list[str]:
    """The requirement strings a project's environment is resolved with."""
    return [name + wanted for name, wanted in RANGES.items()]


def supported_words() -> str:
    return f"langgraph-api {SERIES[0]} to {SERIES[-1]} ({RANGES['langgraph-api']})"
