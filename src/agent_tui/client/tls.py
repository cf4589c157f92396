"""The TLS context every HTTP client of ours is given: read once a process, none for
plain loopback HTTP.

httpx builds a new `ssl.SSLContext` for each client it makes, reading certifi's ~150 CA
certificates: 40-60 ms of CPU every time, for the API clients, the readiness polls of
every server started and the control plane's uploads alike. A context can be shared by
any number of clients (httpcore sets the same ALPN protocols on it for each connection:
we never turn HTTP/2 on).
"""

from __future__ import annotations

import functools
import os
import ssl

import httpx

from agent_tui.client.timeouts import is_loopback


def tls_context(url: str) -> ssl.SSLContext:
    """The context for a client of `url`: for a loopback server over plain HTTP, which
    never meets TLS (no proxy, no redirect followed), one that trusts no certificate and
    costs nothing to make; else httpx's default, made once (per `SSL_CERT_FILE` and
    `SSL_CERT_DIR`, which httpx reads when it makes one)."""
    if url.startswith("http://") and is_loopback(url):
        return _trusting_nothing()
    return _verifying(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


def loopback_tls_context() -> ssl.SSLContext:
    """`tls_context` of a loopback server we started over plain HTTP (its URL not known
    yet, or asked again at each try)."""
    return _trusting_nothing()


@functools.cache
def _trusting_nothing() -> ssl.SSLContext:
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


@functools.cache
def _verifying(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    del cert_file, cert_dir  # the cache's key: httpx reads them from the environment
    return httpx.create_ssl_context()
