"""The local agent servers agent-tui starts trace to its collector, by default.

`tracing_environment(project_env)` is what the starter of a server adds to its
environment (`EmbeddedAgentServer(env=…)`): the `langsmith` SDK's switches, the
collector's URL (``LANGSMITH_ENDPOINT``) and its key (``LANGSMITH_API_KEY``, set only in
that server's environment, never agent-tui's own key). A local control plane's deployments get
the same (`deployment_tracing`: a secret counts as the project's own setting). The
collector is this process's (`shared_collector`): a child process (`process`), started the
first time a server needs it, on a free port of 127.0.0.1, stopped when this process exits
(and gone by itself if this process is killed); started again if it has died when
another server needs it.

Nothing is added when

- tracing is off: ``[traces] enabled = false`` in the config, ``AGENT_TUI_TRACES=0``, or
  ``--no-traces`` (which sets that variable for the process);
- the project traces by itself: its ``langgraph.json`` ``env`` names one of
  `PROJECT_TRACING_NAMES` (``LANGSMITH_TRACING``, ``LANGSMITH_ENDPOINT``,
  ``LANGSMITH_API_KEY`` … in either namespace). Its own settings then stand whole, as
  under ``langgraph dev``: sending its key to our collector, or its runs here while it
  asked for LangSmith, would be wrong either way;
- the collector cannot start (its folder cannot be written, its store cannot be opened,
  its process cannot be started): the server starts untraced and the log says why.
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections.abc import Mapping
from pathlib import Path

from agent_tui.local.trace_collector.process import CollectorProcess
from agent_tui.traces.untraced import ServerTracing

logger = logging.getLogger(__name__)

PROJECT_TRACING_NAMES = frozenset(
    f"{namespace}_{name}"
    for namespace in ("LANGSMITH", "LANGCHAIN")
    for name in ("TRACING", "TRACING_V2", "ENDPOINT", "API_KEY", "RUNS_ENDPOINTS")
)
"""A project that sets one of these in its ``env`` keeps its own tracing."""

_shared: CollectorProcess | None = None
_lock = threading.Lock()


def project_traces_itself(project_env: Mapping[str, str]) -> bool:
    return any(name.upper() in PROJECT_TRACING_NAMES for name in project_env)


def shared_collector() -> CollectorProcess:
    """This process's collector, started on first use (`OSError`, `RuntimeError` when it
    cannot be). Blocking: its key, its store opened, a process started; not the child's
    own start, which goes on beside the server's."""
    global _shared
    with _lock:
        if _shared is not None and not _shared.running():
            logger.warning(
                "the trace collector had exited (status %s): starting another", _shared.stop()
            )
            _shared = None
        if _shared is None:
            from agent_tui.settings.traces import trace_settings

            collector = CollectorProcess(max_bytes=trace_settings().max_bytes)
            # It listens (a client waits in the backlog): the server may start meanwhile.
            collector.start(wait=False)
            atexit.register(collector.stop)
            _shared = collector
            logger.info(
                "trace collector (process %s) at %s, storing in %s",
                collector.pid,
                collector.url,
                collector.folder,
            )
        return _shared


def tracing_environment(project_env: Mapping[str, str]) -> dict[str, str]:
    """What to add to the environment of a server for a project with this ``env``."""
    from agent_tui.settings.traces import trace_settings

    if not trace_settings().enabled or project_traces_itself(project_env):
        return {}
    try:
        return shared_collector().tracing_environment()
    except (OSError, RuntimeError) as error:
        logger.warning("the trace collector did not start, so runs are not traced: %s", error)
        return {}


def server_tracing(added: Mapping[str, str], project_env: Mapping[str, str]) -> ServerTracing:
    """How a server started with ``added`` (`tracing_environment`'s answer) traces."""
    if added:
        return "traced"
    return "own-settings" if project_traces_itself(project_env) else "tracing-off"


def deployment_tracing(config_path: Path, secrets: Mapping[str, str]) -> dict[str, str]:
    """`tracing_environment` for a local control plane's deployment: its project's ``env``
    and its secrets both count as the project's own settings."""
    return traced_deployment(config_path, secrets)[0]


def traced_deployment(
    config_path: Path, secrets: Mapping[str, str]
) -> tuple[dict[str, str], ServerTracing]:
    """`deployment_tracing`, and how the deployment's server then traces."""
    from agent_tui.local.langgraph_config import LangGraphConfigError, load_langgraph_config

    try:
        project_env = load_langgraph_config(config_path).env
    except (LangGraphConfigError, OSError):
        project_env = {}  # the server will say what is wrong with it
    own = {**project_env, **secrets}
    added = tracing_environment(own)
    return added, server_tracing(added, own)
