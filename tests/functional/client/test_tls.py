"""A server over TLS: its certificate is checked, against the CA file the user names.

Every client shares one TLS context a process (`agent_tui.client.tls`) instead of
reading the CA certificates again for each: what must not change is that an untrusted
certificate is refused and `SSL_CERT_FILE` makes one trusted.
"""

from __future__ import annotations

import datetime
import http.server
import ipaddress
import ssl
import threading
from collections.abc import Iterator
from contextlib import aclosing
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from agent_tui.client import ConnectionFailed, Transport


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 signed by its own key: (certificate, key) files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "agent-tui test server")])
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
    cert_file, key_file = folder / "server.pem", folder / "server.key"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


class _Ok(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b'{"ok": true}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`https://127.0.0.1:PORT` answering `GET /ok`, and its certificate's file."""
    cert_file, key_file = self_signed(tmp_path)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Ok)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}", cert_file
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


async def test_a_certificate_nobody_vouches_for_is_refused(
    tls_server: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, _ = tls_server
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    for _ in range(2):  # the second client gets the context the first one made
        async with aclosing(Transport(url)) as transport:
            with pytest.raises(ConnectionFailed):
                await transport.request_json("GET", "/ok")


async def test_the_ca_file_named_by_ssl_cert_file_is_trusted(
    tls_server: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, cert_file = tls_server
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))
    for _ in range(2):
        async with aclosing(Transport(url)) as transport:
            assert await transport.request_json("GET", "/ok") == {"ok": True}
    monkeypatch.delenv("SSL_CERT_FILE")
    async with aclosing(Transport(url)) as transport:  # named no more: refused again
        with pytest.raises(ConnectionFailed):
            await transport.request_json("GET", "/ok")
