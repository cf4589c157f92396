"""The local control plane's key file: an empty key never lets anyone in.

An empty ``api-key`` file once made the key empty, and an empty ``X-Api-Key:`` header
then matched it. An empty file now gets a new key; one that cannot be read stops the
control plane from starting, saying which file and what to do.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agent_tui.cli.main import main
from agent_tui.local.control_plane import LocalControlPlane
from agent_tui.local.control_plane.auth import KEY_ENV, ControlPlaneKeyError
from tests.support.control_plane import SpecCheckingTransport


@pytest.fixture(autouse=True)
def no_key_in_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(KEY_ENV, raising=False)
    yield


async def status_with(url: str, key: str) -> int:
    async with httpx.AsyncClient(
        base_url=url, transport=SpecCheckingTransport(), trust_env=False, timeout=60
    ) as http:
        return (await http.get("/v2/deployments", headers={"X-Api-Key": key})).status_code


@pytest.mark.parametrize("content", ["", "\n", "   \n\n"])
async def test_an_empty_key_file_gets_a_new_key(tmp_path: Path, content: str) -> None:
    key_file = tmp_path / "api-key"
    key_file.write_text(content)
    key_file.chmod(0o600)
    with LocalControlPlane(tmp_path) as plane:
        assert await status_with(plane.url, "") == 403
        assert plane.api_key.strip()
        assert key_file.read_text().strip() == plane.api_key
        assert key_file.stat().st_mode & 0o777 == 0o600
        assert await status_with(plane.url, plane.api_key) == 200


def unreadable_key_files(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "folder" / "api-key"
    folder.mkdir(parents=True)
    binary = tmp_path / "binary" / "api-key"
    binary.parent.mkdir()
    binary.write_bytes(b"\xff\xfe\x00key")
    return {"a folder": folder, "not UTF-8": binary}


@pytest.mark.parametrize("kind", ["a folder", "not UTF-8"])
def test_an_unreadable_key_file_stops_the_start_with_a_clear_message(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    key_file = unreadable_key_files(tmp_path)[kind]
    with pytest.raises(ControlPlaneKeyError) as error:
        LocalControlPlane(key_file.parent)
    assert str(key_file) in str(error.value) and KEY_ENV in str(error.value)

    code = main(["control-plane", "serve", "--port", "0", "--data-dir", str(key_file.parent)])
    err = capsys.readouterr().err
    assert code == 1
    assert f"cannot read the control plane key in {key_file}" in err
    assert "Traceback" not in err
