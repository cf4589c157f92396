"""Custom headers a context sends to its agent server (a server agent-tui did not start,
behind the project's own auth: ``Authorization: Bearer …``).

Headless. In the config file a header's value is a template whose secret parts are read
when the context is used, never written in the file::

    [contexts.prod.headers]
    Authorization = "Bearer {env:PROD_TOKEN}"   # an environment variable
    X-Org-Token = "{file:~/.config/org-token}"   # a file's content (stripped)
    X-Signed = "{stored}"                        # agent-tui's key store (config set-context
                                                 #   NAME --store-header X-Signed)
    X-Team = "blue"                              # plain text, not a secret

Listings and screens show a header's name and where its value comes from (`describe`),
never the value; resolved values join the log's redactions (`settings.logs.add_secret`)
where the app connects.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
"""An HTTP header name (RFC 9110's token)."""
PLACEHOLDER = re.compile(
    r"\{(?:env:(?P<env>[A-Za-z_][A-Za-z0-9_]*)|file:(?P<file>[^{}]+)|(?P<stored>stored))\}"
)
RESERVED = {
    "host": "set by the URL",
    "content-length": "set by each request",
    "content-type": "set by each request",
    "transfer-encoding": "set by each request",
    "connection": "set by the connection",
    "x-api-key": "use api_key_env or --store-api-key",
    "x-tenant-id": "use workspace_id",
}
"""Names a context may not set, with what to use instead."""

Headers = tuple[tuple[str, str], ...]


class HeaderError(ValueError):
    """A header's name or template is unusable, or its value cannot be read; the message
    names the header and the source, never a value."""


class StoredValues(Protocol):
    def get(self, context: str) -> str | None: ...


def stored_name(context: str, header: str) -> str:
    """The key store's entry for a context's header (a context name has no space)."""
    return f"{context} header {header.lower()}"


def check_header(name: str, template: str) -> None:
    """Raise `HeaderError` unless ``name: template`` can be sent."""
    if not HEADER_NAME.fullmatch(name):
        raise HeaderError(f"{name!r} is not an HTTP header name")
    if (instead := RESERVED.get(name.lower())) is not None:
        raise HeaderError(f"{name} cannot be set as a header ({instead})")
    left = PLACEHOLDER.sub("", template)
    if "{" in left or "}" in left:
        raise HeaderError(f"{name}: a brace that is not {{env:NAME}}, {{file:PATH}} or {{stored}}")
    if any(char in template for char in "\r\n\0"):
        raise HeaderError(f"{name}: the value holds a line break or a NUL character")


def describe(name: str, template: str) -> str:
    """``Authorization (env PROD_TOKEN)``: the header and its value's source, no value."""
    sources = []
    for match in PLACEHOLDER.finditer(template):
        if match["env"]:
            sources.append(f"env {match['env']}")
        elif match["file"]:
            sources.append(f"file {match['file']}")
        else:
            sources.append("stored")
    if not sources:
        sources.append("set in the config file")
    return f"{name} ({', '.join(sources)})"


def resolve_headers(
    context: str,
    headers: Mapping[str, str],
    env: Mapping[str, str],
    store: StoredValues,
) -> Headers:
    """Each header's value, its placeholders read now; `HeaderError` when one cannot be."""
    resolved = []
    for name, template in headers.items():
        check_header(name, template)

        def value(match: re.Match[str], name: str = name) -> str:
            return _read(context, name, match, env, store)

        text = PLACEHOLDER.sub(value, template).strip()
        if any(char in text for char in "\r\n\0"):
            raise HeaderError(f"{name}: its value holds a line break or a NUL character")
        if not text:
            raise HeaderError(f"{name}: its value is empty")
        resolved.append((name, text))
    return tuple(resolved)


def _read(
    context: str, name: str, match: re.Match[str], env: Mapping[str, str], store: StoredValues
) -> str:
    if variable := match["env"]:
        found = env.get(variable, "").strip()
        if not found:
            raise HeaderError(
                f"the context '{context}' takes its {name} header from the environment "
                f"variable {variable}, which is not set"
            )
        return found
    if path := match["file"]:
        file = Path(path.strip()).expanduser()
        try:
            return file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as error:
            reason = getattr(error, "strerror", None) or "not UTF-8 text"
            raise HeaderError(
                f"the context '{context}' takes its {name} header from {file}, which "
                f"cannot be read ({reason})"
            ) from None
    stored = store.get(stored_name(context, name))
    if stored is None:
        raise HeaderError(
            f"the context '{context}' uses a stored {name} header, but none is stored: run "
            f"`agent-tui config set-context {context} --store-header {name}`"
        )
    return stored


def header_secrets(headers: Headers) -> list[str]:
    """What the log redacts of resolved headers: each value, and its credentials without
    the scheme (``abc`` of ``Bearer abc``)."""
    found = []
    for _, value in headers:
        found.append(value)
        _, _, credentials = value.partition(" ")
        if credentials.strip():
            found.append(credentials.strip())
    return found
