"""What the app connects to: a running agent server, or a local one it starts itself.

Headless (no Textual): the CLI builds a target before deciding whether to open the
TUI, and headless subcommands will use the same targets.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

# The ecosystem's variables, in the order langgraph-sdk reads them.
# The name of the embedded server's context: always there, never in the config file.
# Here, beside `LocalServer`, so `contexts` can use it without importing the config
# models (pydantic); `config` re-exports it.
LOCAL_CONTEXT = "local"

API_KEY_ENV_VARS = ("LANGSMITH_API_KEY", "LANGGRAPH_API_KEY", "LANGCHAIN_API_KEY")


@dataclass(frozen=True, slots=True)
class RemoteServer:
    """An agent server that is already running (`langgraph dev`, self-hosted, cloud)."""

    url: str
    api_key: str | None = field(default=None, repr=False)  # never in a repr or a log
    workspace_id: str | None = None  # sent as X-Tenant-Id (org-scoped keys need it)
    # The context's own headers (`settings.context_headers`): values never in a repr.
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)

    @property
    def description(self) -> str:
        return f"Connecting to {self.url}"


@dataclass(frozen=True, slots=True)
class LocalServer:
    """An embedded agent server the app starts for `config_path` and stops on exit."""

    # None: ./langgraph.json if there is one, else the demo graphs, decided when the
    # server starts (finding the demo imports the server supervisor, which is slow).
    config_path: Path | None = None
    data_dir: Path | None = None  # None: the user data folder

    @property
    def api_key(self) -> str | None:
        return None  # the embedded server runs without auth

    @property
    def description(self) -> str:
        if self.config_path is None:
            return "Starting a local agent server"
        return f"Starting a local agent server for {self.config_path}"


ServerTarget = RemoteServer | LocalServer


def api_key_from_env(environ: Mapping[str, str] | None = None) -> str | None:
    """The first non-empty key among `API_KEY_ENV_VARS`."""
    env = os.environ if environ is None else environ
    for name in API_KEY_ENV_VARS:
        value = env.get(name, "").strip()
        if value:
            return value
    return None


def normalize_url(url: str) -> str:
    """`localhost:2024` → `http://localhost:2024`; no trailing slash.

    Raises ValueError, with a sentence a user can act on, for anything that is not an
    http(s) URL with a host and a usable port: checked where a URL comes in (flags,
    config file), so nothing fails later with a library's traceback.
    """
    url = url.strip()
    given = url
    if any(not char.isprintable() or char.isspace() for char in url):
        raise ValueError(f"not a usable URL: {given!r} (it holds spaces or control characters)")
    if "://" not in url:
        scheme, colon, rest = url.partition(":")
        # `host:port` has digits after the colon; `javascript:…` or `mailto:…` do not.
        if colon and rest and _SCHEME.fullmatch(scheme) and not rest[0].isdigit():
            if scheme.lower() in ("http", "https"):
                raise ValueError(f"not a usable URL: {given!r} (write {scheme}://HOST[:PORT])")
            raise ValueError(f"not an http(s) URL: {given!r}")
        url = f"http://{url}"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise ValueError(f"not a usable URL: {given!r} ({_url_problem(error)})") from None
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"not an http(s) URL: {given!r}")
    if not parts.hostname:
        raise ValueError(f"not a usable URL: {given!r} (no host name)")
    if port == 0:
        raise ValueError(f"not a usable URL: {given!r} ({_BAD_PORT})")
    if not parts.hostname.isascii():
        try:
            parts.hostname.encode("idna")
        except UnicodeError:
            raise ValueError(f"not a usable URL: {given!r} (bad host name)") from None
    return url.rstrip("/")


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")
_BAD_PORT = "the port must be a number from 1 to 65535"


def _url_problem(error: ValueError) -> str:
    text = str(error)
    if text.startswith("Port"):
        return _BAD_PORT
    return text[:1].lower() + text[1:]
