"""Request bodies that once broke the local control plane, over HTTP, answers checked
against the spec.

A body with `NaN`, a lone surrogate, deep nesting or a NUL byte in a path answered 500
and was stored, after which every `GET /v2/deployments` was 500: the app could no longer
list or delete anything. Each must be a 422 that says what is wrong, with nothing stored.
A `langgraph_config_path` that is not a regular file (a device, a FIFO, a folder, a huge
file) is refused the same way.
"""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_tui.local.control_plane import LocalControlPlane
from tests.support.control_plane import checked_http

MISSING_CONFIG = "/nonexistent/langgraph.json"


@pytest.fixture(scope="module")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalControlPlane]:
    with LocalControlPlane(tmp_path_factory.mktemp("cp-hostile")) as plane:
        yield plane


@pytest.fixture
async def http(control_plane: LocalControlPlane) -> AsyncIterator[httpx.AsyncClient]:
    """Raw requests, every answer validated against the spec."""
    async with checked_http(control_plane.url, control_plane.api_key) as client:
        yield client


def create_body(name: str, **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": name,
        "source": "internal_source",
        "source_config": {},
        "source_revision_config": {"langgraph_config_path": MISSING_CONFIG},
        "secrets": [{"name": "TOKEN", "value": "fine"}],
    }
    body.update(changes)
    return body


async def existing(http: httpx.AsyncClient) -> dict[str, Any]:
    response = await http.post("/v2/deployments", json=create_body(f"ok-{uuid.uuid4().hex[:8]}"))
    assert response.status_code == 201
    return dict(response.json())


async def assert_listing_works(http: httpx.AsyncClient, name: str) -> None:
    """The list answers (and so can be used to delete), without the refused deployment."""
    response = await http.get("/v2/deployments", params={"limit": 100})
    assert response.status_code == 200
    assert name not in [d["name"] for d in response.json()["resources"]]


# Each: what to put in a body (raw JSON text, as a hostile client sends it), and words the
# 422 must contain.
HOSTILE: dict[str, tuple[Callable[[str], str], str]] = {
    "NaN in secret_references": (
        lambda body: body.replace(
            '"secret_references": null',
            '"secret_references": [{"name": NaN, "secret_name": "s", "secret_key": "k"}]',
        ),
        "NaN",
    ),
    "Infinity in a resource spec": (
        lambda body: body.replace('"source_config": {}', '"source_config": {"x": Infinity}'),
        "Infinity",
    ),
    "a number too large for a float": (
        lambda body: body.replace('"source_config": {}', '"source_config": {"x": 1e400}'),
        "out of range",
    ),
    "a lone surrogate in a secret value": (
        lambda body: body.replace('"value": "fine"', '"value": "\\udc00"'),
        "surrogate",
    ),
    "a lone surrogate in a key": (
        lambda body: body.replace('"source_config": {}', '"source_config": {"\\ud800": 1}'),
        "surrogate",
    ),
    "deep nesting": (
        lambda body: body.replace('"source_config": {}', '"source_config": ' + "[" * 100_000),
        "nested",
    ),
    "nesting deeper than the limit but parseable": (
        lambda body: body.replace(
            '"source_config": {}', '"source_config": {"x": ' + "[" * 200 + "]" * 200 + "}"
        ),
        "nested deeper than",
    ),
    "a NUL byte in langgraph_config_path": (
        lambda body: body.replace(MISSING_CONFIG, MISSING_CONFIG + "\\u0000.json"),
        "NUL",
    ),
    "a NUL byte in a secret value": (
        lambda body: body.replace('"value": "fine"', '"value": "a\\u0000b"'),
        "NUL",
    ),
    "an '=' in a secret name": (
        lambda body: body.replace('"name": "TOKEN"', '"name": "A=B"'),
        "'='",
    ),
    "a wrong type inside resource_spec": (
        lambda body: body.replace(
            '"source_config": {}', '"source_config": {"resource_spec": {"cpu": "lots"}}'
        ),
        "number",
    ),
}


def hostile_text(case: str, name: str) -> str:
    change, _ = HOSTILE[case]
    text = change(json.dumps(create_body(name, secret_references=None)))
    assert text != json.dumps(create_body(name, secret_references=None)), case
    return text


def messages(response: httpx.Response) -> str:
    return " ".join(str(error["msg"]) for error in response.json()["detail"])


