"""What the official CLI's remote build sends, over HTTP: its deployment types, the upload
URL and the tarball PUT to it, and the ``/v1`` log endpoints with their filters and paging.

Bad uploads are refused with a 4xx and leave nothing behind: a body that is no gzipped
tar, members escaping the archive (``../``, absolute paths, links pointing out), device
files and FIFOs, a body past the size limit (413 while it streams). The happy path (a
tarball deployed from its revision's folder) is the official CLI's test.
"""

from __future__ import annotations

import io
import tarfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_tui.local.control_plane import LocalControlPlane, uploads
from tests.support.control_plane import revision_reaches, validate

MISSING_CONFIG = {"langgraph_config_path": "/nonexistent/langgraph.json"}
GOOD_CONFIG = b'{"graphs": {"agent": "./agent.py:graph"}}'


@pytest.fixture(scope="module")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalControlPlane]:
    with LocalControlPlane(tmp_path_factory.mktemp("cp-uploads") / "data") as plane:
        yield plane


@pytest.fixture
def http(control_plane: LocalControlPlane) -> Iterator[httpx.Client]:
    headers = {"X-Api-Key": control_plane.api_key}
    with httpx.Client(
        base_url=control_plane.url, headers=headers, trust_env=False, timeout=60
    ) as client:
        yield client


def create(
    http: httpx.Client,
    source_config: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    **more: Any,
) -> Any:
    response = http.post(
        "/v2/deployments",
        headers=headers,
        json={
            "name": f"up-{uuid.uuid4().hex[:8]}",
            "source": "internal_source",
            "source_config": source_config or {},
            "source_revision_config": {},
            "secrets": [],
            **more,
        },
    )
    validate("POST", "/v2/deployments", response.status_code, response.content)
    assert response.status_code == 201, response.text
    return response.json()


def upload_url(http: httpx.Client, deployment_id: str) -> dict[str, Any]:
    response = http.post(
        f"/v2/deployments/{deployment_id}/upload-url", json={"supports_upload_headers": True}
    )
    assert response.status_code == 200, response.text
    granted: dict[str, Any] = response.json()
    return granted


