"""Local, headless pieces of agent-tui that run in the app's process (and ``agent-tui serve``).

One package per subsystem, each named for what it does:

- `project_env`: the project's environment, built with uv from what its
  ``langgraph.json`` declares;
- `supervisor`: the agent-server child process (``python -m agent_tui.server.main``):
  start, stop, restart, the data folder's lock, prewarmed standbys, its log;
- `live_reload`: an edit restarts the server (and a broken start waits for a fix);
- `control_plane`: the local deployments API (``agent-tui control-plane``);
- `trace_collector`: LangSmith's ingestion API on this machine, in a child process
  (``python -m agent_tui.local.trace_collector.child``) the servers above trace to;
- `session`: the app's side, which puts them together for the ``local`` context.

Beside them, what several of them share: the config reader (`langgraph_config`), safe
reads of project files (`project_files`), the children's environment
(`server_environment`), process groups and output (`child_processes`), a child's end
with its parent (`lifeline`), standbys (`standby`), the data folder's name
(`server_paths`), the disk problem's words (`disk_problem`), and the bundled `demo` graphs.

Nothing here imports Textual (a test checks), and importing this package does not import
langgraph-api or LangGraph: only the server process does. The names below load their
module when first used, so `agent_tui.local.session` (which the app imports before
its first paint) does not bring in the server's supervisor and httpx with it.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_tui.local.langgraph_config import (
        DEMO_CONFIG,
        LangGraphConfig,
        LangGraphConfigError,
        default_langgraph_config,
        load_langgraph_config,
    )
    from agent_tui.local.server_paths import local_server_data_dir, server_key
    from agent_tui.local.supervisor.embedded_server import (
        DEFAULT_JOBS_PER_WORKER,
        DEFAULT_READY_TIMEOUT,
        EmbeddedAgentServer,
    )
    from agent_tui.local.supervisor.errors import EmbeddedServerError, ServerAlreadyRunning
    from agent_tui.local.supervisor.lock import (
        RunningServer,
        ServerLock,
        ServerLockError,
        ServerLockHeld,
        running_server,
        wait_for_running_server,
        wait_for_running_url,
    )

_HOMES = {
    "DEFAULT_JOBS_PER_WORKER": "agent_tui.local.supervisor.embedded_server",
    "DEFAULT_READY_TIMEOUT": "agent_tui.local.supervisor.embedded_server",
    "EmbeddedAgentServer": "agent_tui.local.supervisor.embedded_server",
    "EmbeddedServerError": "agent_tui.local.supervisor.errors",
    "ServerAlreadyRunning": "agent_tui.local.supervisor.errors",
    "local_server_data_dir": "agent_tui.local.server_paths",
    "server_key": "agent_tui.local.server_paths",
    "DEMO_CONFIG": "agent_tui.local.langgraph_config",
    "LangGraphConfig": "agent_tui.local.langgraph_config",
    "LangGraphConfigError": "agent_tui.local.langgraph_config",
    "default_langgraph_config": "agent_tui.local.langgraph_config",
    "load_langgraph_config": "agent_tui.local.langgraph_config",
    "RunningServer": "agent_tui.local.supervisor.lock",
    "ServerLock": "agent_tui.local.supervisor.lock",
    "ServerLockError": "agent_tui.local.supervisor.lock",
    "ServerLockHeld": "agent_tui.local.supervisor.lock",
    "running_server": "agent_tui.local.supervisor.lock",
    "wait_for_running_server": "agent_tui.local.supervisor.lock",
    "wait_for_running_url": "agent_tui.local.supervisor.lock",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


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