@pytest.mark.parametrize("case", list(HOSTILE))
async def test_a_hostile_create_is_refused_with_a_reason_and_not_stored(
    http: httpx.AsyncClient, case: str
) -> None:
    name = f"hostile-{uuid.uuid4().hex[:8]}"
    response = await http.post(
        "/v2/deployments",
        content=hostile_text(case, name).encode("utf-8", "surrogatepass"),
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 422, response.text
    assert HOSTILE[case][1] in messages(response)
    await assert_listing_works(http, name)


@pytest.mark.parametrize("case", list(HOSTILE))
async def test_a_hostile_patch_is_refused_and_changes_nothing(
    http: httpx.AsyncClient, case: str
) -> None:
    before = await existing(http)
    # The same changes, in a PATCH body (every field of a create is a PATCH field too,
    # but name and source).
    text = hostile_text(case, "unused")
    body = text.replace('"name": "unused", "source": "internal_source", ', "")
    response = await http.patch(
        f"/v2/deployments/{before['id']}",
        content=body.encode("utf-8", "surrogatepass"),
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 422, response.text
    assert HOSTILE[case][1] in messages(response)
    after = (await http.get(f"/v2/deployments/{before['id']}")).json()
    assert after["secrets"] == before["secrets"]
    assert after["source_config"] == before["source_config"]
    assert after["latest_revision_id"] == before["latest_revision_id"]
    await assert_listing_works(http, "unused")


async def test_a_body_too_large_is_refused_before_it_is_read(http: httpx.AsyncClient) -> None:
    name = f"large-{uuid.uuid4().hex[:8]}"
    body = create_body(name, secrets=[{"name": "BIG", "value": "x" * (2 << 20)}])
    response = await http.post("/v2/deployments", json=body)
    assert response.status_code == 413
    assert "larger than" in response.json()["detail"]
    await assert_listing_works(http, name)


def special_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    fifo = tmp_path / "langgraph.fifo"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.json"
    with huge.open("wb") as file:
        file.truncate(64 << 20)  # sparse: no disk used
    return {
        "/dev/zero": (Path("/dev/zero"), "character device"),
        "a FIFO": (fifo, "named pipe"),
        "a folder": (tmp_path, "folder"),
        "a huge file": (huge, "larger than"),
    }


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and /dev/zero")
@pytest.mark.parametrize("kind", ["/dev/zero", "a FIFO", "a folder", "a huge file"])
async def test_a_config_path_that_is_not_a_regular_file_is_refused(
    http: httpx.AsyncClient, tmp_path: Path, kind: str
) -> None:
    path, words = special_files(tmp_path)[kind]
    name = f"special-{uuid.uuid4().hex[:8]}"
    config = {"langgraph_config_path": str(path)}
    response = await http.post(
        "/v2/deployments", json=create_body(name, source_revision_config=config)
    )
    assert response.status_code == 422, response.text
    error = response.json()["detail"][0]
    assert error["loc"] == ["body", "source_revision_config", "langgraph_config_path"]
    assert words in error["msg"] and str(path) in error["msg"]
    await assert_listing_works(http, name)

    before = await existing(http)
    response = await http.patch(
        f"/v2/deployments/{before['id']}", json={"source_revision_config": config}
    )
    assert response.status_code == 422 and words in messages(response)
    after = (await http.get(f"/v2/deployments/{before['id']}")).json()
    assert after["latest_revision_id"] == before["latest_revision_id"]
    assert after["source_revision_config"] == before["source_revision_config"]


async def test_a_resource_spec_is_served_back_typed_as_the_spec_says(
    http: httpx.AsyncClient,
) -> None:
    # Stored as sent, "0.5" would come back where the spec promises a number.
    resource_spec = {
        "cpu": "0.5",
        "min_scale": 2.0,
        "labels": {"team": "agents"},
        "sidecars": [{"name": "proxy", "image": "envoy", "env": [{"name": "A"}]}],
        "volumes": [{"name": "cache", "emptyDir": {}, "nfs": None}],
    }
    name = f"spec-{uuid.uuid4().hex[:8]}"
    response = await http.post(
        "/v2/deployments",
        json=create_body(
            name,
            source_config={
                "resource_spec": resource_spec,
                "listener_config": {"k8s_namespace": "x"},
            },
            secret_references=[{"name": "A", "secret_name": "s", "secret_key": "k"}],
        ),
    )
    assert response.status_code == 201, response.text
    listed = (await http.get("/v2/deployments", params={"name_contains": name})).json()
    stored = listed["resources"][0]["source_config"]
    assert stored["resource_spec"] == {
        **resource_spec,
        "cpu": 0.5,
        "min_scale": 2,
        "volumes": [{"name": "cache", "emptyDir": {}}],
    }
    assert stored["listener_config"] == {"k8s_namespace": "x"}


async def test_what_an_older_version_stored_from_such_bodies_can_be_listed_and_deleted(
    tmp_path: Path,
) -> None:
    data = tmp_path / "cp"
    with LocalControlPlane(data) as plane:
        async with httpx.AsyncClient(
            base_url=plane.url, headers={"X-Api-Key": plane.api_key}, trust_env=False, timeout=60
        ) as raw:
            created = (await raw.post("/v2/deployments", json=create_body("stored"))).json()
    # As an older version stored them: NaN, lone surrogates (in a document and a column).
    db = sqlite3.connect(data / "control-plane.sqlite3")
    try:
        (text,) = db.execute("SELECT doc FROM deployments").fetchone()
        doc = json.loads(text)
        doc["name"] = "stored\udc00"
        doc["secrets"][0]["value"] = "\ud800"
        doc["secret_references"] = [{"name": float("nan"), "secret_name": "s", "secret_key": "k"}]
        db.execute("UPDATE deployments SET doc = ?", (json.dumps(doc),))
        db.execute(
            "UPDATE revisions SET secrets = ?", (json.dumps([{"name": "\udc00", "value": ""}]),)
        )
        db.commit()
    finally:
        db.close()

    with LocalControlPlane(data) as plane:
        async with checked_http(plane.url, plane.api_key) as http:
            listed = await http.get("/v2/deployments")
            assert listed.status_code == 200
            [shown] = listed.json()["resources"]
            assert shown["name"] == "stored\ufffd"
            assert shown["secrets"] == [{"name": "TOKEN", "value": "********"}]  # masked
            revisions = await http.get(f"/v2/deployments/{created['id']}/revisions")
            assert revisions.status_code == 200
            assert revisions.json()["resources"][0]["secret_names"] == ["\ufffd"]
            deleted = await http.delete(f"/v2/deployments/{created['id']}")
            assert deleted.status_code == 204
            assert (await http.get("/v2/deployments")).json()["resources"] == []
