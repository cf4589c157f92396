"""The local agent server on a real, small filesystem of its own, to fill it up.

A tmpfs of a few megabytes is mounted on the server's data folder inside a user and
mount namespace of its own (``unshare --user --map-root-user --mount``: no root needed),
with a ballast file in it. The server's writes fail with ENOSPC once the tmpfs is full;
removing the ballast (through ``/proc/<pid>/root``, the server's view of the files)
gives the disk room again. The tmpfs goes with the server's process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from agent_tui.local import DEMO_CONFIG
from agent_tui.local.server_environment import server_environment
from agent_tui.local.supervisor import launch
from tests.support.processes import gone_within

_MOUNT_AND_SERVE = (
    'mount -t tmpfs -o size="$1" tmpfs "$2" && cd "$2"'
    ' && dd if=/dev/zero of=ballast bs=1k count="$3" 2>/dev/null'
    ' && exec "$4" -P -m agent_tui.server.main --config "$5" --port "$6"'
)


@dataclass
class SmallDiskServer:
    url: str
    process: subprocess.Popen[bytes]
    data: Path
    log: Path

    def free_the_ballast(self) -> None:
        """Room on the server's disk again, as a user freeing space would make it."""
        (Path(f"/proc/{self.process.pid}/root") / self.data.relative_to("/") / "ballast").unlink()

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


def can_mount_a_tmpfs() -> bool:
    probe = subprocess.run(
        [
            "unshare",
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            "mount -t tmpfs -o size=64k tmpfs /tmp",
        ],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


@contextmanager
def small_disk_server(
    tmp_path: Path, *, size_mb: int = 8, ballast_kb: int = 3000
) -> Iterator[SmallDiskServer]:
    if not can_mount_a_tmpfs():  # a kernel without unprivileged user namespaces
        pytest.skip("this machine cannot mount a tmpfs in a user namespace (unshare)")
    data, log = tmp_path / "small-disk", tmp_path / "server.log"
    data.mkdir()
    port = launch.free_port("127.0.0.1")
    argv = [f"{size_mb}m", str(data), str(ballast_kb), sys.executable, str(DEMO_CONFIG), str(port)]
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                "unshare",
                "--user",
                "--map-root-user",
                "--mount",
                "sh",
                "-c",
                _MOUNT_AND_SERVE,
                "sh",
                *argv,
            ],
            env=server_environment(os.environ),
            stdin=subprocess.PIPE,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = SmallDiskServer(f"http://127.0.0.1:{port}", process, data, log)
    try:
        _wait_until_ready(server)
        yield server
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(30)
        assert gone_within([process.pid], 30)


def _wait_until_ready(server: SmallDiskServer) -> None:
    deadline = time.monotonic() + 90
    with httpx.Client(trust_env=False, timeout=5) as client:
        while True:
            assert server.process.poll() is None, (
                f"the server stopped:\n{server.log_text()[-2000:]}"
            )
            try:
                if client.get(f"{server.url}/ok").status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the server on the small disk did not start"
            time.sleep(0.1)  # a starting process: nothing to wait on


def start_on_a_full_disk(tmp_path: Path, *, size_mb: int = 4) -> tuple[int, str]:
    """The server started on a disk with no room at all: its exit status, what it said."""
    if not can_mount_a_tmpfs():
        pytest.skip("this machine cannot mount a tmpfs in a user namespace (unshare)")
    data = tmp_path / "full-disk"
    data.mkdir()
    port = launch.free_port("127.0.0.1")
    argv = [f"{size_mb}m", str(data), str(size_mb * 1024), sys.executable, str(DEMO_CONFIG)]
    unshare = ["unshare", "--user", "--map-root-user", "--mount"]
    process = subprocess.Popen(
        [*unshare, "sh", "-c", _MOUNT_AND_SERVE, "sh", *argv, str(port)],
        env=server_environment(os.environ),
        stdin=subprocess.PIPE,  # held open: the server's lifeline to its parent
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        code = process.wait(120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(30)
    assert process.stdout is not None and process.stdin is not None
    said = process.stdout.read().decode(errors="replace")
    process.stdout.close()
    process.stdin.close()
    return code, said
