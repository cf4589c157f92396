"""From flags, environment and config file to the context the app uses.

Headless. Precedence, highest first:

1. command-line flags (`--context`, `--url`, `--api-key`, `--readonly`);
2. agent-tui's environment variables (`AGENT_TUI_CONTEXT`, `AGENT_TUI_READONLY`);
3. the context's own settings in the config file (`current_context`, then the
   context's `api_key_env` / `api_key_stored`, `workspace_id`, `readonly`);
4. the ecosystem's environment variables, for what the context does not say:
   `LANGSMITH_API_KEY`, `LANGGRAPH_API_KEY`, `LANGCHAIN_API_KEY`, and
   `LANGSMITH_WORKSPACE_ID` / `LANGSMITH_TENANT_ID`;
5. defaults: the `local` context, no key, no workspace, writable.

A context that names its key source wins over the ecosystem variables on purpose:
with two contexts for two deployments, a `LANGSMITH_API_KEY` exported for some other
tool must not silently replace the key the context was set up with. Read-only is
sticky: any source that asks for it gets it, and `readonly_reason` says which.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_tui.settings.context_headers import HeaderError, describe, resolve_headers
from agent_tui.settings.secrets_store import KeyStore, KeyStoreError
from agent_tui.settings.target import (
    API_KEY_ENV_VARS,
    LOCAL_CONTEXT,
    LocalServer,
    RemoteServer,
    ServerTarget,
)

if TYPE_CHECKING:
    # Only annotations: `agent-tui --url URL` without a config file resolves its context
    # without the config models (pydantic), which would delay the first paint.
    from agent_tui.settings.config import AgentTuiConfig, ContextConfig

CONTEXT_ENV = "AGENT_TUI_CONTEXT"
READONLY_ENV = "AGENT_TUI_READONLY"
WORKSPACE_ENV_VARS = ("LANGSMITH_WORKSPACE_ID", "LANGSMITH_TENANT_ID")

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"", "0", "false", "no", "off"}


class ContextError(Exception):
    """A context cannot be used as configured; the message says what to do."""


@dataclass(frozen=True, slots=True)
class Context:
    """A resolved context: where to connect, with what, and whether changes are allowed."""

    name: str  # "local", a name from the config file, or the URL given with --url
    target: ServerTarget  # holds the key, which never shows in a repr
    key_source: str  # where the key comes from, in words (never the key)
    control_plane_url: str | None = None
    readonly_reason: str | None = None  # why changes are refused; None: they are not
    header_sources: tuple[str, ...] = ()
    """The custom headers sent and where their values come from (never the values)."""

    @classmethod
    def of_target(cls, target: ServerTarget) -> Context:
        """The unnamed context of a bare target (tests, and callers that build one)."""
        if isinstance(target, LocalServer):
            return cls(LOCAL_CONTEXT, target, key_source="none (the local server needs no key)")
        return cls(target.url, target, key_source="X-Api-Key" if target.api_key else "none")

    @property
    def readonly(self) -> bool:
        return self.readonly_reason is not None

    @property
    def is_local(self) -> bool:
        return isinstance(self.target, LocalServer)

    @property
    def workspace_id(self) -> str | None:
        return self.target.workspace_id if isinstance(self.target, RemoteServer) else None


@dataclass(frozen=True, slots=True)
class ContextSummary:
    """One line of `config contexts` and of the context picker: no key, only its source."""

    name: str
    agent_server_url: str | None  # None: the embedded server (its port is picked at start)
    control_plane_url: str | None
    key_source: str
    key_available: bool
    workspace_id: str | None
    readonly: bool
    current: bool = field(default=False)
    headers: tuple[str, ...] = ()
    """Each custom header and its value's source (`context_headers.describe`), no value."""

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "current": self.current,
            "agent_server_url": self.agent_server_url,
            "control_plane_url": self.control_plane_url,
            "key_source": self.key_source,
            "key_available": self.key_available,
            "workspace_id": self.workspace_id,
            "readonly": self.readonly,
            "headers": list(self.headers),
        }


