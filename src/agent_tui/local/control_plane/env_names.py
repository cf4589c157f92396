"""Which environment variable names the local control plane puts in a deployed server's
environment: an allow rule, for a secret's name and for an uploaded or local
``langgraph.json``'s ``env`` alike.

A name is allowed when it

1. is an environment variable name: ``^[A-Za-z_][A-Za-z0-9_]*$``, at most `MAX_NAME`
   characters; and
2. does not change how the server process itself runs (compared in upper case), that is
   it neither starts with a prefix of `REFUSED_PREFIXES` nor is one of `REFUSED_NAMES`:

   - the process and shell: ``PATH``, ``HOME``, ``SHELL``, ``IFS``, ``TMPDIR``,
     ``BASH_ENV``, ``ENV``;
   - the dynamic loader and the C library: ``LD_*``, ``DYLD_*``, ``GLIBC_TUNABLES``,
     ``MALLOC_*`` and the rest of glibc's list of variables it ignores in privileged
     programs (``GCONV_PATH``, ``LOCPATH``, ``NLSPATH``, ``HOSTALIASES``, ``RES_OPTIONS`` …);
   - interpreters and installers: ``PYTHON*``, ``NODE_*``, ``NPM_CONFIG_*``, ``UV_*``,
     ``PIP_*``;
   - TLS: ``SSL_*``, ``OPENSSL_*``, ``REQUESTS_CA_BUNDLE``, ``CURL_CA_BUNDLE``;
   - agent-tui itself and hosted settings: ``AGENT_TUI_*``, ``LSD_*``, ``CUSTOM_LSD_*``;
   - what the server sets for itself (`SERVER_NAMES`): its address (``PORT``,
     ``MOUNT_PREFIX``), what langgraph-api's ``run_server`` sets (``LANGSERVE_GRAPHS``,
     ``LANGGRAPH_STORE``, ``DATABASE_URI`` …) and the switches that keep it offline
     (``LANGGRAPH_NO_VERSION_CHECK``, ``LANGSMITH_CONTROL_PLANE_API_KEY`` …).

Everything else passes: ``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``TAVILY_API_KEY``,
``LANGSMITH_API_KEY``, ``LANGSMITH_TRACING`` / ``LANGSMITH_PROJECT`` (tracing is the
user's choice, as under ``langgraph dev``), other ``LANGGRAPH_*`` server settings,
proxies.
"""

from __future__ import annotations

import re

from agent_tui.local.server_environment import OFFLINE_ENVIRONMENT

MAX_NAME = 256
"""Characters of a name at most."""

ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

REFUSED_PREFIXES: dict[str, str] = {
    "LD_": "read by the dynamic loader",
    "DYLD_": "read by the dynamic loader",
    "MALLOC_": "read by the C library",
    "PYTHON": "read by the Python interpreter",
    "NODE_": "read by Node.js",
    "NPM_CONFIG_": "read by npm",
    "UV_": "read by uv",
    "PIP_": "read by pip",
    "SSL_": "read by TLS",
    "OPENSSL_": "read by TLS",
    "AGENT_TUI_": "read by agent-tui itself",
    "LSD_": "a hosted deployment's setting",
    "CUSTOM_LSD_": "a hosted deployment's setting",
}
"""Refused prefixes, with who reads a variable of each."""

_PROCESS_NAMES = ("PATH", "HOME", "SHELL", "IFS", "TMPDIR", "BASH_ENV", "ENV")
_C_LIBRARY_NAMES = (
    # glibc's "unsecure" variables (those it drops for setuid programs) beyond LD_*.
    "GLIBC_TUNABLES",
    "GCONV_PATH",
    "GETCONF_DIR",
    "HOSTALIASES",
    "LOCALDOMAIN",
    "LOCPATH",
    "NIS_PATH",
    "NLSPATH",
    "RESOLV_HOST_CONF",
    "RES_OPTIONS",
    "TZDIR",
)
_TLS_NAMES = ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")
_TRACING_SWITCHES = frozenset(
    {"LANGSMITH_TRACING", "LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING", "LANGCHAIN_TRACING_V2"}
)

SERVER_NAMES = frozenset(
    {
        "PORT",
        "MOUNT_PREFIX",
        "LANGGRAPH_MOUNT_PREFIX",
        # What langgraph-api's `run_server` sets for the server it starts.
        "LANGSERVE_GRAPHS",
        "LANGGRAPH_AUTH",
        "LANGGRAPH_HTTP",
        "LANGGRAPH_UI",
        "LANGGRAPH_UI_CONFIG",
        "LANGGRAPH_UI_BUNDLER",
        "LANGGRAPH_WEBHOOKS",
        "LANGGRAPH_CHECKPOINTER",
        "LANGGRAPH_STORE",
        "LANGGRAPH_API_URL",
        "LANGGRAPH_DISABLE_FILE_PERSISTENCE",
        "LANGGRAPH_RUNTIME_EDITION",
        "LANGGRAPH_ALLOW_BLOCKING",
        "LANGSMITH_LANGGRAPH_API_VARIANT",
        "DATABASE_URI",
        "REDIS_URI",
        "MIGRATIONS_PATH",
        "N_JOBS_PER_WORKER",
        "ALLOW_PRIVATE_NETWORK",
        # The switches that keep it offline (tracing is left to the user).
        *(name for name in OFFLINE_ENVIRONMENT if name not in _TRACING_SWITCHES),
    }
)
"""Names the agent server sets for itself."""

REFUSED_NAMES: dict[str, str] = {
    **dict.fromkeys(_PROCESS_NAMES, "read by the process and its shell"),
    **dict.fromkeys(_C_LIBRARY_NAMES, "read by the C library"),
    **dict.fromkeys(_TLS_NAMES, "read by TLS"),
    **dict.fromkeys(sorted(SERVER_NAMES), "set by the agent server itself"),
}
"""Refused names, with who reads (or sets) each."""

RULE = (
    "Allowed: environment variable names ([A-Za-z_][A-Za-z0-9_]*) that do not change how "
    "the agent server process runs (PATH, HOME, LD_*, DYLD_*, PYTHON*, NODE_*, UV_*, PIP_*, "
    "SSL_*, AGENT_TUI_*, the C library's and the server's own settings are reserved)"
)
"""The rule in one sentence, for refusals."""


def reserved_because(name: str) -> str | None:
    """Who reads (or sets) a variable ``name`` (so it is reserved), or None when allowed."""
    upper = name.upper()
    if upper in REFUSED_NAMES:
        return REFUSED_NAMES[upper]
    for prefix, what in REFUSED_PREFIXES.items():
        if upper.startswith(prefix):
            return what
    return None


def env_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be put in a server's environment (None: it can), naming it."""
    shown = name.encode("utf-8", "backslashreplace").decode("utf-8")[:MAX_NAME]
    if len(name) > MAX_NAME:
        return f"{shown[:40]}… is longer than {MAX_NAME} characters"
    if not ENV_NAME.fullmatch(name):
        return (
            f"{shown!r} is not an environment variable name (letters, digits and '_', not "
            "starting with a digit)"
        )
    if what := reserved_because(name):
        return f"{shown} is reserved ({what}). {RULE}"
    return None
