"""The environment of the embedded agent server: offline unless the user says otherwise.

langgraph-api reaches the internet on its own in several ways. Each line below turns one
off; the reason is next to it. The caller's overrides win, and a project's own
``langgraph.json`` ``env`` is applied by langgraph-api on top of this (so a project that
sets ``LANGSMITH_TRACING=true`` there still traces, as under ``langgraph dev``).
"""

from __future__ import annotations

from collections.abc import Mapping

OFFLINE_ENVIRONMENT: dict[str, str] = {
    # `run_server` starts a thread that asks the package index for newer versions.
    "LANGGRAPH_NO_VERSION_CHECK": "true",
    # With an API key in the shell, langgraph-api turns LangSmith tracing on by itself,
    # which uploads every run. All four spellings are read by some layer.
    "LANGSMITH_TRACING": "false",
    "LANGSMITH_TRACING_V2": "false",
    "LANGCHAIN_TRACING_V2": "false",
    "LANGCHAIN_TRACING": "false",
    # The "metadata loop" posts usage counters every 5 minutes, with the API key, when
    # either of these is non-empty; the control-plane key defaults to LANGSMITH_API_KEY.
    "LANGSMITH_CONTROL_PLANE_API_KEY": "",
    "LANGGRAPH_CLOUD_LICENSE_KEY": "",
    # OpenTelemetry export switches itself on when an OTLP endpoint is in the shell.
    "OTEL_ENABLED": "false",
    "LANGGRAPH_METRICS_ENABLED": "false",
    "LANGGRAPH_LOGS_ENABLED": "false",
    # Plain log lines: they are kept for display and written to a log file.
    "LOG_COLOR": "false",
    "PYTHONUNBUFFERED": "1",
}

# Settings of hosted deployments that would make a local server call out (Datadog metrics,
# LangSmith-backed auth). They only leak into a developer's shell by accident.
REMOVED_VARIABLES = (
    "LSD_DD_API_KEY",
    "CUSTOM_LSD_DD_API_KEY",
    "LANGGRAPH_AUTH_TYPE",
    "LANGSMITH_AUTH_ENDPOINT",
)


def server_environment(
    base: Mapping[str, str], overrides: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The child process environment: ``base`` made offline, then ``overrides``."""
    env = {key: value for key, value in base.items() if key not in REMOVED_VARIABLES}
    env.update(OFFLINE_ENVIRONMENT)
    env.update(overrides or {})
    return env
