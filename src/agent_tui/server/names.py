"""What langgraph-api's settings name to reach this package's parts. Kept apart from the
parts: importing `app` starts langgraph-api's config, which must wait for ``run_server``."""

from __future__ import annotations

CHECKPOINTER = "agent_tui.server.checkpointer.checkpointer"
"""``checkpointer.path`` (a dotted path: ``module:name`` without a slash is split at the
last dot by langgraph-api)."""
STORE = "agent_tui.server.store.store"
"""``store.path``."""
APP = "agent_tui.server.app:app"
"""``http.app``."""
PROJECT_APP = "AGENT_TUI_PROJECT_APP"
"""The environment variable holding the project's own ``http.app``, when it names one."""
DATA_FOLDER = ".langgraph_api"
"""The runtime's data folder, in the server's working folder."""
OPS_FILE = ".langgraph_ops.pckl"
"""The runtime's file of threads, runs, assistants and crons, in `DATA_FOLDER` (its records
name classes of langgraph-api: restored once its config is set, by `app`; a test checks
the name against the runtime's ``database.OPS_FILENAME``)."""
VOLATILE = "AGENT_TUI_VOLATILE"
"""Set by ``--volatile`` (benchmarks): `app` only starts runs at once, nothing is saved."""
