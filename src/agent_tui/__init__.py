"""agent-tui: a terminal app for developers who build LangGraph agents."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("agent-tui")
except PackageNotFoundError:  # running from a source tree without metadata
    __version__ = "0.0.0"

__all__ = ["__version__"]
