"""Do a project's graphs import? Checked in a child process, with where each one broke.

`check_graphs` (and `check_graphs_async`) run ``python -P -m
agent_tui.local.control_plane.build_check --json CONFIG`` with the project's interpreter
and the server's environment, and turn its JSON lines into a `GraphCheck`: a broken graph
becomes a `GraphProblem` with the file and line to look at. Live reload runs this before
restarting a server, so an edit that breaks a graph leaves the running server alone.

A child process, because importing user code runs it: a crash, a hang or a module-level
side effect must not reach agent-tui. Nothing here imports LangGraph.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.local.child_processes import NEW_SESSION, kill_group
from agent_tui.local.langgraph_config import LangGraphConfigError, load_langgraph_config
from agent_tui.local.server_environment import server_environment
from agent_tui.local.standby import Standby

DEFAULT_CHECK_TIMEOUT = 60.0
"""Seconds for the whole check: graphs may import heavy libraries."""

_CANCEL_POLL_SECONDS = 0.1
_DRAIN_SECONDS = 5.0
"""After a kill, how long to read what the child wrote before it died."""


@dataclass(frozen=True)
class GraphProblem:
    """Why one graph (or the config, ``graph`` None) did not load, and where."""

    graph: str | None
    file: Path | None
    line: int | None
    message: str
    """``ExcType: message``, e.g. ``NameError: name 'x' is not defined``."""
    project: Path | None = field(default=None, compare=False, repr=False)
    """The project folder: ``str()`` shows files inside it relative to it."""

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            shown = _relative(self.file, self.project)
            where = f"{shown}:{self.line}: " if self.line is not None else f"{shown}: "
        graph = f" (graph {self.graph})" if self.graph is not None else ""
        return f"{where}{self.message}{graph}"


_MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([^'.]+)")


def missing_package_advice(problems: Sequence[GraphProblem]) -> str | None:
    """What to do when a graph imports a package the project's environment lacks (the
    environment holds what `langgraph.json`'s ``dependencies`` list, as for ``langgraph
    dev``)."""
    names = sorted({m.group(1) for p in problems if (m := _MISSING_MODULE.match(p.message))})
    if not names:
        return None
    listed = ", ".join(f"`{name}`" for name in names)
    return (
        f"The project's environment has no {listed}: list the package that provides it in a "
        'pyproject.toml or requirements.txt of a folder in langgraph.json\'s "dependencies" '
        '(e.g. "dependencies": ["."]), then save.'
    )


@dataclass(frozen=True)
class GraphCheck:
    ok: bool
    """Every graph imported."""
    problems: list[GraphProblem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """Config problems that do not stop the server (a missing ``.env`` file)."""
    imports: list[str] = field(default_factory=list)
    """The installed modules the graphs imported (for the next standbys, `standby`)."""


def check_graphs(
    config_path: Path,
    *,
    python: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_CHECK_TIMEOUT,
    cancel: threading.Event | None = None,
    standby: CheckStandby | None = None,
) -> GraphCheck:
    """Import every graph of ``config_path`` in a child process; never raises.

    ``python`` is the interpreter (the project's environment; default agent-tui's) and
    ``env`` overrides the server environment, as for `EmbeddedAgentServer`. A child still
    running after ``timeout`` seconds is killed, with what it reported kept; so is one
    running when ``cancel`` is set (the check then fails with "stopped"). With
    ``standby``, its prewarmed check runs if it was started for the same launch.
    """
    config_path, command, options = _launch(config_path, python, env, timeout)
    process = standby.take(command, options) if standby is not None else None
    if process is None:
        try:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                **options,
            )
        except OSError as exc:
            return _cannot_start(config_path, command[0], exc)
    with process:
        timed_out = False
        deadline = time.monotonic() + timeout
        try:
            while True:
                try:
                    # In steps, to see ``cancel``; a retry loses no output.
                    step = max(0.0, deadline - time.monotonic())
                    out, err = process.communicate(timeout=min(step, _CANCEL_POLL_SECONDS))
                    break
                except subprocess.TimeoutExpired:
                    if cancel is not None and cancel.is_set():
                        kill_group(process.pid, process.kill)
                        return GraphCheck(False, [GraphProblem(None, None, None, "stopped")])
                    if time.monotonic() >= deadline:
                        raise
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_group(process.pid, process.kill)
            try:
                out, err = process.communicate(timeout=_DRAIN_SECONDS)
            except subprocess.TimeoutExpired:  # a grandchild that left the group holds the pipe
                out, err = b"", b""
    return _outcome(config_path, out, err, None if timed_out else process.returncode, timeout)


class CheckStandby:
    """One prewarmed graph check kept ready for `check_graphs` (live reload; see
    `standby`): a check then only imports the project's own code. `close` kills it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._standby: Standby[subprocess.Popen[bytes]] | None = None
        self._early: Standby[subprocess.Popen[bytes]] | None = None
        """The check told to go ahead of `take` (`start_early`), still running."""
        self._closed = False

    @property
    def pid(self) -> int | None:
        """The waiting check's process id, if one waits (for tests)."""
        standby = self._standby
        return standby.pid if standby is not None else None

    def prepare(
        self,
        config_path: Path,
        *,
        python: str | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_CHECK_TIMEOUT,
        imports: Sequence[str] = (),
    ) -> None:
        """Start a check for these arguments of `check_graphs`, unless one waits already;
        it imports ``imports`` ahead (`standby`)."""
        _, command, options = _launch(config_path, python, env, timeout)
        key = _launch_key(command, options)
        with self._lock:
            if self._closed:
                return
            if self._standby is not None:
                if self._standby.key == key and self._standby.process.poll() is None:
                    return
                self._standby.discard()
            self._standby = Standby.spawn(
                key, command, imports, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **options
            )

    def start_early(self) -> bool:
        """Tell the waiting check to go now, for the launch it was started for: a `take`
        for that launch gets it running (or done), one for another kills it. The caller
        must `drop_early` it when files it may have read changed after this. True if
        one started."""
        with self._lock:
            standby, self._standby = self._standby, None
            if standby is None or self._early is not None:
                self._standby = standby
                return False
            if standby.go(standby.key) is None:
                return False
            self._early = standby
            return True

    def drop_early(self) -> None:
        """Kill the check `start_early` started, unless `take` took it."""
        with self._lock:
            early, self._early = self._early, None
        if early is not None:
            early.discard()

    def take(self, command: list[str], options: dict[str, Any]) -> subprocess.Popen[bytes] | None:
        """The check started early for this launch (`start_early`), or the waiting one,
        told to go, if it was started for it."""
        key = _launch_key(command, options)
        with self._lock:
            early, self._early = self._early, None
            if early is not None and early.key == key:
                return early.process
            standby, self._standby = self._standby, None
        if early is not None:
            early.discard()
        return standby.go(key) if standby is not None else None

    def discard(self) -> None:
        """Kill the waiting check (the environment it imported from changed), and one
        started early."""
        with self._lock:
            standby, self._standby = self._standby, None
        if standby is not None:
            standby.discard()
        self.drop_early()

    def close(self) -> None:
        """Kill the waiting check; nothing is prepared any more."""
        with self._lock:
            self._closed = True
        self.discard()