def _env(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def _first_set(names: tuple[str, ...], env: Mapping[str, str]) -> tuple[str, str] | None:
    for name in names:
        value = env.get(name, "").strip()
        if value:
            return name, value
    return None


def env_readonly_reason(environ: Mapping[str, str] | None = None) -> str | None:
    """Why `AGENT_TUI_READONLY` makes the session read-only, or None if it does not."""
    value = _env(environ).get(READONLY_ENV, "").strip().lower()
    if value in _TRUE:
        return f"{READONLY_ENV} is set"
    if value in _FALSE:
        return None
    raise ContextError(
        f"{READONLY_ENV} must be one of 1, true, yes, on (read-only) or 0, false, no, off; "
        f"it is {value!r}"
    )


def context_name(
    config: AgentTuiConfig, flag: str | None = None, environ: Mapping[str, str] | None = None
) -> str:
    """`--context`, else `AGENT_TUI_CONTEXT`, else the file's `current_context`."""
    if flag:
        return flag
    from_env = _env(environ).get(CONTEXT_ENV, "").strip()
    if from_env:
        if from_env not in config.context_names():
            raise ContextError(f"{CONTEXT_ENV}: {_unknown(from_env, config)}")
        return from_env
    return config.current_context


def resolve_context(
    config: AgentTuiConfig,
    name: str | None = None,
    *,
    api_key: str | None = None,
    environ: Mapping[str, str] | None = None,
    keystore: KeyStore | None = None,
) -> Context:
    """The context `name` (default: `context_name(config)`), with its key looked up.

    `api_key` is a key given on the command line; it wins over the context's source.
    Raises `ContextError` when the context is unknown or its key source is empty.
    """
    env = _env(environ)
    name = context_name(config, name, env)
    session_reason = env_readonly_reason(env)
    if name == LOCAL_CONTEXT:
        if api_key:
            raise ContextError("the local context runs without an API key: --api-key needs --url")
        return local_context(env)
    settings = config.contexts.get(name)
    if settings is None:
        raise ContextError(_unknown(name, config))
    key: str | None
    if api_key:
        key, source = api_key, "--api-key flag"
    else:
        key, source = _context_key(name, settings, env, keystore or KeyStore())
    workspace = settings.workspace_id or _workspace_from_env(env)
    context_reason = f"the context '{name}' is read-only" if settings.readonly else None
    try:
        headers = resolve_headers(name, settings.headers, env, keystore or KeyStore())
    except (HeaderError, KeyStoreError) as error:
        raise ContextError(str(error)) from None
    return Context(
        name=name,
        target=RemoteServer(
            settings.agent_server_url, api_key=key, workspace_id=workspace, headers=headers
        ),
        key_source=source,
        control_plane_url=settings.control_plane_url,
        readonly_reason=session_reason or context_reason,
        header_sources=tuple(describe(h, template) for h, template in settings.headers.items()),
    )


def local_context(environ: Mapping[str, str] | None = None) -> Context:
    """The `local` context: the embedded server, which needs no key."""
    return Context(
        name=LOCAL_CONTEXT,
        target=LocalServer(),
        key_source="none (the local server needs no key)",
        readonly_reason=env_readonly_reason(environ),
    )


def url_context(
    url: str, api_key: str | None = None, *, environ: Mapping[str, str] | None = None
) -> Context:
    """The unnamed context of `--url URL [--api-key KEY]`."""
    env = _env(environ)
    if api_key:
        source = "--api-key flag"
    else:
        found = _first_set(API_KEY_ENV_VARS, env)
        api_key, source = (
            (found[1], f"environment variable {found[0]}") if found else (None, "none")
        )
    return Context(
        name=url,
        target=RemoteServer(url, api_key=api_key, workspace_id=_workspace_from_env(env)),
        key_source=source,
        readonly_reason=env_readonly_reason(env),
    )


def summarize_contexts(
    config: AgentTuiConfig,
    *,
    current: str | None = None,
    environ: Mapping[str, str] | None = None,
    keystore: KeyStore | None = None,
) -> list[ContextSummary]:
    """Every context, `local` first; `current` (default: the file's) is marked."""
    env = _env(environ)
    current = config.current_context if current is None else current
    store = keystore or KeyStore()
    rows = [
        ContextSummary(
            name=LOCAL_CONTEXT,
            agent_server_url=None,
            control_plane_url=None,
            key_source="none",
            key_available=True,
            workspace_id=None,
            readonly=False,
            current=current == LOCAL_CONTEXT,
        )
    ]
    for name, settings in config.contexts.items():
        source, available = describe_key_source(name, settings, env, store)
        rows.append(
            ContextSummary(
                name=name,
                agent_server_url=settings.agent_server_url,
                control_plane_url=settings.control_plane_url,
                key_source=source,
                key_available=available,
                workspace_id=settings.workspace_id,
                readonly=settings.readonly,
                current=current == name,
                headers=tuple(describe(h, template) for h, template in settings.headers.items()),
            )
        )
    return rows


def describe_key_source(
    name: str, settings: ContextConfig, env: Mapping[str, str], keystore: KeyStore
) -> tuple[str, bool]:
    """Where the context's key comes from, and whether a key is there now."""
    if settings.api_key_env:
        available = bool(env.get(settings.api_key_env, "").strip())
        state = "" if available else " (not set)"
        return f"env {settings.api_key_env}{state}", available
    if settings.api_key_stored:
        try:
            available = keystore.get(name) is not None
        except KeyStoreError:
            available = False
        return ("stored" if available else "stored (missing)"), available
    found = _first_set(API_KEY_ENV_VARS, env)
    if found:
        return f"env {found[0]} (fallback)", True
    return "none", False


def _context_key(
    name: str, settings: ContextConfig, env: Mapping[str, str], keystore: KeyStore
) -> tuple[str | None, str]:
    if settings.api_key_env:
        value = env.get(settings.api_key_env, "").strip()
        if not value:
            raise ContextError(
                f"the context '{name}' takes its API key from the environment variable "
                f"{settings.api_key_env}, which is not set"
            )
        return value, f"environment variable {settings.api_key_env}"
    if settings.api_key_stored:
        try:
            stored = keystore.get(name)
        except KeyStoreError as error:
            raise ContextError(str(error)) from None
        if stored is None:
            raise ContextError(
                f"the context '{name}' uses a stored API key, but none is stored in "
                f"{keystore.path}: run `agent-tui config set-context {name} --store-api-key`"
            )
        return stored, "stored key"
    found = _first_set(API_KEY_ENV_VARS, env)
    if found:
        return found[1], f"environment variable {found[0]}"
    return None, "none"


def _workspace_from_env(env: Mapping[str, str]) -> str | None:
    found = _first_set(WORKSPACE_ENV_VARS, env)
    return found[1] if found else None


def _unknown(name: str, config: AgentTuiConfig) -> str:
    return f"no context named {name!r} (known: {', '.join(config.context_names())})"
