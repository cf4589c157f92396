"""What an upload may unpack to is capped: 512 MiB and 20,000 files, folders and links by
default, or what `AGENT_TUI_CONTROL_PLANE_MAX_UNPACKED_MB` / `…_MAX_FILES` say. Past
either, the upload is refused (413) with a message naming the limit; and an upload that
fails while it is unpacked (a limit lowered since it was taken, a file where the archive
wants a folder) leaves no partial folder behind.
"""

from __future__ import annotations

import io
import tarfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agent_tui.local.control_plane import LocalControlPlane
from agent_tui.local.control_plane.uploads import MAX_MEMBERS_ENV, MAX_UNPACKED_ENV
from tests.support.control_plane_uploads import create_empty, patch_upload, put_upload, tarball

CONFIG = b'{"graphs": {"agent": "./agent.py:graph"}}'


@pytest.fixture(scope="module")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalControlPlane]:
    with LocalControlPlane(tmp_path_factory.mktemp("cp-upload-limits")) as plane:
        yield plane


@pytest.fixture
def http(control_plane: LocalControlPlane) -> Iterator[httpx.Client]:
    headers = {"X-Api-Key": control_plane.api_key}
    with httpx.Client(
        base_url=control_plane.url, headers=headers, trust_env=False, timeout=120
    ) as client:
        yield client


class _Zeros(io.RawIOBase):
    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        count = min(len(buffer), self.left)
        buffer[:count] = bytes(count)
        self.left -= count
        return count


def bomb(unpacked: int) -> bytes:
    """A small gzipped tarball whose one file unpacks to ``unpacked`` bytes of zeros."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=9) as tar:
        tar.addfile(tarfile.TarInfo("langgraph.json"), io.BytesIO(b""))
        info = tarfile.TarInfo("zeros.bin")
        info.size = unpacked
        tar.addfile(info, io.BufferedReader(_Zeros(unpacked), 1 << 20))
    return buffer.getvalue()


def files_of(plane: LocalControlPlane, deployment_id: str) -> list[Path]:
    """What the deployment's folder holds but its stored uploads."""
    folder = plane.data_dir / "deployments" / deployment_id
    return [p for p in folder.rglob("*") if "uploads" not in p.relative_to(folder).parts]


def test_an_upload_unpacking_past_512_mib_is_refused_saying_so(
    http: httpx.Client, control_plane: LocalControlPlane
) -> None:
    body = bomb(600 << 20)
    assert len(body) < 2 << 20  # under 2 MB sent
    did = create_empty(http)["id"]
    _, refused = put_upload(http, did, body)
    assert refused.status_code == 413
    detail = refused.json()["detail"]
    assert "unpacks to more than 512 MiB" in detail and MAX_UNPACKED_ENV in detail
    assert list((control_plane.data_dir / "deployments").rglob("*.tar.gz")) == []


def test_an_upload_of_more_than_20000_files_is_refused_saying_so(http: httpx.Client) -> None:
    files = {f"many/{index}.txt": b"" for index in range(20_001)}
    did = create_empty(http)["id"]
    _, refused = put_upload(http, did, tarball({"langgraph.json": CONFIG, **files}))
    assert refused.status_code == 413
    detail = refused.json()["detail"]
    assert "more than 20000 files, folders and links" in detail and MAX_MEMBERS_ENV in detail


def test_the_limits_are_set_by_environment_variables(
    http: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MAX_UNPACKED_ENV, "1")
    did = create_empty(http)["id"]
    _, refused = put_upload(http, did, bomb(2 << 20))
    assert refused.status_code == 413
    assert "unpacks to more than 1 MiB" in refused.json()["detail"]

    monkeypatch.setenv(MAX_MEMBERS_ENV, "3")
    files = {"langgraph.json": CONFIG, "a.py": b"", "b.py": b"", "c.py": b""}
    _, refused = put_upload(http, did, tarball(files))
    assert refused.status_code == 413
    assert "more than 3 files" in refused.json()["detail"]


def test_an_upload_refused_while_unpacking_leaves_no_partial_folder(
    http: httpx.Client, control_plane: LocalControlPlane, monkeypatch: pytest.MonkeyPatch
) -> None:
    did = create_empty(http)["id"]
    # A file, then a file inside it as if it were a folder: unpacking fails half-way.
    clash = tarball({"langgraph.json": CONFIG, "pkg": b"x", "pkg/mod.py": b"y"})
    object_path, put = put_upload(http, did, clash)
    assert put.status_code == 200, put.text
    refused = patch_upload(http, did, object_path)
    assert refused.status_code == 400
    assert "cannot be unpacked" in refused.json()["detail"]
    assert files_of(control_plane, did) == []

    # Taken under the default limit; the limit lowered before its PATCH unpacks it.
    object_path, put = put_upload(http, did, bomb(2 << 20))
    assert put.status_code == 200, put.text
    monkeypatch.setenv(MAX_UNPACKED_ENV, "1")
    refused = patch_upload(http, did, object_path)
    assert refused.status_code == 413
    assert "unpacks to more than 1 MiB" in refused.json()["detail"]
    assert files_of(control_plane, did) == []
    assert http.get(f"/v2/deployments/{did}/revisions").json()["resources"] == []