def _launch_key(command: list[str], options: dict[str, Any]) -> tuple[Any, ...]:
    return (tuple(command), tuple(sorted(options["env"].items())), str(options["cwd"]))


async def check_graphs_async(
    config_path: Path,
    *,
    python: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_CHECK_TIMEOUT,
) -> GraphCheck:
    """`check_graphs` for an event loop: the same child process, waited on without blocking.

    Cancelling it kills the child.
    """
    config_path, command, options = await asyncio.to_thread(
        _launch, config_path, python, env, timeout
    )
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            **options,
        )
    except OSError as exc:
        return _cannot_start(config_path, command[0], exc)
    assert process.stdout is not None and process.stderr is not None
    out, err = bytearray(), bytearray()
    # Read into buffers that outlive a timeout: what the child reported before it hung
    # is kept (communicate() would drop it when cancelled).
    readers = asyncio.gather(
        _read_all(process.stdout, out), _read_all(process.stderr, err), process.wait()
    )
    timed_out = False
    try:
        await asyncio.wait_for(asyncio.shield(readers), timeout)
    except TimeoutError:
        timed_out = True
    finally:
        if process.returncode is None or timed_out:
            # Also on cancellation: the child must not outlive the caller's interest.
            kill_group(process.pid, process.kill)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(readers), _DRAIN_SECONDS)
            if not readers.done():
                readers.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await readers
    returncode = None if timed_out else process.returncode
    # Off the event loop: reading the config again names the graph a crash stopped at.
    return await asyncio.to_thread(
        _outcome, config_path, bytes(out), bytes(err), returncode, timeout
    )


