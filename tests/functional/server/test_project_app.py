"""A project's own ``http.app`` (routes, middleware, lifespan) keeps working on agent-tui's
local server, with and without ``middleware_order: auth_first``, and the writes the server
answers are still kept through ``kill -9``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.server_process import killed_after
from tests.support.service_processes import Watchdog

APP = """
import contextlib, pathlib
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.responses import JSONResponse
from starlette.routing import Route


class Stamp(BaseHTTPMiddleware):
    async def dispatch(self, request, call_next):
        response = await call_next(request)
        response.headers["x-project"] = "stamped"
        return response


@contextlib.asynccontextmanager
async def lifespan(app):
    pathlib.Path("project-lifespan-ran").write_text("yes")
    yield


async def hello(request):
    return JSONResponse({"hello": "from the project"})


app = Starlette(
    routes=[Route("/hello", hello)], middleware=[Middleware(Stamp)], lifespan=lifespan
)
"""


@pytest.fixture
def watchdog() -> Iterator[Watchdog]:
    watchdog = Watchdog()
    yield watchdog
    watchdog.close()


@pytest.mark.parametrize("order", [None, "auth_first"])
def test_a_project_app_keeps_its_routes_middleware_and_lifespan(
    tmp_path: Path, watchdog: Watchdog, order: str | None
) -> None:
    project, data, log = tmp_path / "project", tmp_path / "data", tmp_path / "server.log"
    project.mkdir()
    data.mkdir()
    (project / "webapp.py").write_text(APP)
    http: dict[str, str] = {"app": "./webapp.py:app"}
    if order:
        http["middleware_order"] = order
    demo = "agent_tui.local.demo.counter:graph"
    config = project / "langgraph.json"
    config.write_text(json.dumps({"graphs": {"counter": demo}, "http": http}))

    with killed_after(data, log, watchdog, config=config) as client:
        hello = client.get("/hello")
        assert hello.json() == {"hello": "from the project"}, log.read_text()[-2000:]
        assert (data / "project-lifespan-ran").read_text() == "yes"
        made = client.post("/threads", json={"metadata": {"kept": True}})
        assert made.status_code == 200
        assert made.headers["x-project"] == "stamped"
        thread_id = made.json()["thread_id"]

    with killed_after(data, log, watchdog, config=config) as client:
        assert client.get(f"/threads/{thread_id}").json()["metadata"] == {"kept": True}
