"""Local, headless pieces of agent-tui: the embedded agent server and the demo graphs.

Nothing here imports Textual (a test checks), and importing this package does not import
langgraph-api or LangGraph: only the server process does.
"""

from agent_tui.local.embedded_server import (
    DEFAULT_JOBS_PER_WORKER,
    DEFAULT_READY_TIMEOUT,
    EmbeddedAgentServer,
    EmbeddedServerError,
    server_key,
)
from agent_tui.local.langgraph_config import (
    DEMO_CONFIG,
    LangGraphConfig,
    LangGraphConfigError,
    default_langgraph_config,
    load_langgraph_config,
)

__all__ = [
    "DEFAULT_JOBS_PER_WORKER",
    "DEFAULT_READY_TIMEOUT",
    "DEMO_CONFIG",
    "EmbeddedAgentServer",
    "EmbeddedServerError",
    "LangGraphConfig",
    "LangGraphConfigError",
    "default_langgraph_config",
    "load_langgraph_config",
    "server_key",
]
