"""agent-tui: a terminal app for developers who build LangGraph agents."""

# The one place the version is written (pyproject.toml reads it from here): a literal,
# because `importlib.metadata.version()` imports email, zipfile and csv first and added
# 40-100 ms to every start.
__version__ = "0.1.0"

__all__ = ["__version__"]
