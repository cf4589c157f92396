"""The transport against a small real HTTP server: retries, auth headers, no secret in logs."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import logging
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import aclosing
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from agent_tui.client import (
    AgentServerClient,
    ApiError,
    ConnectionFailed,
    Credentials,
    RetryPolicy,
    ServerError,
    Transport,
)
from agent_tui.client.transport import NO_RETRY

SECRET = "lsv2_sk_0123456789abcdef0123456789abcdef_0123456789"

FAST_RETRY = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.02)


class FlakyServer(ThreadingHTTPServer):
    """Answers 503 for the first `failures` requests, then 200 with the headers it saw."""

    def __init__(self, failures: int) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.failures = failures
        self.requests: list[tuple[str, str, dict[str, str]]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    server: FlakyServer

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        self.server.requests.append((self.command, self.path, dict(self.headers)))
        body: dict[str, object]
        if len(self.server.requests) <= self.server.failures:
            status, body = 503, {"detail": "try again"}
        else:
            status, body = 200, {"headers": {k.lower(): v for k, v in self.headers.items()}}
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def flaky() -> Iterator[FlakyServer]:
    server = FlakyServer(failures=2)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


async def test_idempotent_requests_are_retried_until_they_succeed(flaky: FlakyServer) -> None:
    # One attempt more than the server's two failures need: a connection a loaded machine
    # fails to open is tried again too, and must not use up the attempts the test counts.
    transport = Transport(flaky.url, retry=RetryPolicy(attempts=4, base_delay=0.01, max_delay=0.02))
    try:
        body = await transport.request_json("GET", "/ok")
    finally:
        await transport.aclose()
    assert "headers" in body
    assert [r[0] for r in flaky.requests] == ["GET", "GET", "GET"]


async def test_a_creating_post_is_never_resent(flaky: FlakyServer) -> None:
    transport = Transport(flaky.url, retry=FAST_RETRY)
    try:
        with pytest.raises(ServerError) as caught:
            await transport.request_json("POST", "/threads/x/runs", json={"input": {}})
    finally:
        await transport.aclose()
    assert len(flaky.requests) == 1
    assert "try again" in str(caught.value)
    assert f"{flaky.url}/threads/x/runs" in str(caught.value)


class FirstConnectTimesOut(httpx.AsyncBaseTransport):
    """The real transport, but the first connection "times out" before anything is sent:
    what a loop stalled past the connect timeout sees (a real server cannot be made to)."""

    def __init__(self) -> None:
        self.real = httpx.AsyncHTTPTransport()
        self.failed = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not self.failed:
            self.failed = True
            raise httpx.ConnectTimeout("timed out before connecting", request=request)
        return await self.real.handle_async_request(request)

    async def aclose(self) -> None:
        await self.real.aclose()


async def test_a_creating_post_that_never_left_is_sent_once_it_can_be() -> None:
    server = FlakyServer(failures=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    transport = Transport(server.url, retry=FAST_RETRY, http_transport=FirstConnectTimesOut())
    try:
        body = await transport.request_json("POST", "/threads", json={})
    finally:
        await transport.aclose()
        server.shutdown()
        server.server_close()
    assert "headers" in body
    assert [r[0] for r in server.requests] == ["POST"]  # made once, not lost, not twice


async def test_a_stalled_process_does_not_fail_a_connect_to_a_loopback_server(
    flaky: FlakyServer,
) -> None:
    """The process is held up (a long garbage collection on a loaded machine) while a
    connection to a server on this machine opens: the kernel has opened it meanwhile, and
    the request goes through, even with a short connect timeout and no retry."""
    flaky.failures = 0
    timeout = httpx.Timeout(connect=0.2, read=30.0, write=30.0, pool=10.0)
    transport = Transport(flaky.url, timeout=timeout, retry=NO_RETRY)
    try:
        sent = asyncio.ensure_future(transport.request_json("POST", "/threads", json={}))
        while not sent.done():  # each turn of the loop held up past the connect timeout
            time.sleep(0.3)  # noqa: ASYNC251 (the stall is the point)
            await asyncio.sleep(0)
        body = sent.result()
    finally:
        await transport.aclose()
    assert "headers" in body
    assert [r[0] for r in flaky.requests] == ["POST"]


async def test_read_only_posts_may_opt_in_to_retries(flaky: FlakyServer) -> None:
    transport = Transport(flaky.url, retry=FAST_RETRY)
    try:
        await transport.request_json("POST", "/threads/search", json={}, idempotent=True)
    finally:
        await transport.aclose()
    assert len(flaky.requests) == 3


async def test_auth_headers_are_sent_and_never_logged(
    flaky: FlakyServer, caplog: pytest.LogCaptureFixture
) -> None:
    flaky.failures = 0
    credentials = Credentials(api_key=SECRET, tenant_id="tenant-1", bearer_token=SECRET + "b")
    transport = Transport(flaky.url, credentials=credentials)
    caplog.set_level(logging.DEBUG)
    try:
        body = await transport.request_json("GET", "/info")
    finally:
        await transport.aclose()
    seen = body["headers"]
    assert seen["x-api-key"] == SECRET
    assert seen["x-tenant-id"] == "tenant-1"
    assert seen["authorization"] == f"Bearer {SECRET}b"
    assert seen["user-agent"].startswith("agent-tui/")
    assert any("/info" in record.getMessage() for record in caplog.records)
    assert SECRET not in caplog.text
    assert SECRET not in repr(transport)


async def test_unreachable_server_error_names_the_url(unused_tcp_port: int) -> None:
    transport = Transport(f"http://127.0.0.1:{unused_tcp_port}", retry=FAST_RETRY)
    try:
        with pytest.raises(ConnectionFailed) as caught:
            await transport.request("GET", "/ok")
    finally:
        await transport.aclose()
    assert f"http://127.0.0.1:{unused_tcp_port}" in str(caught.value)


async def test_a_thread_created_by_its_id_is_sent_again_and_an_unnamed_one_is_not(
    flaky: FlakyServer,
) -> None:
    """`if_exists="do_nothing"` with a thread id makes creating safe to send again (a
    connection lost before the answer); a thread the server names is created once."""
    async with AgentServerClient(flaky.url, retry=FAST_RETRY) as client:
        with pytest.raises(ApiError):  # the stand-in's 200 is no thread
            await client.threads.create(thread_id="t-1", if_exists="do_nothing")
        assert [r[:2] for r in flaky.requests] == [("POST", "/threads")] * 3
        flaky.requests.clear()
        with pytest.raises(ServerError):
            await client.threads.create(metadata={"a": 1})
        assert len(flaky.requests) == 1


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 that no authority signed, and its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert, key_file = folder / "cert.pem", folder / "key.pem"
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert, key_file


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[FlakyServer, str, Path]]:
    """A `FlakyServer` over TLS with a self-signed certificate: it, its URL, the certificate."""
    cert, key = self_signed_certificate(tmp_path)
    server = FlakyServer(failures=0)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, f"https://127.0.0.1:{server.server_address[1]}", cert
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


async def test_a_loopback_server_over_tls_is_still_verified(
    tls_server: tuple[FlakyServer, str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A loopback server over plain HTTP gets no CA certificates (they took 20-60 ms of
    # every connect); one over TLS is verified as any other: a self-signed one is refused.
    server, url, _ = tls_server
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    for _ in range(2):  # the second client is given the TLS context the first one made
        async with AgentServerClient(url, retry=NO_RETRY) as client:
            with pytest.raises(ConnectionFailed, match=r"(?i)certificate"):
                await client.info()
    assert server.requests == []  # nothing was sent to it


async def test_the_ca_file_named_by_ssl_cert_file_is_trusted(
    tls_server: tuple[FlakyServer, str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every client shares one TLS context a process (`client/tls.py`), made once for
    # the CA file the environment names; another file named, another context.
    server, url, cert = tls_server
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    for _ in range(2):
        async with aclosing(Transport(url, retry=NO_RETRY)) as transport:
            answer = await transport.request_json("GET", "/ok")
        assert answer["headers"]["host"] == url.removeprefix("https://")
    monkeypatch.delenv("SSL_CERT_FILE")
    async with aclosing(Transport(url, retry=NO_RETRY)) as transport:
        with pytest.raises(ConnectionFailed, match=r"(?i)certificate"):
            await transport.request_json("GET", "/ok")
    assert len(server.requests) == 2
