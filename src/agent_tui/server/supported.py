"""Whether the installed langgraph-api is one the local server runs on
(`agent_tui.local.server_versions` names them), and what to say outside them."""

from __future__ import annotations

from importlib import metadata

from agent_tui.local.server_versions import RUNTIME_SERIES, SERIES, supported_words

__all__ = ["series", "supported_words", "unsupported_versions"]


def series(version: str) -> str:
    """``0.16.7`` -> ``0.16``."""
    return ".".join(version.split(".")[:2])


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
