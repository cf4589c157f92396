"""agent-tui's local server on the oldest and the newest langgraph-api release it
supports (`agent_tui.server.supported`), each in an environment of its own
(`tests.support.api_envs`): started as the app starts it, the demo chat streams its reply
and ``/info`` names the release; every private name it touches (`agent_tui.server.upstream`)
is there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from agent_tui.local import DEMO_CONFIG, EmbeddedAgentServer
from tests.support.api_envs import ApiEnv, api_env

__all__ = ["api_env"]

CHAT = {"messages": [{"role": "user", "content": "weather in Paris"}]}


def sse_events(stream: httpx.Response) -> list[tuple[str, Any]]:
    """(event, data) of each server-sent event of a run's stream, in order."""
    events: list[tuple[str, Any]] = []
    name = ""
    for line in stream.iter_lines():
        if line.startswith("event:"):
            name = line.removeprefix("event:").strip()
        elif line.startswith("data:"):
            events.append((name, json.loads(line.removeprefix("data:"))))
    return events


def test_the_demo_chat_streams_its_reply_and_info_names_the_release(
    tmp_path: Path, api_env: ApiEnv
) -> None:
    server = EmbeddedAgentServer(
        DEMO_CONFIG,
        data_dir=tmp_path / "data",
        log_file=tmp_path / "server.log",
        python=str(api_env.python),
    )
    with server, httpx.Client(base_url=server.url, trust_env=False, timeout=60) as client:
        info = client.get("/info").json()
        assert info["version"] == api_env.release.api
        assert info["langgraph_py_version"]

        thread = client.post("/threads", json={}).json()["thread_id"]
        body = {"assistant_id": "chat", "input": CHAT, "stream_mode": ["messages-tuple", "values"]}
        with client.stream("POST", f"/threads/{thread}/runs/stream", json=body) as stream:
            assert stream.status_code == 200
            events = sse_events(stream)
        names = [name for name, _ in events]
        assert "error" not in names, events
        assert names.count("messages") > 1, "the reply was not streamed"
        reply = [data for name, data in events if name == "values"][-1]["messages"][-1]
        assert reply["type"] == "ai"
        assert "Paris" in reply["content"], reply


CHECK_UPSTREAM = """
import inspect, json, os
from langgraph_api import cli

# What run_server puts in the environment before langgraph-api's config is imported: the
# in-memory runtime's defaults, as its own signature gives them.
defaults = inspect.signature(cli.run_server).parameters
os.environ["REDIS_URI"] = defaults["__redis_uri__"].default
os.environ["DATABASE_URI"] = defaults["__database_uri__"].default
os.environ["MIGRATIONS_PATH"] = defaults["__migrations_path__"].default
os.environ["LANGGRAPH_RUNTIME_EDITION"] = defaults["runtime_edition"].default

from agent_tui.server import upstream

print(json.dumps([upstream.missing(), upstream.missing_after_start(), upstream.graph_files_shareable()]))
"""


def test_every_private_name_the_server_touches_is_there(api_env: ApiEnv) -> None:
    missing, missing_after_start, shareable = json.loads(api_env.run(CHECK_UPSTREAM))
    assert (missing, missing_after_start, shareable) == ([], [], True)
