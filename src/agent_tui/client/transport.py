"""One transport per base URL: a single `httpx.AsyncClient` with auth, timeouts and retries.

Both API clients (agent server, control plane) sit on this. It never logs a header:
httpx masks only `Authorization` in reprs, and `X-Api-Key` would leak.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Self, TypeVar

import httpx
from pydantic import TypeAdapter, ValidationError

from agent_tui import __version__
from agent_tui.client.body_shape import shape_problem
from agent_tui.client.capabilities import Capabilities
from agent_tui.client.errors import (
    ApiError,
    ConnectionFailed,
    PartialFailure,
    RequestTimedOut,
    UnexpectedBody,
    UnusableUrl,
    error_from_response,
)
from agent_tui.client.json_body import decoded_json, not_json
from agent_tui.client.timeouts import DEFAULT_TIMEOUT, STREAM_TIMEOUT, for_host, is_loopback
from agent_tui.client.tls import tls_context
from agent_tui.text.escaping import escape_json_controls

T = TypeVar("T")

logger = logging.getLogger("agent_tui.http")

USER_AGENT = f"agent-tui/{__version__} httpx/{httpx.__version__}"

# An idle connection is given up before the server's own limit (uvicorn's, and so
# langgraph-api's, is 5 s; httpx's default is the same 5 s): at an equal limit, a request
# sent as the server closes the connection is lost (`ReadError` on a `POST`, which is not
# retried), seen under load when 100 requests went out at once.
LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=2.0)
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
RETRY_STATUSES = frozenset({429, 502, 503, 504})


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Exponential backoff with full jitter: idempotent requests, and any request that was
    never sent (`NOT_SENT`)."""

    attempts: int = 3
    base_delay: float = 0.2
    max_delay: float = 3.0

    def delay(self, attempt: int) -> float:
        return random.uniform(0, min(self.max_delay, self.base_delay * 2**attempt))


NO_RETRY = RetryPolicy(attempts=1)

NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
"""Failures before any byte of the request left: safe to try again, whatever the method
(a loop stalled past the connect timeout — a loaded machine, a long garbage collection —
sees its timer fire before the connection it already has)."""


@dataclass(frozen=True, slots=True)
class Credentials:
    """Any one of these may be set; each authorises a request on its own."""

    api_key: str | None = None
    tenant_id: str | None = None
    bearer_token: str | None = None

    def headers(self) -> dict[str, str]:
        headers = {}
        if self.api_key:
            headers["X-Api-Key"] = self.api_key
        if self.tenant_id:
            headers["X-Tenant-Id"] = self.tenant_id
        if self.bearer_token:
            headers["Authorization"] = f"Bearer {self.bearer_token}"
        return headers

    @property
    def scheme(self) -> str:
        """How we authenticate, in words, for 401/403 messages (never the secret itself)."""
        parts = []
        if self.api_key:
            parts.append("X-Api-Key header")
        if self.bearer_token:
            parts.append("Authorization: Bearer token")
        if self.tenant_id:
            parts.append("X-Tenant-Id workspace header")
        return ", ".join(parts) or "none (no API key configured)"


async def _log_request(request: httpx.Request) -> None:
    request.extensions["agent_tui_start"] = time.perf_counter()


async def _log_response(response: httpx.Response) -> None:
    request = response.request
    started = request.extensions.get("agent_tui_start")
    elapsed = f" {1000 * (time.perf_counter() - started):.0f}ms" if started else ""
    # Method, path and status only: no headers, no query string (it may hold tokens).
    logger.debug("%s %s -> %s%s", request.method, request.url.path, response.status_code, elapsed)


def _decode_body(response: httpx.Response) -> Any:
    """An error answer's body: its JSON, else its text (None when empty)."""
    if not response.content:
        return None
    try:
        return response.json()
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        return response.text


_ADAPTERS: dict[type[Any], TypeAdapter[Any]] = {}


def _adapter(shape: type[T]) -> TypeAdapter[T]:
    adapter = _ADAPTERS.get(shape)
    if adapter is None:
        adapter = _ADAPTERS[shape] = TypeAdapter(shape)
    return adapter


def _body(value: Any, headers: Mapping[str, str] | None) -> dict[str, Any]:
    """`json=value` as httpx sends it, but able to carry every string: a lone surrogate
    (a server may have sent us one, and an import sends it back) and the controls
    `escape_json_controls` writes out go as `\\uXXXX` escapes, the same value for the
    server's parser. (httpx encodes the text strictly: a surrogate raised.)"""
    if value is None:
        return {"headers": headers}
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return {
        "content": escape_json_controls(text).encode("utf-8"),
        "headers": {"Content-Type": "application/json", **(headers or {})},
    }


