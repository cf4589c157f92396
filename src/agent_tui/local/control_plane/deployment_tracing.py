"""Whether a local control plane's deployment traces to this machine, as its deployer
started it, for the app connected to that deployment's agent server. Headless.

The deployer starts each deployment's server tracing to agent-tui's collector unless
tracing is off or the project (its ``env`` or its secrets) sets its own
(`trace_collector.wiring.traced_deployment`), and notes which in the deployment's folder
(`record_tracing`). An app connected to an agent server by its URL finds the deployment
serving there among the control plane's (the server's note in its data folder,
`supervisor.lock`, says where it answers while it runs) and reads that note
(`tracing_at`): agent-tui started that server, so the Calls tab says so instead of "not
started here".
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from pathlib import Path
from typing import get_args

from agent_tui.local.supervisor.lock import running_server
from agent_tui.settings.atomic_file import write_private_text
from agent_tui.traces.untraced import ServerTracing

TRACING_FILE = "tracing"
"""In ``deployments/<id>/``, beside its server's data folder: one `ServerTracing` word."""


def record_tracing(deployment_folder: Path, tracing: ServerTracing) -> None:
    """Note how the deployment's server (started now) traces."""
    write_private_text(deployment_folder / TRACING_FILE, tracing)


def tracing_at(url: str, control_plane_folders: Iterable[Path]) -> ServerTracing | None:
    """How the agent server at ``url`` traces, when it is a running deployment of a local
    control plane of one of ``control_plane_folders`` (their data folders); else None.
    Blocking (a few small files): call it from a thread."""
    wanted = url.rstrip("/")
    for folder in dict.fromkeys(control_plane_folders):
        with contextlib.suppress(OSError):
            for deployment in (folder / "deployments").iterdir():
                running = running_server(deployment / "server")
                if running is None or (running.url or "").rstrip("/") != wanted:
                    continue
                return _read(deployment / TRACING_FILE)
    return None


def deployment_tracing(url: str, control_plane_folder: Path | None) -> ServerTracing | None:
    """`tracing_at` among the deployments of the app's local control plane (its data
    folder, when it has one) and of the default one."""
    from agent_tui.settings.paths import control_plane_data_dir

    return tracing_at(url, [*filter(None, [control_plane_folder]), control_plane_data_dir()])


_WORDS: dict[str, ServerTracing] = {word: word for word in get_args(ServerTracing)}


def _read(path: Path) -> ServerTracing | None:
    try:
        return _WORDS.get(path.read_text(encoding="utf-8").strip())
    except OSError:
        return None  # deployed by a version that kept no note: unknown
