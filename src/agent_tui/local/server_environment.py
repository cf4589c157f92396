"""The environment of the agent servers agent-tui starts: offline, and allow-listed.

**Allow-listed.** A server runs the project's graphs, which can read every variable it
is given; agent-tui's own keys (the control plane's, the LangSmith/LangGraph key it
connects with, the keys its contexts name) must never be among them. So a child does
not inherit the caller's environment: it gets only

1. what a process needs to run: `PROCESS_VARIABLES` (``PATH``, ``HOME``, user, shell,
   temp folders, time zone, Windows' system folders), the locale (``LANG``,
   ``LANGUAGE``, ``LC_*``), proxies (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``,
   ``NO_PROXY``, in either case) and certificate bundles (``SSL_CERT_FILE`` …);
2. the model providers' settings the user exported: a name that starts with one of
   `PROVIDER_PREFIXES` (``OPENAI_``, ``ANTHROPIC_``, ``AWS_`` …) or ends in ``_API_KEY``;
3. never, even when rule 2 matches, a name of `WITHHELD_PREFIXES` (``AGENT_TUI_``,
   ``LANGSMITH_``, ``LANGCHAIN_``, ``LANGGRAPH_``: agent-tui's and the LangGraph
   ecosystem's settings, keys included) nor one the caller names in ``withheld`` (the
   variables agent-tui's contexts read their keys from);

then the offline settings below, then ``overrides`` (a deployment's secrets), and a
project's own ``langgraph.json`` ``env`` is applied by langgraph-api on top. Anything
else a graph needs goes in that ``env`` (or a deployment's secrets), as on a hosted
deployment: ``LANGSMITH_API_KEY`` for tracing, a ``LANGGRAPH_*`` server setting.

**Offline.** langgraph-api reaches the internet on its own in several ways. Each line
of `OFFLINE_ENVIRONMENT` turns one off; the reason is next to it. A project that sets
``LANGSMITH_TRACING=true`` in its ``env`` still traces, as under ``langgraph dev``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

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

PROCESS_VARIABLES = frozenset(
    {
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "TZ",
        "TMPDIR",
        "TEMP",
        "TMP",
        "LANG",
        "LANGUAGE",
        "XDG_CACHE_HOME",
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "XDG_RUNTIME_DIR",
        # Proxies (also in lower case, below) and certificate bundles.
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "NO_PROXY",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
        # Windows: a process cannot start sockets or find its folders without these.
        "SYSTEMROOT",
        "SYSTEMDRIVE",
        "WINDIR",
        "COMSPEC",
        "PATHEXT",
        "USERPROFILE",
        "APPDATA",
        "LOCALAPPDATA",
        "PROGRAMDATA",
        "PROGRAMFILES",
    }
)
"""Passed as they are (rule 1). Compared in upper case: ``http_proxy`` passes too."""

PROVIDER_PREFIXES = (
    "OPENAI_",
    "AZURE_",
    "ANTHROPIC_",
    "GOOGLE_",
    "GEMINI_",
    "VERTEXAI_",
    "AWS_",
    "MISTRAL_",
    "COHERE_",
    "GROQ_",
    "FIREWORKS_",
    "TOGETHER_",
    "DEEPSEEK_",
    "XAI_",
    "HUGGINGFACEHUB_",
    "HF_",
    "NVIDIA_",
    "OLLAMA_",
    "TAVILY_",
)
"""Model providers' (and the common search tool's) settings (rule 2): keys, base URLs,
regions, as their SDKs read them."""

WITHHELD_PREFIXES = (
    "AGENT_TUI_",
    "LANGSMITH_",
    "LANGCHAIN_",
    "LANGGRAPH_",
    # Settings of hosted deployments that would make a local server call out (Datadog
    # metrics): they only leak into a developer's shell by accident.
    "LSD_",
    "CUSTOM_LSD_",
)
"""Never passed from the caller's environment (rule 3)."""


OWN_KEYS = frozenset(
    {
        "AGENT_TUI_CONTROL_PLANE_KEY",
        "LANGSMITH_API_KEY",
        "LANGGRAPH_API_KEY",
        "LANGCHAIN_API_KEY",
        "LANGSMITH_CONTROL_PLANE_API_KEY",
        "LSD_DD_API_KEY",
        "CUSTOM_LSD_DD_API_KEY",
    }
)
"""The keys agent-tui reads for itself (and hosted settings' keys): withheld also from
the environment build."""


def passes(name: str, withheld: Collection[str] = ()) -> bool:
    """Whether the caller's variable ``name`` reaches a server (rules 1 to 3)."""
    upper = name.upper()
    if name in withheld or upper.startswith(WITHHELD_PREFIXES):
        return False
    return (
        upper in PROCESS_VARIABLES
        or upper.startswith("LC_")
        or upper.startswith(PROVIDER_PREFIXES)
        or upper.endswith("_API_KEY")
    )


def server_environment(
    base: Mapping[str, str],
    overrides: Mapping[str, str] | None = None,
    *,
    withheld: Collection[str] | None = None,
) -> dict[str, str]:
    """The child process environment: what passes of ``base``, made offline, then
    ``overrides``. ``withheld`` defaults to the key variables agent-tui's contexts name."""
    names = context_key_variables() if withheld is None else withheld
    env = {key: value for key, value in base.items() if passes(key, names)}
    env.update(OFFLINE_ENVIRONMENT)
    env.update(overrides or {})
    return env


def without_own_keys(base: Mapping[str, str]) -> dict[str, str]:
    """``base`` less agent-tui's keys (`OWN_KEYS` and the contexts' key variables): for
    the environment build, which runs no graph but needs the user's whole build setup
    (``UV_*`` indexes, compilers) and agent-tui's folders (``AGENT_TUI_HOME``)."""
    names = OWN_KEYS | context_key_variables()
    return {key: value for key, value in base.items() if key.upper() not in names}


def context_key_variables() -> frozenset[str]:
    """The variables agent-tui's contexts read their API keys from (none when the
    config file is missing or broken: the app reports that elsewhere)."""
    from agent_tui.settings.config import load_config  # pydantic: not at the app's start

    try:
        config = load_config()
    except Exception:  # a broken config must not stop a server from starting
        return frozenset()
    return frozenset(c.api_key_env for c in config.contexts.values() if c.api_key_env)
