"""The one place that turns an exception into a message a user can act on.

Headless (no Textual): the app's notifications, forms' inline errors and headless
subcommands all use `describe_error`. Every text it returns is cleaned of terminal
control sequences, but may contain markup-like text from the server: show it with
`markup=False` or as `Text`.

- 422: one line per field, `loc: msg`.
- 404: what was missing (the server's words, and the resource path asked for).
- 401/403: the auth scheme that was sent (`X-Api-Key`, `Bearer`, or none), and what to do.
- Connection failure / timeout: the URL that could not be reached.
- Anything else: the server's message, or the exception's type and text.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from agent_tui.client.errors import (
    ApiError,
    Conflict,
    ConnectionFailed,
    Forbidden,
    NotFound,
    RequestTimedOut,
    ServerError,
    StreamCut,
    Unauthorized,
    ValidationFailed,
)
from agent_tui.text.sanitize import clean_text


def server_of(url: str) -> str:
    """`scheme://host:port` of a URL (the server, without the path)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else url


def _path_of(url: str) -> str:
    return urlsplit(url).path or url


def _auth_hint(scheme: str) -> str:
    if not scheme or scheme == "none":
        return (
            "No API key was sent. Set LANGSMITH_API_KEY (or pass --api-key), "
            "or use a context that has a key."
        )
    return f"Sent: {scheme}. Check that the key is valid for this server."


def describe_error(error: BaseException, doing: str | None = None) -> tuple[str, str]:
    """A (title, body) pair for `error`; `doing` (e.g. "delete the thread") prefixes the title."""
    title, body = _describe(error)
    if doing:
        title = f"Could not {doing}: {title[0].lower()}{title[1:]}" if title else doing
    return clean_text(title), clean_text(body)


def _describe(error: BaseException) -> tuple[str, str]:
    if isinstance(error, RequestTimedOut):
        return "The server did not answer in time", f"No answer from {server_of(error.url)}"
    if isinstance(error, StreamCut):
        return "The stream was cut", f"{error.message}\n({error.request_line})"
    if isinstance(error, ConnectionFailed):
        target = server_of(error.url) if error.url else error.message
        return "Cannot reach the server", f"Could not connect to {target}\n{error.message}"
    if isinstance(error, ValidationFailed):
        if error.errors:
            lines = [f"• {field.where}: {field.msg}" for field in error.errors]
            return "Invalid request", "\n".join(lines)
        return "Invalid request", error.message
    if isinstance(error, NotFound):
        return "Not found", f"{error.message}\n(asked for {_path_of(error.url)})"
    if isinstance(error, Forbidden):
        body = error.message
        if error.needs_workspace:
            body += "\nThis key is scoped to an organisation: set the workspace (tenant) id, e.g. LANGSMITH_WORKSPACE_ID."
        return "Forbidden", f"{body}\n{_auth_hint(error.auth_scheme)}"
    if isinstance(error, Unauthorized):
        return "Not authorised", f"{error.message}\n{_auth_hint(error.auth_scheme)}"
    if isinstance(error, Conflict):
        return "Conflict", error.message
    if isinstance(error, ServerError):
        return "Server error", f"{error.message}\n({error.request_line})"
    if isinstance(error, ApiError):
        where = f"\n({error.request_line})" if error.request_line else ""
        return error.title, f"{error.message}{where}"
    text = str(error)
    return "Something went wrong", f"{type(error).__name__}: {text}" if text else type(
        error
    ).__name__


def nothing_sent(problems: int) -> str:
    """A form's line when it sent nothing because of `problems` problems in its fields."""
    if problems == 1:
        return "Nothing was sent: fix the problem marked above."
    return f"Nothing was sent: fix the {problems} problems marked above."


def refused_fields(count: int) -> str:
    """A form's line when the server refused `count` of its fields (a 422)."""
    fields = "1 field" if count == 1 else f"{count} fields"
    return f"The server refused {fields}, marked above."