def _check_base_url(url: str) -> None:
    """`UnusableUrl` now, rather than a library's exception (or, for a port out of
    range, "unhandled errors in a TaskGroup") at the first request. URLs a user types
    are checked where they come in; this covers the ones a server hands out."""
    try:
        port = httpx.URL(url).port
    except httpx.InvalidURL as exc:
        raise UnusableUrl(f"{url!r}: {exc}") from None
    if port is not None and not 0 < port < 65536:
        raise UnusableUrl(f"{url!r}: the port must be a number from 1 to 65535")


def compact(**fields: Any) -> dict[str, Any]:
    """A request body or query from keyword arguments, leaving out the ones not given."""
    return {key: value for key, value in fields.items() if value is not None}


class Transport:
    """Sends requests to one base URL and turns failures into `ApiError`s."""

    def __init__(
        self,
        base_url: str,
        *,
        credentials: Credentials | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: httpx.Timeout = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        http_transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        _check_base_url(self.base_url)
        self.credentials = credentials or Credentials()
        self.retry = retry or RetryPolicy()
        self.capabilities = Capabilities()  # what this server turned out not to offer
        self._loopback = is_loopback(self.base_url)
        self._client = httpx.AsyncClient(
            base_url=self.base_url,
            # Proxy settings from the environment must not catch a loopback server.
            trust_env=not self._loopback,
            headers={"User-Agent": USER_AGENT, **self.credentials.headers(), **(headers or {})},
            timeout=for_host(timeout, self._loopback),
            limits=LIMITS,
            verify=tls_context(self.base_url),
            transport=http_transport,
            event_hooks={"request": [_log_request], "response": [_log_response, self._answered]},
        )
        # Called after any response (whatever its status): the server is reachable. The
        # app uses it to clear an "offline" header as soon as anything gets through.
        self.response_listeners: list[Callable[[], None]] = []
        # Called with the URL when a request could not reach the server or got no answer
        # in time: the app marks the connection offline whichever screen asked.
        self.failure_listeners: list[Callable[[str], None]] = []

    def __repr__(self) -> str:
        return f"Transport({self.base_url!r}, auth={self.credentials.scheme!r})"

    async def _answered(self, response: httpx.Response) -> None:
        for listener in self.response_listeners:
            listener()

    @property
    def is_closed(self) -> bool:
        return self._client.is_closed

    async def aclose(self) -> None:
        await self._client.aclose()

    def url_for(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def network_error(self, method: str, path: str, exc: httpx.HTTPError) -> ApiError:
        """The error for a network failure, naming the URL (also used mid-stream)."""
        url = self.url_for(path)
        for listener in self.failure_listeners:
            listener(url)
        if isinstance(exc, httpx.TimeoutException):
            return RequestTimedOut(
                f"no answer from {self.base_url} ({type(exc).__name__})", method=method, url=url
            )
        reason = str(exc) or type(exc).__name__
        return ConnectionFailed(f"{self.base_url}: {reason}", method=method, url=url)

    def invalid_url(
        self, method: str, path: str, exc: httpx.InvalidURL | UnicodeEncodeError
    ) -> ApiError:
        """An id with a control character (`agent-tui history $'\\e…'`), or a lone
        surrogate (an id a server sent as `"\\ud800"`), makes no URL: an error like any
        other, not an exception that is no `ApiError`."""
        if isinstance(exc, UnicodeEncodeError):
            reason = f"it holds a character no URL can carry ({exc.reason})"
            return UnusableUrl(f"{path!r}: {reason}", method=method, url=self.base_url)
        return UnusableUrl(f"{path!r}: {exc}", method=method, url=self.base_url)

    def _status_error(self, method: str, path: str, response: httpx.Response) -> ApiError:
        return error_from_response(
            status_code=response.status_code,
            reason=response.reason_phrase,
            body=_decode_body(response),
            method=method,
            url=self.url_for(path),
            auth_scheme=self.credentials.scheme,
        )

    async def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: httpx.Timeout | float | None = None,
        idempotent: bool | None = None,
    ) -> httpx.Response:
        """Send one request; retry only when re-sending it cannot do anything twice.

        `idempotent` defaults from the method; read-only POSTs (search, history) pass True.
        A POST that creates something is never re-sent once it was sent (`NOT_SENT`: a
        connection that never opened is tried again).
        """
        method = method.upper()
        retry = idempotent if idempotent is not None else method in IDEMPOTENT_METHODS
        attempts = self.retry.attempts
        extra: dict[str, Any] = {}
        if timeout is not None:
            extra["timeout"] = for_host(timeout, self._loopback)
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                response = await self._client.request(
                    method, path, params=params, **_body(json, headers), **extra
                )
            except (httpx.InvalidURL, UnicodeEncodeError) as exc:
                raise self.invalid_url(method, path, exc) from exc
            except httpx.HTTPError as exc:
                # A server that took the request and said nothing for a whole read
                # timeout would only make the user wait as long again per retry (90 s
                # before the header said offline): a connection that never opened is
                # worth another try, a silent answer is not. A request that was never
                # sent (no connection) is tried again whatever it does: a POST too.
                if (
                    last
                    or not (retry or isinstance(exc, NOT_SENT))
                    or isinstance(exc, httpx.ReadTimeout | httpx.WriteTimeout)
                ):
                    raise self.network_error(method, path, exc) from exc
            else:
                if response.is_success:
                    return response
                if last or not retry or response.status_code not in RETRY_STATUSES:
                    raise self._status_error(method, path, response)
            await asyncio.sleep(self.retry.delay(attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    def unexpected_body(self, method: str, path: str, problem: str) -> UnexpectedBody:
        return UnexpectedBody(problem, method=method.upper(), url=self.url_for(path))

    async def request_json(self, method: str, path: str, **kwargs: Any) -> Any:
        """Send a request and return its decoded JSON body (None for an empty body).

        A body that is not JSON, or nested too deep to decode, is an `UnexpectedBody`.
        """
        response = await self.request(method, path, **kwargs)
        return self._json_body(method, path, response)

    async def request_as(
        self, shape: type[T] | TypeAdapter[T], method: str, path: str, **kwargs: Any
    ) -> T:
        """Send a request and return its body as `shape` (a model, or e.g. `list[Thread]`).

        Whatever is wrong with a success body — not JSON, empty, too deep, another
        shape — is an `UnexpectedBody` naming the request and the problem.
        """
        response = await self.request(method, path, **kwargs)
        if not response.content:
            raise self.unexpected_body(method, path, "the body is empty")
        return self.validated(shape, self._json_body(method, path, response), method, path)

    def validated(self, shape: type[T] | TypeAdapter[T], data: Any, method: str, path: str) -> T:
        """`data` (a decoded body of `method path`) as `shape`, or an `UnexpectedBody`."""
        adapter: TypeAdapter[T] = shape if isinstance(shape, TypeAdapter) else _adapter(shape)
        try:
            return adapter.validate_python(data)
        except ValidationError as error:
            raise self.unexpected_body(method, path, shape_problem(error)) from None
        except RecursionError:
            raise self.unexpected_body(method, path, "nested deeper than can be read") from None

    def _json_body(self, method: str, path: str, response: httpx.Response) -> Any:
        if not response.content:
            return None
        try:
            body = decoded_json(response)
        except RecursionError:
            raise self.unexpected_body(
                method, path, "JSON nested deeper than can be read"
            ) from None
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise self.unexpected_body(method, path, not_json(response, error)) from None
        if isinstance(body, dict) and set(body) == {"detail"}:
            raise PartialFailure(
                str(body["detail"]),
                method=method.upper(),
                url=self.url_for(path),
                status_code=response.status_code,
                detail=body["detail"],
            )
        return body

    @asynccontextmanager
    async def stream(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: httpx.Timeout = STREAM_TIMEOUT,
    ) -> AsyncIterator[httpx.Response]:
        """Open a streamed response (never retried); an error status raises before the body."""
        method = method.upper()
        try:
            request = self._client.build_request(
                method,
                path,
                params=params,
                timeout=for_host(timeout, self._loopback),
                **_body(json, headers),
            )
        except (httpx.InvalidURL, UnicodeEncodeError) as exc:
            raise self.invalid_url(method, path, exc) from exc
        try:
            response = await self._client.send(request, stream=True)
        except httpx.HTTPError as exc:
            raise self.network_error(method, path, exc) from exc
        try:
            if not response.is_success:
                await response.aread()
                raise self._status_error(method, path, response)
            yield response
        finally:
            await response.aclose()


class ApiClient:
    """What both API clients share: one transport, `async with`, and a repr without secrets."""

    def __init__(
        self,
        base_url: str,
        *,
        credentials: Credentials,
        headers: Mapping[str, str] | None = None,
        retry: RetryPolicy | None = None,
        http_transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.transport = Transport(
            base_url,
            credentials=credentials,
            headers=headers,
            retry=retry,
            http_transport=http_transport,
        )

    @property
    def base_url(self) -> str:
        return self.transport.base_url

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_url!r})"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.transport.aclose()
