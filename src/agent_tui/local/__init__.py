"""Local, headless pieces of agent-tui: the embedded agent server and the demo graphs.

Nothing here imports Textual (a test checks), and importing this package does not import
langgraph-api or LangGraph: only the server process does.
"""

from agent_tui.local.embedded_server import (
    DEFAULT_JOBS_PER_WORKER,
    DEFAULT_READY_TIMEOUT,
    EmbeddedAgentServer,
    EmbeddedServerError,
    ServerAlreadyRunning,
    local_server_data_dir,
    server_key,
)
from agent_tui.local.langgraph_config import (
    DEMO_CONFIG,
    LangGraphConfig,
    LangGraphConfigError,
    default_langgraph_config,
    load_langgraph_config,
)
from agent_tui.local.server_lock import (
    RunningServer,
    ServerLock,
    ServerLockError,
    ServerLockHeld,
    running_server,
    wait_for_running_server,
    wait_for_running_url,
)

__all__ = [
    "DEFAULT_JOBS_PER_WORKER",
    "DEFAULT_READY_TIMEOUT",
    "DEMO_CONFIG",
    "EmbeddedAgentServer",
    "EmbeddedServerError",
    "LangGraphConfig",
    "LangGraphConfigError",
    "RunningServer",
    "ServerAlreadyRunning",
    "ServerLock",
    "ServerLockError",
    "ServerLockHeld",
    "default_langgraph_config",
    "load_langgraph_config",
    "local_server_data_dir",
    "running_server",
    "server_key",
    "wait_for_running_server",
    "wait_for_running_url",
]
