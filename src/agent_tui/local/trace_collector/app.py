"""The trace collector as an ASGI app: the part of LangSmith's API that the `langsmith`
SDK writes traces to, storing them in a `TraceStore`.

Routes, as the SDK (0.4-0.15) calls them:

- ``GET /info``: what the SDK asks first. It answers with a ``batch_ingest_config``
  (multipart on, the SDK's own batch sizes) and ``instance_flags.zstd_compression_enabled``
  when zstd can be read here, so the SDK compresses its batches;
- ``GET /ok``: agent-tui's own, not the SDK's: it answers, and its process id (the
  collector runs in a process of its own, `process`);
- ``POST /runs/multipart`` (compressed or not), ``POST /runs/batch``, ``POST /runs``,
  ``PATCH /runs/{run_id}``: posts and patches, in any order (`traces.store`).

Every route but ``/info`` and ``/ok`` asks for the collector's key, in ``X-Api-Key`` or
``Authorization: Bearer`` (the SDK sends ``LANGSMITH_API_KEY`` as ``X-Api-Key``): the
port is on a loopback address any local user can reach. Bodies are read, parsed and
stored on a worker thread, so the loop only moves bytes.
"""

from __future__ import annotations

import asyncio
import hmac
import os
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from agent_tui.local.trace_collector import bodies
from agent_tui.traces.store import Operation, TraceStore

COLLECTOR_VERSION = "0.1.0-agent-tui"

BATCH_INGEST_CONFIG: dict[str, Any] = {
    # The SDK reads every one of these keys once the server gives the config at all.
    "use_multipart_endpoint": True,
    "size_limit": 100,
    "size_limit_bytes": 20 << 20,
    "scale_up_nthreads_limit": 16,
    "scale_up_qsize_trigger": 1000,
    "scale_down_nempty_trigger": 4,
}


def zstd_available() -> bool:
    try:
        import zstandard  # noqa: F401
    except ImportError:
        return False
    return True


def info_body(*, compression: bool) -> dict[str, Any]:
    return {
        "version": COLLECTOR_VERSION,
        "batch_ingest_config": BATCH_INGEST_CONFIG,
        "instance_flags": {"zstd_compression_enabled": compression and zstd_available()},
    }


Parse = Callable[[bytes, Request], list[tuple[Operation, dict[str, Any]]]]
RequestListener = Callable[[str], None]
"""Told the kind of each request stored: ``multipart``, ``multipart+zstd``, ``batch``,
``run`` (``POST /runs``), ``patch`` (``PATCH /runs/{id}``)."""


def create_app(
    store: TraceStore,
    api_key: str,
    *,
    compression: bool = True,
    on_request: RequestListener | None = None,
) -> Starlette:
    """The collector of ``store``; ``api_key`` authorises writes. ``compression``: tell
    the SDK it may send zstd (it always may; False makes it send plain multipart)."""
    if not api_key.strip():
        raise ValueError("the collector key is empty: it would let anyone in")
    key = api_key.encode()

    def refusal(request: Request) -> Response | None:
        api_key_header = request.headers.get("x-api-key")
        authorization = request.headers.get("authorization", "")
        bearer = authorization[7:].strip() if authorization[:7].lower() == "bearer " else None
        given = [c.encode() for c in (api_key_header, bearer) if c is not None]
        if any(hmac.compare_digest(c, key) for c in given):
            return None
        if not given:
            detail = "Missing credentials: send the collector's key in the X-Api-Key header"
            return JSONResponse({"detail": detail}, status_code=401)
        detail = "Invalid API key: it does not match the trace collector's key"
        return JSONResponse({"detail": detail}, status_code=403)

    def ingesting(kind: str, parse: Parse) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            refused = refusal(request)
            if refused is not None:
                return refused
            body = await _read_body(request)
            if isinstance(body, Response):
                return body
            try:
                stored = await asyncio.to_thread(_parse_and_store, store, parse, body, request)
            except bodies.BadBody as error:
                status = 413 if error.too_large else 400
                return JSONResponse({"detail": error.detail}, status_code=status)
            if on_request is not None:
                encoding = request.headers.get("content-encoding", "").strip().lower()
                on_request(f"{kind}+{encoding}" if encoding else kind)
            return JSONResponse({"stored": stored}, status_code=202)

        return endpoint

    async def info(request: Request) -> Response:
        return JSONResponse(info_body(compression=compression))

    async def ok(request: Request) -> Response:
        return JSONResponse({"ok": True, "pid": os.getpid()})

    routes = [
        Route("/info", info, methods=["GET"]),
        Route("/ok", ok, methods=["GET"]),
        Route("/runs/multipart", ingesting("multipart", _multipart), methods=["POST"]),
        Route("/runs/batch", ingesting("batch", _batch), methods=["POST"]),
        Route("/runs", ingesting("run", _post), methods=["POST"]),
        Route("/runs/{run_id}", ingesting("patch", _patch), methods=["PATCH"]),
    ]
    return Starlette(routes=routes)


def _parse_and_store(store: TraceStore, parse: Parse, body: bytes, request: Request) -> int:
    body = bodies.decompress(body, request.headers.get("content-encoding", ""))
    return store.ingest(parse(body, request))


def _multipart(body: bytes, request: Request) -> list[tuple[Operation, dict[str, Any]]]:
    return bodies.multipart_operations(body, request.headers.get("content-type", ""))


def _batch(body: bytes, request: Request) -> list[tuple[Operation, dict[str, Any]]]:
    return bodies.batch_operations(body)


def _post(body: bytes, request: Request) -> list[tuple[Operation, dict[str, Any]]]:
    return [("post", bodies.one_run(body))]


def _patch(body: bytes, request: Request) -> list[tuple[Operation, dict[str, Any]]]:
    return [("patch", bodies.one_run(body, str(request.path_params["run_id"])))]


async def _read_body(request: Request) -> bytes | Response:
    declared = request.headers.get("content-length")
    too_large = JSONResponse(
        {"detail": f"the body is over {bodies.MAX_BODY >> 20} MB"}, status_code=413
    )
    if declared is not None and declared.isdigit() and int(declared) > bodies.MAX_BODY:
        return too_large
    chunks = bytearray()
    async for chunk in request.stream():
        chunks += chunk
        if len(chunks) > bodies.MAX_BODY:
            return too_large
    return bytes(chunks)
