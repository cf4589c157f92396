"""Which langgraph-api releases the local server runs on, and what to say outside them.

The server touches langgraph-api only through its public settings and the private names
listed in `upstream`, checked on the newest release of each minor series below (the
suite builds the oldest and newest and runs the durability tests and a chat on each).
``pyproject.toml`` asks for the same ranges.
"""

from __future__ import annotations

from importlib import metadata

SERIES = ("0.14", "0.15", "0.16")
"""The minor series of langgraph-api the server is tested on (newest release of each)."""
RUNTIME_SERIES = {"0.14": "0.34", "0.15": "0.35", "0.16": "0.36"}
"""The langgraph-runtime-inmem series each langgraph-api series runs with."""
RANGES = {
    "langgraph-api": f">={SERIES[0]},<0.{int(SERIES[-1].split('.')[1]) + 1}",
    "langgraph-runtime-inmem": (
        f">={RUNTIME_SERIES[SERIES[0]]},<0.{int(RUNTIME_SERIES[SERIES[-1]].split('.')[1]) + 1}"
    ),
}


def series(version: str) -> str:
    """``0.16.7`` -> ``0.16``."""
    return ".".join(version.split(".")[:2])


def supported_words() -> str:
    return f"langgraph-api {SERIES[0]} to {SERIES[-1]} ({RANGES['langgraph-api']})"


def unsupported_versions() -> str | None:
    """What is wrong with the installed langgraph-api and runtime, or None."""
    try:
        api = metadata.version("langgraph-api")
    except metadata.PackageNotFoundError:
        return f"langgraph-api is not installed; agent-tui's local server runs {supported_words()}"
    if series(api) not in SERIES:
        return (
            f"langgraph-api {api} is installed; agent-tui's local server runs {supported_words()}"
        )
    try:
        runtime = metadata.version("langgraph-runtime-inmem")
    except metadata.PackageNotFoundError:
        return "langgraph-runtime-inmem is not installed (langgraph-api's in-memory runtime)"
    wanted = RUNTIME_SERIES[series(api)]
    if series(runtime) != wanted:
        return (
            f"langgraph-runtime-inmem {runtime} is installed with langgraph-api {api}, "
            f"which runs with {wanted}.x"
        )
    return None
