"""The control plane's side of a revision's two build children, each in a process group
of its own, tied to the control plane (`parent_watch`).

- `build_environment`: the project's dependencies installed into its environment with
  uv (`project_env`), in the child `environment_build`; uv's lines are logged as they
  come.
- `check_build`: the config read and every graph imported with that environment's
  interpreter, in the child `build_check`, within `BUILD_TIMEOUT` seconds.

When the caller is cancelled (a deleted deployment, the control plane stopping) or a
child outlives its time, the child's process group is killed, so uv, the graph imports
and whatever they started stop with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections import deque
from collections.abc import Callable
from pathlib import Path

from agent_tui.local.control_plane.environment_build import ready_python
from agent_tui.local.project_env.environment import EnvironmentBuildError
from agent_tui.local.server_environment import server_environment, without_own_keys

BUILD_TIMEOUT = 120.0
"""Seconds for importing the graphs; the check then reports the line each one hung on."""
_KILL_AFTER = 15.0
"""Seconds past `BUILD_TIMEOUT` before a check that did not stop by itself is killed."""
_LINE_LIMIT = 1 << 20
"""Longest output line read from a build child (asyncio's default, 64 KiB, could be hit)."""
_CHECK_LINES = 2000
"""Lines of the graph check's output kept (a graph may print without end while importing)."""
_CHECK_WIDTH = 4096
"""Characters kept of one such line."""


async def build_environment(
    config_path: Path, log: Callable[[str], None], env_dir: Path | None = None
) -> str:
    """The interpreter to run the project with, its environment built first if needed
    (in ``env_dir`` when given, else where `project_env` keeps the project's).

    uv's lines go to ``log`` as uv prints them. Raises `EnvironmentBuildError` (uv's
    words already logged) when the build fails.
    """
    python = await asyncio.to_thread(ready_python, config_path, env_dir)
    if python is not None:
        return python
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-P",  # the control plane's working folder is not the child's module path
        "-m",
        "agent_tui.local.control_plane.environment_build",
        str(config_path),
        "--die-with-parent",
        str(os.getpid()),
        *(["--env-dir", str(env_dir)] if env_dir is not None else []),
        stdin=asyncio.subprocess.PIPE,  # its end-of-file tells the child we are gone
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=without_own_keys(os.environ),  # the control plane's key stays here
        start_new_session=os.name == "posix",  # its own group: killed with uv, below
        limit=_LINE_LIMIT,
    )
    assert process.stdout is not None
    failed: str | None = None
    try:
        async for raw in process.stdout:
            text = raw.decode(errors="replace").rstrip()
            try:
                message = json.loads(text)
            except ValueError:
                message = None
            if not isinstance(message, dict):
                if text:  # not the child's own words (a crash): kept as they are
                    log(text)
            elif "line" in message:
                log(str(message["line"]))
            elif "python" in message:
                python = str(message["python"])
            elif "failed" in message:
                failed = str(message["failed"])
        code = await process.wait()
    finally:
        if process.returncode is None:  # cancelled (a deleted deployment, a shutdown)
            _kill_group(process)
            await process.wait()
    if code != 0 or python is None:
        raise EnvironmentBuildError(failed or f"the environment build stopped (exit code {code})")
    return python


def _kill_group(process: asyncio.subprocess.Process) -> None:
    """Stop a build child and everything it started (uv, the build backends uv runs).

    SIGKILL, not SIGTERM: uv may leave its build backends running on SIGTERM, and nothing
    is lost: uv was building beside the environment in use, which stays as it was (the
    unfinished one is cleared by the next build).
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()


async def check_build(
    config_path: Path, secrets: dict[str, str], python: str
) -> tuple[bool, list[str]]:
    """Import every graph of the config in a child, with ``secrets`` in its environment:
    whether they all loaded, and the child's output (its last lines)."""
    process = await asyncio.create_subprocess_exec(
        python,
        "-m",
        "agent_tui.local.control_plane.build_check",
        str(config_path),
        "--timeout",
        str(BUILD_TIMEOUT),
        "--die-with-parent",
        str(os.getpid()),
        stdin=asyncio.subprocess.PIPE,  # its end-of-file tells the check we are gone
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=server_environment(os.environ, secrets),
        cwd=str(config_path.parent) if config_path.parent.is_dir() else None,
        start_new_session=os.name == "posix",  # its own group: what the graphs start dies too
    )
    assert process.stdout is not None
    output = _Tail()
    reader = asyncio.create_task(output.read(process.stdout))
    code: int | None = None
    try:
        with contextlib.suppress(TimeoutError):  # its own time limit did not stop it
            code = await asyncio.wait_for(process.wait(), BUILD_TIMEOUT + _KILL_AFTER)
    finally:
        # Always, also when cancelled (a deleted deployment, a shutdown): the check and
        # anything its graphs started must not run on. That also closes their end of the
        # output pipe, which a process a graph started may hold after the check ended.
        _kill_group(process)
        await process.wait()
        try:
            await asyncio.wait_for(asyncio.shield(reader), 5)
        except TimeoutError:
            pass  # a process outside the group still holds the pipe: what came is kept
        finally:
            reader.cancel()
    lines = output.lines()
    if code is None:
        lines.append(f"build failed: importing the graphs took over {BUILD_TIMEOUT:g} s")
        return False, lines
    if code != 0:
        lines.append(f"build failed (exit code {code})")
    return code == 0, lines


class _Tail:
    """The last `_CHECK_LINES` lines of a child's output, each cut at `_CHECK_WIDTH`."""

    def __init__(self) -> None:
        self._kept: deque[str] = deque(maxlen=_CHECK_LINES)
        self._total = 0
        self._partial = b""

    async def read(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(1 << 16):
            *complete, partial = (self._partial + chunk).split(b"\n")
            self._partial = partial[:_CHECK_WIDTH]  # the rest of an endless line is dropped
            for raw in complete:
                self._kept.append(raw[:_CHECK_WIDTH].decode(errors="replace").rstrip())
            self._total += len(complete)

    def lines(self) -> list[str]:
        lines = list(self._kept)
        total = self._total
        if self._partial:
            lines.append(self._partial.decode(errors="replace").rstrip())
            total += 1
        if total > len(lines):
            lines.insert(0, f"… {total - len(lines)} earlier lines of output not kept")
        return lines
