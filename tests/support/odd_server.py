"""A loopback HTTP server that answers every request with the body a test sets: for the
faults a real agent server cannot produce on demand (an object where a list belongs, a
lone surrogate, JSON nested 10,000 deep, an empty 200, a stream cut mid-event).

    with OddServer() as server:
        server.answer = Answer(b'{"odd": true}')
        main(["threads", "list", "--url", server.url])

It runs in a thread of its own, so the command under test can run in-process (its own
event loop) against a real socket. `server.answer` is an `Answer` or a function of the
`Request` (method, path, query, body); `server.requests` records each request.
`Answer(..., cut=True)` sends the body and closes the connection without saying how long
the body was, as a proxy that drops a stream does; `short_by=n` promises `n`
bytes more than it sends (the client sees the connection break mid-body).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


@dataclass(frozen=True)
class Answer:
    body: bytes = b""
    status: int = 200
    content_type: str = "application/json"
    short_by: int = 0  # Content-Length promises this many bytes more than are sent
    cut: bool = False  # no Content-Length: the body ends where the connection closes


@dataclass(frozen=True)
class Request:
    method: str
    path: str  # without the query
    query: str
    body: bytes
    host: str = ""  # the Host header: where a URL in an answer must point to come back


Answering = Answer | Callable[[Request], Answer]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        path, _, query = self.path.partition("?")
        request = Request(self.command, path, query, body, self.headers.get("Host", ""))
        self.server.odd.requests.append(request)
        answering = self.server.odd.answer
        answer = answering if isinstance(answering, Answer) else answering(request)
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        if answer.cut:
            self.send_header("Connection", "close")
            self.close_connection = True
        else:
            self.send_header("Content-Length", str(len(answer.body) + answer.short_by))
        if answer.short_by:
            self.close_connection = True
        self.end_headers()
        self.wfile.write(answer.body)
        self.wfile.flush()

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: a test reads `requests`, not the server's log."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    odd: OddServer


class OddServer:
    def __init__(self) -> None:
        self.answer: Answering = Answer()
        self.requests: list[Request] = []
        self._http = _Server(("127.0.0.1", 0), _Handler)
        self._http.odd = self
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join()