def _launch(
    config_path: Path, python: str | None, env: Mapping[str, str] | None, timeout: float
) -> tuple[Path, list[str], dict[str, Any]]:
    """The resolved config path, the child's command line and its process options."""
    config_path = config_path.expanduser().resolve()
    # The child's own limit comes first, so a hanging import is reported at the line it
    # hangs on; the kill at ``timeout`` is for what an alarm cannot interrupt.
    margin = min(10.0, max(2.0, timeout * 0.25))
    command = [
        python or sys.executable,
        # The project folder goes on sys.path where the server puts it (after the
        # installed packages), not first as the working folder would.
        "-P",
        "-m",
        "agent_tui.local.control_plane.build_check",
        "--json",
        "--timeout",
        f"{max(timeout - margin, timeout / 2):g}",
        str(config_path),
    ]
    options: dict[str, Any] = {
        "env": server_environment(os.environ, env),
        # Relative paths a graph opens at import resolve in the project, as with
        # `langgraph dev`.
        "cwd": config_path.parent if config_path.parent.is_dir() else None,
        "start_new_session": NEW_SESSION,
    }
    return config_path, command, options


async def _read_all(stream: asyncio.StreamReader, sink: bytearray) -> None:
    while chunk := await stream.read(1 << 16):
        sink.extend(chunk)


def _cannot_start(config_path: Path, python: str, exc: OSError) -> GraphCheck:
    message = f"cannot run {python}: {exc.strerror or exc}"
    return GraphCheck(False, [GraphProblem(None, None, None, message, config_path.parent)])


def _outcome(
    config_path: Path, out: bytes, err: bytes, returncode: int | None, timeout: float
) -> GraphCheck:
    """The check's result from the child's output; ``returncode`` None: it was killed."""
    project = config_path.parent
    problems: list[GraphProblem] = []
    warnings: list[str] = []
    reported: set[str] = set()
    imports: list[str] = []
    for line in out.decode(errors="replace").splitlines():
        record = _parse(line)
        if record is None:
            continue
        if isinstance(record.get("warning"), str):
            warnings.append(record["warning"])
            continue
        if isinstance(record.get("imports"), list):
            imports = [name for name in record["imports"] if isinstance(name, str)]
            continue
        graph = record.get("graph")
        if isinstance(graph, str):
            reported.add(graph)
        if record.get("ok") is True:
            continue
        file = record.get("file")
        line_number = record.get("line")
        problems.append(
            GraphProblem(
                graph if isinstance(graph, str) else None,
                Path(file) if isinstance(file, str) else None,
                line_number if isinstance(line_number, int) else None,
                str(record.get("message") or "did not load"),
                project,
            )
        )
    if returncode is None:
        graph = _first_unreported(config_path, reported)
        message = f"TimeoutError: importing the graphs took over {timeout:g} s"
        problems.append(GraphProblem(graph, None, None, message, project))
    elif returncode != 0:
        # A crash (a C extension's segfault, os._exit) leaves the graph it was importing
        # unreported: that is the one to blame.
        graph = _first_unreported(config_path, reported)
        if graph is not None or not problems:
            message = _crash_message(returncode, err)
            problems.append(GraphProblem(graph, None, None, message, project))
    return GraphCheck(returncode == 0 and not problems, problems, warnings, imports)


def _parse(line: str) -> dict[str, Any] | None:
    # Lines that are not the check's JSON objects (there should be none) are skipped.
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _first_unreported(config_path: Path, reported: set[str]) -> str | None:
    """The graph the child was on when it died: the first one it did not report."""
    # Read again, only after a crash or a hang: the child read the file at its start (it
    # is given the path), and the graphs' order is the file's as it read it.
    try:
        graph_ids = load_langgraph_config(config_path).graph_ids
    except LangGraphConfigError:
        return None
    return next((graph for graph in graph_ids if graph not in reported), None)


def _crash_message(returncode: int, err: bytes) -> str:
    if returncode < 0:
        try:
            how = f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            how = f"was killed by signal {-returncode}"
    else:
        how = f"exited with code {returncode}"
    last = next(
        (
            line.strip()
            for line in reversed(err.decode(errors="replace").splitlines())
            if line.strip()
        ),
        "",
    )
    return f"the graph check {how}" + (f": {last}" if last else "")


def _relative(file: Path, folder: Path | None) -> Path:
    if folder is not None:
        with contextlib.suppress(ValueError):
            return file.relative_to(folder)
    return file
