"""A deployment's secret values never come back from the local control plane: every
answer holds the mask instead (the spec requires the field), its revision logs and the
deploy logs mask them too (even when a graph prints one), yet the deployed server still
has them in its environment. A client that sends the mask back (it edits what it read)
keeps the stored value. Every `/v2` answer is checked against the spec.

The assertions never print a value: they say whether one was found.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_tui.local.control_plane import LocalControlPlane
from tests.support.control_plane import checked_client, checked_http, follow

MASK = "********"
VALUE = "first-secret-value-7c41e2"
OTHER_VALUE = "second-secret-value-93ad0f"
MISSING_CONFIG = {"langgraph_config_path": "/nonexistent/langgraph.json"}

PRINTING_GRAPH = """
import hashlib
import os
from typing import TypedDict

from langgraph.graph import END, START, StateGraph

print("the token is", os.environ.get("ECHO_TOKEN"), flush=True)


class State(TypedDict, total=False):
    digest: str


def read(state: State) -> State:
    token = os.environ.get("ECHO_TOKEN", "")
    return {"digest": hashlib.sha256(token.encode()).hexdigest()}


builder = StateGraph(State)
builder.add_node("read", read)
builder.add_edge(START, "read")
builder.add_edge("read", END)
graph = builder.compile()
"""


@pytest.fixture(scope="module")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalControlPlane]:
    with LocalControlPlane(tmp_path_factory.mktemp("cp-secret-values")) as plane:
        yield plane


@pytest.fixture
async def http(control_plane: LocalControlPlane) -> AsyncIterator[httpx.AsyncClient]:
    async with checked_http(control_plane.url, control_plane.api_key) as client:
        yield client


def holds_a_value(response: httpx.Response) -> bool:
    return VALUE in response.text or OTHER_VALUE in response.text


def masked(document: dict[str, Any]) -> dict[str, str]:
    return {secret["name"]: secret["value"] for secret in document["secrets"]}


async def test_every_deployment_answer_masks_the_secret_values(http: httpx.AsyncClient) -> None:
    created = await http.post(
        "/v2/deployments",
        json={
            "name": "masked",
            "source": "internal_source",
            "source_config": {},
            "source_revision_config": MISSING_CONFIG,
            "secrets": [{"name": "OPENAI_API_KEY", "value": VALUE}],
        },
    )
    assert created.status_code == 201, created.text
    deployment = created.json()
    did, first = deployment["id"], deployment["latest_revision_id"]
    assert masked(deployment) == {"OPENAI_API_KEY": MASK}
    answers = [created]

    answers.append(fetched := await http.get(f"/v2/deployments/{did}"))
    assert masked(fetched.json()) == {"OPENAI_API_KEY": MASK}
    answers.append(listed := await http.get("/v2/deployments", params={"name_contains": "mask"}))
    assert [masked(d) for d in listed.json()["resources"]] == [{"OPENAI_API_KEY": MASK}]

    secrets = [*fetched.json()["secrets"], {"name": "TAVILY_API_KEY", "value": OTHER_VALUE}]
    answers.append(patched := await http.patch(f"/v2/deployments/{did}", json={"secrets": secrets}))
    assert patched.status_code == 200, patched.text
    assert masked(patched.json()) == {"OPENAI_API_KEY": MASK, "TAVILY_API_KEY": MASK}

    redeploy = f"/v2/deployments/{did}/revisions/{first}/redeploy"
    answers.append(redeployed := await http.post(redeploy))
    assert redeployed.status_code == 200, redeployed.text
    assert masked(redeployed.json()) == {"OPENAI_API_KEY": MASK}

    answers.append(await http.get(f"/v2/deployments/{did}/revisions"))
    answers.append(await http.get(f"/v2/deployments/{did}/revisions/{first}"))
    answers.append(await http.get(f"/v2/deployments/{did}/revisions/{first}/logs"))
    assert all(answer.status_code < 300 for answer in answers)
    assert not any(holds_a_value(answer) for answer in answers)


async def test_the_mask_of_a_name_with_no_stored_value_is_refused(
    http: httpx.AsyncClient,
) -> None:
    body = {
        "name": "mask-for-nothing",
        "source": "internal_source",
        "source_config": {},
        "source_revision_config": MISSING_CONFIG,
        "secrets": [{"name": "OPENAI_API_KEY", "value": MASK}],
    }
    refused = await http.post("/v2/deployments", json=body)
    assert refused.status_code == 422
    [error] = refused.json()["detail"]
    assert error["loc"] == ["body", "secrets", 0, "value"]
    assert "OPENAI_API_KEY" in error["msg"] and "mask" in error["msg"]


def printing_project(folder: Path) -> Path:
    folder.mkdir()
    (folder / "graph.py").write_text(PRINTING_GRAPH)
    config = folder / "langgraph.json"
    config.write_text(json.dumps({"graphs": {"echo": "./graph.py:graph"}}))
    return config


def digest_of_run(url: str) -> str:
    with httpx.Client(base_url=url, trust_env=False, timeout=30) as agent:
        ran = agent.post("/runs/wait", json={"assistant_id": "echo", "input": {}})
    assert ran.status_code == 200, ran.text
    return str(ran.json()["digest"])


def raw_logs(plane: LocalControlPlane, path: str) -> list[str]:
    """Messages of a `/v1` log endpoint (not in the spec: read without the checks)."""
    headers = {"X-Api-Key": plane.api_key}
    with httpx.Client(base_url=plane.url, headers=headers, trust_env=False) as raw:
        answer = raw.post(path, json={"order": "asc", "limit": 1000})
    assert answer.status_code == 200, answer.text
    return [entry["message"] for entry in answer.json()["logs"]]


@pytest.mark.timeout(240)
async def test_the_server_gets_the_value_while_logs_and_answers_show_the_mask(
    control_plane: LocalControlPlane, tmp_path: Path
) -> None:
    config = printing_project(tmp_path / "project")
    expected = hashlib.sha256(VALUE.encode()).hexdigest()
    async with checked_client(control_plane.url, api_key=control_plane.api_key) as client:
        created = await client.deployments.create(
            "printing",
            source_revision_config={"langgraph_config_path": str(config)},
            secrets=[{"name": "ECHO_TOKEN", "value": VALUE}],
        )
        did = created.id
        statuses = await follow(client, did, created.latest_revision_id, interval=0.2, timeout=120)
        assert statuses[-1] == "DEPLOYED", statuses
        deployed = await client.deployments.get(did)
        assert deployed.url is not None
        assert digest_of_run(deployed.url) == expected  # the server has the value

        assert created.latest_revision_id is not None
        log = await client.revisions.logs(did, created.latest_revision_id)
        assert f"the token is {MASK}" in log.lines  # the graph printed it while building
        assert not any(VALUE in line for line in log.lines)
        build = raw_logs(
            control_plane, f"/v1/projects/{did}/revisions/{log.revision_id}/build_logs"
        )
        assert build and not any(VALUE in line for line in build)
        served = raw_logs(control_plane, f"/v1/projects/{did}/deploy_logs")
        assert any(f"the token is {MASK}" in line for line in served)  # and while serving
        assert not any(VALUE in line for line in served)

        # What a client read, sent back: the mask keeps the value stored for the name.
        read_back = [s.raw() for s in deployed.secrets]
        assert read_back == [{"name": "ECHO_TOKEN", "value": MASK}]
        patched = await client.deployments.patch(did, secrets=read_back)
        statuses = await follow(client, did, patched.latest_revision_id, interval=0.2, timeout=120)
        assert statuses[-1] == "DEPLOYED", statuses
        again = await client.deployments.get(did)
        assert again.active_revision_id == patched.latest_revision_id and again.url is not None
        assert digest_of_run(again.url) == expected
        await client.deployments.delete(did)
