"""A list page the server answered before a delete landed must not bring the deleted
deployment back: the row stays gone without `r`.

Coming back from the confirmation reloads the list while the delete is on its way: which
the server handles first is a race. The gate below makes the losing order certain."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from agent_tui.tui.modals.confirm import ConfirmScreen
from tests.support.deployments import (
    SIZE,
    SharedPlane,
    control_plane_app,
    create_deployment,
    names_shown,
    open_deployments,
    shared_plane,
    wait_terminal,
)
from tests.support.waiting import WaitFor

pytestmark = pytest.mark.timeout(120)


class ListGate:
    """An HTTP forwarder in front of the control plane that can hold the answers to
    `GET /v2/deployments` (the list), and hold deletes before they reach the server."""

    def __init__(self, upstream: str) -> None:
        self.upstream = httpx.AsyncClient(base_url=upstream, timeout=60)
        self.lists_open = asyncio.Event()
        self.deletes_open = asyncio.Event()
        self.lists_open.set()
        self.deletes_open.set()
        self.held = 0
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def start(self) -> ListGate:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def stop(self) -> None:
        self.lists_open.set()
        self.deletes_open.set()
        if self._server is not None:
            self._server.close()
        await self.upstream.aclose()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
                request_line, *header_lines = head.split("\r\n")
                method, target, _version = request_line.split(" ", 2)
                headers = dict(line.split(": ", 1) for line in header_lines if ": " in line)
                length = int(headers.get("Content-Length") or headers.get("content-length") or 0)
                body = await reader.readexactly(length) if length else b""
                forwarded = {
                    k: v for k, v in headers.items() if k.lower() not in ("host", "content-length")
                }
                if method == "DELETE":
                    await self.deletes_open.wait()
                response = await self.upstream.request(
                    method, target, content=body, headers=forwarded
                )
                if method == "GET" and target.split("?")[0] == "/v2/deployments":
                    if not self.lists_open.is_set():
                        self.held += 1
                    await self.lists_open.wait()
                out = f"HTTP/1.1 {response.status_code} {response.reason_phrase}\r\n"
                for name, value in response.headers.items():
                    if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                        out += f"{name}: {value}\r\n"
                out += f"Content-Length: {len(response.content)}\r\n\r\n"
                writer.write(out.encode("latin-1") + response.content)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@pytest.fixture
def plane(request: pytest.FixtureRequest) -> SharedPlane:
    return shared_plane(request)


async def test_a_page_answered_before_the_delete_does_not_bring_the_row_back(
    plane: SharedPlane,
    agent_server_url: str,
    wait_for: WaitFor,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENT_TUI_CONTROL_PLANE_KEY", plane.api_key)
    with plane.http() as http:
        doomed = create_deployment(http, "stale-page", str(tmp_path / "missing" / "langgraph.json"))
        assert wait_terminal(http, doomed["id"], doomed["latest_revision_id"]) == "BUILD_FAILED"
    gate = await ListGate(plane.url).start()
    app = control_plane_app(agent_server_url, gate.url)
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_deployments(app, pilot, wait_for)
            assert "stale-page" in names_shown(screen)

            # The reload on coming back from the confirmation is answered first (the
            # deployment still listed); that answer arrives after the delete is done.
            gate.lists_open.clear()
            gate.deletes_open.clear()
            assert screen.table.move_to(doomed["id"])
            await pilot.press("ctrl+d")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
            await pilot.press("y")
            await wait_for(pilot, lambda: gate.held == 1, what="the list answer", workers=False)
            gate.deletes_open.set()
            await wait_for(
                pilot, lambda: "stale-page" not in names_shown(screen), what="gone", workers=False
            )

            gate.lists_open.set()
            await wait_for(
                pilot,
                lambda: (
                    not any(w.group == "resource-load" and w.is_running for w in screen.workers)
                ),
                what="the reload to land",
            )
            assert "stale-page" not in names_shown(screen)
            assert screen.table.get_item(doomed["id"]) is None
    finally:
        await gate.stop()