def tarball(*members: tuple[tarfile.TarInfo, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for info, data in members:
            info.size = len(data) if info.isfile() else 0
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return buffer.getvalue()


def member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    return info


def put(granted: dict[str, Any], body: Any, **headers: str) -> httpx.Response:
    # No API key: the URL's token is the authorisation, as for the CLI.
    return httpx.put(
        granted["upload_url"],
        content=body,
        headers={**granted["upload_headers"], **headers},
        trust_env=False,
        timeout=60,
    )


def leftovers(plane: LocalControlPlane, deployment_id: str) -> list[Path]:
    folder = plane.data_dir / "deployments" / deployment_id
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


@pytest.mark.parametrize("kind", ["serverless", "dev_zero", "dedicated", "dev", "prod"])
def test_the_cli_deployment_types_are_taken_and_served_as_the_spec_names_them(
    http: httpx.Client, kind: str
) -> None:
    created = create(http, {"deployment_type": kind})  # validated against the spec
    expected = {"serverless": "dev_free", "dev_zero": "dev_free", "dedicated": "prod"}
    assert created["source_config"]["deployment_type"] == expected.get(kind, kind)
    # Created empty, as the CLI does: no revision until its source arrives.
    assert created["latest_revision_id"] is None
    path = f"/v2/deployments/{created['id']}/revisions"
    revisions = http.get(path)
    validate("GET", path, revisions.status_code, revisions.content)
    assert revisions.json()["resources"] == []


def test_every_route_is_served_under_the_api_host_prefix_with_a_tenant(
    http: httpx.Client, control_plane: LocalControlPlane
) -> None:
    headers = {"X-Tenant-ID": str(uuid.uuid4())}
    created = create(http, headers=headers)
    assert created["tenant_id"] == headers["X-Tenant-ID"]
    found = http.get(f"/api-host/v2/deployments/{created['id']}", headers=headers)
    assert found.status_code == 200 and found.json()["id"] == created["id"]
    granted = http.post(
        f"/api-host/v2/deployments/{created['id']}/upload-url", headers=headers
    ).json()
    assert granted["upload_url"].startswith(f"{control_plane.url}/api-host/v2/uploads/")
    assert put(granted, tarball((member("langgraph.json"), GOOD_CONFIG))).status_code == 200
    no_key = httpx.get(f"{control_plane.url}/api-host/v2/deployments", trust_env=False)
    assert no_key.status_code == 401


def test_a_body_that_is_no_gzipped_tarball_is_refused(
    http: httpx.Client, control_plane: LocalControlPlane
) -> None:
    created = create(http)
    granted = upload_url(http, created["id"])
    refused = put(granted, b"PK\x03\x04 this is a zip, not a tarball")
    assert refused.status_code == 400
    assert "not a gzipped tar" in refused.json()["detail"]
    assert leftovers(control_plane, created["id"]) == []
    patched = http.patch(
        f"/v2/deployments/{created['id']}",
        json={
            "revision_source": "internal_source",
            "source_revision_config": {
                "source_tarball_path": granted["object_path"],
                "langgraph_config_path": "langgraph.json",
            },
        },
    )
    assert patched.status_code == 400
    assert "Nothing was uploaded" in patched.json()["detail"]


ESCAPES = {
    "parent": [(member("../evil"), b"owned")],
    "nested-parent": [(member("pkg/../../evil"), b"owned")],
    "absolute": [(member("/tmp/evil-absolute"), b"owned")],
    "symlink-out": [(member("evil-link", tarfile.SYMTYPE, "../../../../evil"), b"")],
    "absolute-symlink": [(member("evil-link", tarfile.SYMTYPE, "/etc/passwd"), b"")],
    "hardlink-out": [(member("evil-hard", tarfile.LNKTYPE, "../evil"), b"")],
    "device": [(member("evil-dev", tarfile.CHRTYPE), b"")],
    "fifo": [(member("evil-fifo", tarfile.FIFOTYPE), b"")],
}


@pytest.mark.parametrize("case", sorted(ESCAPES))
def test_a_member_escaping_the_archive_is_refused_and_nothing_is_unpacked(
    http: httpx.Client, control_plane: LocalControlPlane, case: str
) -> None:
    created = create(http)
    granted = upload_url(http, created["id"])
    body = tarball((member("langgraph.json"), GOOD_CONFIG), *ESCAPES[case])
    refused = put(granted, body)
    assert refused.status_code == 400, refused.text
    assert "evil" in refused.json()["detail"]
    root = control_plane.data_dir.parent
    assert list(root.rglob("evil*")) == []
    assert not Path("/tmp/evil-absolute").exists()
    assert leftovers(control_plane, created["id"]) == []
    revisions = http.get(f"/v2/deployments/{created['id']}/revisions").json()["resources"]
    assert revisions == []


def test_an_upload_url_works_once(http: httpx.Client) -> None:
    created = create(http)
    granted = upload_url(http, created["id"])
    body = tarball((member("langgraph.json"), GOOD_CONFIG))
    assert put(granted, body).status_code == 200
    again = put(granted, body)
    assert again.status_code == 403


def test_a_config_path_leaving_the_archive_is_refused(
    http: httpx.Client, control_plane: LocalControlPlane
) -> None:
    created = create(http)
    granted = upload_url(http, created["id"])
    assert put(granted, tarball((member("langgraph.json"), GOOD_CONFIG))).status_code == 200
    patched = http.patch(
        f"/v2/deployments/{created['id']}",
        json={
            "source_revision_config": {
                "source_tarball_path": granted["object_path"],
                "langgraph_config_path": "../langgraph.json",
            }
        },
    )
    assert patched.status_code == 400
    assert http.get(f"/v2/deployments/{created['id']}/revisions").json()["resources"] == []


def test_an_upload_past_the_limit_is_refused_with_413_while_it_streams(
    http: httpx.Client, control_plane: LocalControlPlane, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(uploads, "MAX_UPLOAD", 1 << 20)
    created = create(http)

    declared = put(upload_url(http, created["id"]), b"\0" * (2 << 20))
    assert declared.status_code == 413

    def chunks() -> Iterator[bytes]:  # no Content-Length: only counting stops it
        for _ in range(32):
            yield b"\0" * (64 << 10)

    streamed = put(upload_url(http, created["id"]), chunks())
    assert streamed.status_code == 413
    assert "larger than" in streamed.json()["detail"]
    assert leftovers(control_plane, created["id"]) == []


def test_build_logs_filter_and_page_like_the_cli_reads_them(http: httpx.Client) -> None:
    response = http.post(
        "/v2/deployments",
        json={
            "name": f"logs-{uuid.uuid4().hex[:8]}",
            "source": "internal_source",
            "source_config": {"deployment_type": "dev_zero"},
            "source_revision_config": MISSING_CONFIG,
            "secrets": [],
        },
    )
    created = response.json()
    did, rid = created["id"], created["latest_revision_id"]
    revision_reaches(http, did, rid, "BUILD_FAILED", 60)
    lines = http.get(f"/v2/deployments/{did}/revisions/{rid}/logs").json()["lines"]
    path = f"/v1/projects/{did}/revisions/{rid}/build_logs"

    everything = http.post(path, json={"order": "asc", "limit": 1000}).json()
    assert [e["message"] for e in everything["logs"]] == lines
    entry = everything["logs"][0]
    assert set(entry) == {"id", "timestamp", "level", "message"}
    assert isinstance(entry["timestamp"], int)

    newest = http.post(path, json={"order": "desc", "limit": 2}).json()
    assert [e["message"] for e in newest["logs"]] == lines[::-1][:2]
    following = http.post(
        path, json={"order": "desc", "limit": 2, "offset": newest["next_offset"]}
    ).json()
    assert [e["message"] for e in following["logs"]] == lines[::-1][2:4]

    errors = http.post(path, json={"level": "ERROR"}).json()["logs"]
    assert errors and all(e["message"].startswith("build failed") for e in errors)
    found = http.post(path, json={"query": "BUILD FAILED"}).json()["logs"]
    assert [e["message"] for e in found] == [e["message"] for e in errors]
    assert http.post(path, json={"end_time": "2000-01-01T00:00:00Z"}).json()["logs"] == []
    assert http.post(f"/api-host{path}", json={"start_time": "2000-01-01T00:00:00Z"}).json()["logs"]
    assert http.post(path, json={"order": "sideways"}).status_code == 422
    assert http.post(path, json={"start_time": "yesterday"}).status_code == 422

    # No server ever ran: its deploy logs are empty, for the deployment and the revision.
    for deploy_path in (f"/v1/projects/{did}/deploy_logs", path.replace("build_", "deploy_")):
        answer = http.post(deploy_path, json={"limit": 10})
        assert answer.status_code == 200 and answer.json()["logs"] == []
    assert http.post(f"/v1/projects/{uuid.uuid4()}/deploy_logs", json={}).status_code == 404
