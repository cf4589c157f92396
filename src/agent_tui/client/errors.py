"""One error hierarchy for both APIs (agent server and control plane).

Every error knows the request it came from (method and URL) and the server's own
words (`detail`), and `str(error)` is a sentence a user can act on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


@dataclass(frozen=True, slots=True)
class FieldError:
    """One entry of a FastAPI-style 422 body: where, what, and the error type."""

    loc: tuple[str | int, ...]
    msg: str
    type: str = ""

    @property
    def where(self) -> str:
        return ".".join(str(part) for part in self.loc) or "request"

    def __str__(self) -> str:
        return f"{self.where}: {self.msg}"


class ApiError(Exception):
    """Base of every error the clients raise."""

    status_code: int | None = None
    title = "Request failed"

    def __init__(
        self,
        message: str,
        *,
        method: str = "",
        url: str = "",
        status_code: int | None = None,
        detail: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.method = method
        self.url = url
        if status_code is not None:
            self.status_code = status_code
        self.detail = detail

    @property
    def request_line(self) -> str:
        return f"{self.method} {self.url}".strip()

    def __str__(self) -> str:
        where = f" ({self.request_line})" if self.request_line else ""
        return f"{self.title}: {self.message}{where}"


class ConnectionFailed(ApiError):
    """The server could not be reached, or the connection broke mid-request."""

    title = "Cannot reach the server"


class RequestTimedOut(ConnectionFailed):
    title = "The server did not answer in time"


class StreamCut(ConnectionFailed):
    """The server answered, then its stream broke off in the middle of an event (the
    connection broke, or closed with an event half sent). Whether the server is still
    up is for whoever follows the stream to find out (it rejoins)."""

    title = "The stream was cut"


class UnusableUrl(ApiError):
    """A URL no request can be sent to (a port out of range, a control character)."""

    title = "Not a usable URL"


class HttpStatusError(ApiError):
    """The server answered with an error status."""


class BadRequest(HttpStatusError):
    status_code = 400
    title = "Bad request"


class Unauthorized(HttpStatusError):
    """401: the credentials are missing or wrong. Names the auth scheme we sent."""

    status_code = 401
    title = "Not authorised"

    def __init__(self, message: str, *, auth_scheme: str = "none", **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.auth_scheme = auth_scheme

    def __str__(self) -> str:
        return f"{super().__str__()} [auth sent: {self.auth_scheme}]"


class Forbidden(Unauthorized):
    status_code = 403
    title = "Forbidden"

    @property
    def needs_workspace(self) -> bool:
        return "requires workspace specification" in self.message

    def __str__(self) -> str:
        text = super().__str__()
        if self.needs_workspace:
            text += (
                " — this key is scoped to an organisation: set the workspace (tenant) id,"
                " e.g. LANGSMITH_WORKSPACE_ID"
            )
        return text


class NotFound(HttpStatusError):
    status_code = 404
    title = "Not found"


class MethodNotAllowed(HttpStatusError):
    """405: the server has the path but not this method (a route it does not offer)."""

    status_code = 405
    title = "Not offered"


class Conflict(HttpStatusError):
    status_code = 409
    title = "Conflict"


class ValidationFailed(HttpStatusError):
    """422: carries each `loc`/`msg`/`type`, or the plain string the agent server sends."""

    status_code = 422
    title = "Invalid request"

    def __init__(self, message: str, *, errors: Sequence[FieldError] = (), **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.errors = list(errors)

    def __str__(self) -> str:
        where = f" ({self.request_line})" if self.request_line else ""
        if not self.errors:
            return f"{self.title}: {self.message}{where}"
        lines = "\n".join(f"  • {error}" for error in self.errors)
        return f"{self.title}{where}:\n{lines}"


class PartialFailure(HttpStatusError):
    """A success status whose body is an error (`{"detail": …}`).

    langgraph-api answers `POST /threads` with supersteps this way when the thread was
    created but its state could not be built (e.g. no `graph_id` in its metadata).
    """

    title = "The server reported a problem"


class UnexpectedBody(ApiError):
    """A success status whose body is not what the API describes: not JSON, empty where
    something was due, nested deeper than can be read, or of another shape (an object
    where a list belongs). `problem` says which, `str()` names the request:
    `GET /threads/search answered a body that is not what the API describes (expected a
    list, got an object)`."""

    title = "Unexpected answer from the server"

    def __init__(self, problem: str, *, method: str, url: str, **kwargs: Any) -> None:
        path = urlsplit(url).path or url
        super().__init__(
            f"{method} {path} answered a body that is not what the API describes ({problem})",
            method=method,
            url=url,
            **kwargs,
        )
        self.problem = problem

    def __str__(self) -> str:
        return self.message


class ServerError(HttpStatusError):
    title = "Server error"


class UnexpectedStatus(HttpStatusError):
    title = "Unexpected answer"


_BY_STATUS: dict[int, type[HttpStatusError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    405: MethodNotAllowed,
    409: Conflict,
    422: ValidationFailed,
}


def _field_errors(detail: Any) -> list[FieldError]:
    if not isinstance(detail, list):
        return []
    errors = []
    for item in detail:
        if isinstance(item, dict):
            loc = item.get("loc") or ()
            errors.append(
                FieldError(
                    loc=tuple(p if isinstance(p, int) else str(p) for p in loc),
                    msg=str(item.get("msg", "")),
                    type=str(item.get("type", "")),
                )
            )
        else:
            errors.append(FieldError(loc=(), msg=str(item)))
    return errors


def _detail_text(detail: Any, fallback: str) -> str:
    if isinstance(detail, str) and detail:
        return detail
    if isinstance(detail, list) and detail:
        return "; ".join(str(e) for e in _field_errors(detail))
    if isinstance(detail, dict) and detail:
        return str(detail.get("message") or detail)
    return fallback


def error_from_response(
    *,
    status_code: int,
    reason: str,
    body: Any,
    method: str,
    url: str,
    auth_scheme: str = "none",
) -> HttpStatusError:
    """Build the right error for an HTTP error answer.

    `body` is the decoded JSON body when there was one, else the text (may be empty).
    FastAPI bodies are `{"detail": ...}`; some servers send `{"message": ...}` or `{"error": ...}`.
    """
    if isinstance(body, dict):
        detail = body.get("detail", body.get("message", body.get("error", body)))
    else:
        detail = body
    fallback = f"{status_code} {reason}".strip()
    message = _detail_text(detail, fallback)
    if isinstance(body, str):
        # A page of text (a proxy's HTML): one line, however it was laid out.
        message = " ".join(message.split()) or fallback
    common: dict[str, Any] = {
        "method": method,
        "url": url,
        "status_code": status_code,
        "detail": detail,
    }
    cls = _BY_STATUS.get(status_code)
    if cls is ValidationFailed:
        return ValidationFailed(message, errors=_field_errors(detail), **common)
    if cls is not None and issubclass(cls, Unauthorized):
        return cls(message, auth_scheme=auth_scheme, **common)
    if cls is not None:
        return cls(message, **common)
    if status_code >= 500:
        return ServerError(f"{fallback}: {message}" if message != fallback else message, **common)
    return UnexpectedStatus(message, **common)
