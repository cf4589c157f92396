"""Uploads to a local control plane as the official CLI's remote build makes them: a
deployment created empty, a gzipped tarball PUT to the URL it hands out (without the
key), then a PATCH naming it. Answers of the `/v2` routes are checked against the spec.
"""

from __future__ import annotations

import io
import tarfile
import uuid
from collections.abc import Mapping
from typing import Any

import httpx

from tests.support.control_plane import validate


def tarball(files: Mapping[str, bytes]) -> bytes:
    """A gzipped tarball of regular files (name → content)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def checked(response: httpx.Response) -> httpx.Response:
    """``response``, once its body is checked against the spec."""
    request = response.request
    validate(request.method, request.url.path, response.status_code, response.content)
    return response


def create_empty(http: httpx.Client, **headers: str) -> dict[str, Any]:
    """A deployment waiting for its source, as the CLI creates it."""
    response = checked(
        http.post(
            "/v2/deployments",
            headers=headers,
            json={
                "name": f"up-{uuid.uuid4().hex[:8]}",
                "source": "internal_source",
                "source_config": {},
                "source_revision_config": {},
                "secrets": [],
            },
        )
    )
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def put_upload(http: httpx.Client, deployment_id: str, body: bytes) -> tuple[str, httpx.Response]:
    """PUT ``body`` to a new upload URL of the deployment: its object path and the answer."""
    granted = http.post(f"/v2/deployments/{deployment_id}/upload-url").json()
    put = httpx.put(
        granted["upload_url"],
        content=body,
        headers=granted["upload_headers"],
        trust_env=False,
        timeout=120,
    )
    return str(granted["object_path"]), put


def patch_upload(
    http: httpx.Client, deployment_id: str, object_path: str, config: str = "langgraph.json"
) -> httpx.Response:
    """The PATCH that makes a revision of an upload (checked against the spec)."""
    return checked(
        http.patch(
            f"/v2/deployments/{deployment_id}",
            json={
                "source_revision_config": {
                    "source_tarball_path": object_path,
                    "langgraph_config_path": config,
                }
            },
        )
    )


def upload_revision(
    http: httpx.Client, deployment_id: str, files: Mapping[str, bytes]
) -> dict[str, Any]:
    """Upload ``files`` and make a revision of them: the patched deployment."""
    object_path, put = put_upload(http, deployment_id, tarball(files))
    assert put.status_code == 200, put.text
    patched = patch_upload(http, deployment_id, object_path)
    assert patched.status_code == 200, patched.text
    deployment: dict[str, Any] = patched.json()
    return deployment
