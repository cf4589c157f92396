"""Takes revisions through their statuses and runs one real agent server per deployment.

QUEUED → AWAITING_BUILD → BUILDING (the ``langgraph.json`` checked for what it may not
ask for, `config_rules`; the project's dependencies installed into its
environment with uv, `project_env`, in a child process: `environment_build`; then the
config is read and every graph imported with that environment's interpreter, in another
child process: `build_check`) → AWAITING_DEPLOY → DEPLOYING (an `EmbeddedAgentServer` on
that interpreter, with the revision's secrets as environment variables) → DEPLOYED once
`/ok` answers. Failures end in BUILD_FAILED or DEPLOY_FAILED, with the reason in the
revision's logs; uv's output goes there line by line while it installs. Every line
logged has the revision's secret values masked (`secret_values`).

The environment is the one `project_env` keeps for the project's ``langgraph.json`` (the
TUI running the same project uses it too): a server that starts again (a restart, the
active revision coming back after a failed deploy) checks it and rebuilds it when a
dependency file changed. An uploaded revision (the official CLI's tarball, unpacked in
``deployments/<id>/revisions/<rid>/source``) gets its own beside it, in ``…/<rid>/env``:
it goes with the deployment, and only while a revision needs it: when a revision
finishes, the uploaded sources of revisions other than the active one, the one deployed
before it and those still on their way are removed (`old_sources`). Both build
children (`build_children`) run in their own process
group, tied to the control plane (`parent_watch`): deleting a deployment during a build,
stopping the control plane, or the control plane dying kills the group, so uv, the graph
imports and whatever they started stop with it.

A deployment works on one revision at a time; a revision that a newer one superseded
before it deployed is SKIPPED. The new server replaces the old one in the same data
folder (threads survive) and, when it can, on the same port (the URL stays).

Whenever a deployment's server is down on purpose (a control plane restart, the gap
while a new revision's server replaces it) the deployment reports AWAITING_DATABASE with
no `custom_url` until a server answers again (on the old port when that is free, else a
new one): a client never gets a URL that nothing serves.

A deleted deployment's data folder (its server's threads, runs and log) is removed once
its server has stopped; folders a delete left behind go at the next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import traceback
import uuid
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agent_tui.client.models.control_plane import PENDING_REVISION_STATUSES, RevisionStatus
from agent_tui.local.control_plane.build_children import build_environment, check_build
from agent_tui.local.control_plane.config_rules import config_problems
from agent_tui.local.control_plane.deployment_tracing import record_tracing
from agent_tui.local.control_plane.env_names import reserved_because
from agent_tui.local.control_plane.old_sources import empty_removed, set_aside_sources
from agent_tui.local.control_plane.secret_values import redact, secret_values
from agent_tui.local.control_plane.store import Store, now
from agent_tui.local.control_plane.uploads import uploaded_revision_folder
from agent_tui.local.project_env.environment import EnvironmentBuildError
from agent_tui.local.supervisor.embedded_server import EmbeddedAgentServer
from agent_tui.local.supervisor.errors import EmbeddedServerError
from agent_tui.local.trace_collector.wiring import traced_deployment

logger = logging.getLogger(__name__)

READY_TIMEOUT = 60.0


class Deployer:
    def __init__(self, store: Store, data_dir: Path) -> None:
        self.store = store
        self.data_dir = data_dir
        self.servers: dict[str, EmbeddedAgentServer] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        # The port each deployment's server last had: a server that starts again tries it
        # first, so a URL a user saved keeps working.
        self._ports: dict[str, int] = {}
        # Each revision's secret values, kept out of its log lines (they never change).
        self._secret_values: dict[str, set[str]] = {}

    # -- lifecycle -----------------------------------------------------------------------

    async def resume(self) -> None:
        """After a restart: unfinished revisions are INTERRUPTED; deployed ones start again;
        deleted deployments' data folders left behind are removed."""
        await asyncio.to_thread(lambda: self._remove_folders(self._leftover_folders()))
        for deployment in self.store.deployments():
            set_aside_sources(self.store, self.data_dir, deployment["id"])
            await asyncio.to_thread(empty_removed, self.data_dir, deployment["id"])
        for _deployment_id, revision in self.store.all_revisions():
            if revision["status"] in PENDING_REVISION_STATUSES:
                self._set_status(revision, RevisionStatus.INTERRUPTED)
                self.store.append_logs(revision["id"], ["interrupted: the control plane stopped"])
        for deployment in self.store.deployments():
            active = deployment.get("active_revision_id") or self._last_deployed(deployment)
            if active:
                # Runs before the app serves: no request sees the old URL as READY.
                port = _port_of(deployment["source_config"].get("custom_url"))
                if port is not None:
                    self._ports[deployment["id"]] = port
                self._mark_down(deployment["id"])
                self._tasks[deployment["id"]] = asyncio.create_task(
                    self._restart(deployment["id"], active)
                )

    def _last_deployed(self, deployment: dict[str, Any]) -> str | None:
        """The newest DEPLOYED revision of a deployment that lost its active one, made active.

        Older versions could overwrite a finished deploy with a stale copy of the
        deployment (a PATCH whose body came late): its server would never come back.
        """
        deployed = [
            r
            for r in self.store.revisions(deployment["id"])
            if r["status"] == RevisionStatus.DEPLOYED
        ]
        if not deployed:
            return None
        deployment["active_revision_id"] = deployed[0]["id"]
        self.store.put_deployment(deployment)
        return str(deployed[0]["id"])

    async def aclose(self) -> None:
        for task in list(self._tasks.values()):
            task.cancel()
        for task in list(self._tasks.values()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await asyncio.gather(*(s.stop_async() for s in self.servers.values()))
        self.servers.clear()

    def submit(self, deployment_id: str, revision_id: str) -> None:
        """Start the pipeline of a new revision (it waits for the deployment's previous one)."""
        task = asyncio.create_task(self._run(deployment_id, revision_id))
        self._tasks[revision_id] = task
        task.add_done_callback(lambda _t: self._tasks.pop(revision_id, None))

    async def remove(self, deployment_id: str, revision_ids: list[str]) -> None:
        """Stop everything of a deleted deployment: its pipelines and its server."""
        for key in [deployment_id, *revision_ids]:
            self._secret_values.pop(key, None)
            task = self._tasks.pop(key, None)
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._ports.pop(deployment_id, None)
        server = self.servers.pop(deployment_id, None)
        if server is not None:
            await server.stop_async()
        # Its server's data (threads, runs, store) and log go with it, once it has let go.
        await asyncio.to_thread(self._remove_folders, [deployment_id])

    def _remove_folders(self, deployment_ids: list[str]) -> None:
        for deployment_id in deployment_ids:
            folder = self.data_dir / "deployments" / deployment_id
            try:
                shutil.rmtree(folder)
            except FileNotFoundError:
                pass
            except OSError as exc:
                logger.warning("cannot remove the data of deleted deployment %s: %s", folder, exc)

    def _leftover_folders(self) -> list[str]:
        """Data folders of deployments no longer stored (deleted by an older version, or
        while the control plane stopped half-way through a delete)."""
        try:
            entries = list(os.scandir(self.data_dir / "deployments"))
        except OSError:
            return []
        known = {deployment["id"] for deployment in self.store.deployments()}
        return [e.name for e in entries if _is_uuid(e.name) and e.name not in known]

    # -- the pipeline --------------------------------------------------------------------

    def _lock(self, deployment_id: str) -> asyncio.Lock:
        return self._locks.setdefault(deployment_id, asyncio.Lock())

    def _set_status(self, revision: dict[str, Any], status: RevisionStatus) -> None:
        revision["status"] = status.value  # the store holds plain JSON
        revision["updated_at"] = now()
        self.store.put_revision(revision)

    def _log(self, revision_id: str, *lines: str) -> None:
        """Append to a revision's log, its secret values masked (a graph may print them)."""
        values = self._secret_values.get(revision_id)
        if values is None:
            values = secret_values(self.store.revision_secrets(revision_id))
            self._secret_values[revision_id] = values
        self.store.append_logs(revision_id, [redact(line, values) for line in lines])

    def _secrets(self, revision_id: str) -> dict[str, str]:
        """The revision's secrets as environment variables, but those an older version
        stored that the allow rule refuses (`env_names`)."""
        secrets: dict[str, str] = {}
        for secret in self.store.revision_secrets(revision_id):
            name = secret["name"]
            if what := reserved_because(name):
                self._log(revision_id, f"secret {name!r} left out: it is reserved ({what})")
            else:
                secrets[name] = secret["value"]
        return secrets

    def _superseded(self, deployment_id: str, revision_id: str) -> bool:
        deployment = self.store.deployment(deployment_id)
        return deployment is None or deployment.get("latest_revision_id") != revision_id

    async def _run(self, deployment_id: str, revision_id: str) -> None:
        async with self._lock(deployment_id):
            revision = self.store.revision(deployment_id, revision_id)
            if revision is None:
                return
            try:
                await self._pipeline(deployment_id, revision)
            except asyncio.CancelledError:
                if self.store.revision(deployment_id, revision_id) is not None:
                    self._set_status(revision, RevisionStatus.INTERRUPTED)
                raise
            except Exception as exc:  # a bug here must not leave the revision pending
                values = secret_values(self.store.revision_secrets(revision_id))
                trace = redact("".join(traceback.format_exception(exc)), values)
                logger.error("revision %s failed: %s", revision_id, trace)
                self._log(revision_id, f"internal error: {type(exc).__name__}: {exc}")
                self._finish(deployment_id, revision, RevisionStatus.DEPLOY_FAILED)
            await asyncio.to_thread(empty_removed, self.data_dir, deployment_id)

    async def _pipeline(self, deployment_id: str, revision: dict[str, Any]) -> None:
        rid = revision["id"]
        if self._superseded(deployment_id, rid):
            self._log(rid, "skipped: a newer revision superseded this one")
            self._finish(deployment_id, revision, RevisionStatus.SKIPPED)
            return
        config_path = Path(revision["source_revision_config"]["langgraph_config_path"])
        self._set_status(revision, RevisionStatus.AWAITING_BUILD)
        self._set_status(revision, RevisionStatus.BUILDING)
        self._log(rid, f"building {config_path}")
        self._log(rid, *commands_not_run(self.store.deployment(deployment_id)))
        if refused := await asyncio.to_thread(self._config_problems, config_path):
            self._log(rid, *refused)
            self._finish(deployment_id, revision, RevisionStatus.BUILD_FAILED)
            return
        secrets = self._secrets(rid)
        try:
            python = await build_environment(
                config_path, partial(self._log, rid), self._env_dir(config_path)
            )
        except EnvironmentBuildError as exc:
            self._log(rid, *exc.lines, f"build failed: {exc.reason}")
            self._finish(deployment_id, revision, RevisionStatus.BUILD_FAILED)
            return
        ok, lines = await check_build(config_path, secrets, python)
        self._log(rid, *lines)
        if not ok:
            self._finish(deployment_id, revision, RevisionStatus.BUILD_FAILED)
            return
        self._set_status(revision, RevisionStatus.AWAITING_DEPLOY)
        if self._superseded(deployment_id, rid):
            self._log(rid, "skipped: a newer revision superseded this one")
            self._finish(deployment_id, revision, RevisionStatus.SKIPPED)
            return
        self._set_status(revision, RevisionStatus.DEPLOYING)
        try:
            server = await self._start_server(deployment_id, config_path, secrets, python)
        except EmbeddedServerError as exc:
            self._log(rid, f"deploy failed: {exc.reason}", *exc.log_lines)
            deployment = self.store.deployment(deployment_id)
            active = deployment.get("active_revision_id") if deployment else None
            if active:
                # The old server stopped to free the data folder: the active revision goes
                # on, before this one is reported failed (a client waiting for that then
                # finds the deployment serving again).
                await self._bring_back(deployment_id, active)
            self._finish(deployment_id, revision, RevisionStatus.DEPLOY_FAILED)
            return
        self._log(rid, f"agent server ready at {server.url}")
        self._finish(deployment_id, revision, RevisionStatus.DEPLOYED)
        self._mark_active(deployment_id, rid, server.url)

    def _env_dir(self, config_path: Path) -> Path | None:
        """Where an uploaded revision's environment goes: beside its unpacked source
        (``deployments/<id>/revisions/<rid>/env``), so it goes with the deployment. None
        (the user cache, shared with the TUI) for a ``langgraph.json`` on this machine."""
        folder = uploaded_revision_folder(self.data_dir, config_path)
        return folder / "env" if folder is not None else None

    def _config_problems(self, config_path: Path) -> list[str]:
        """What the revision's ``langgraph.json`` may not ask for (`config_rules`)."""
        folder = uploaded_revision_folder(self.data_dir, config_path)
        return config_problems(config_path, folder / "source" if folder is not None else None)

    def _finish(self, deployment_id: str, revision: dict[str, Any], status: RevisionStatus) -> None:
        """A revision's last status; with it, the uploaded sources no revision needs any
        more are set aside (`old_sources`): whoever sees the status sees them gone."""
        self._set_status(revision, status)
        set_aside_sources(self.store, self.data_dir, deployment_id)

    def _mark_down(self, deployment_id: str) -> None:
        """Not READY and no URL: its server is stopped or not answering yet."""
        deployment = self.store.deployment(deployment_id)
        if deployment is None:
            return
        deployment["status"] = "AWAITING_DATABASE"
        deployment["source_config"]["custom_url"] = None
        deployment["updated_at"] = now()
        self.store.put_deployment(deployment)

    async def _start_server(
        self,
        deployment_id: str,
        config_path: Path,
        env: dict[str, str],
        python: str,
    ) -> EmbeddedAgentServer:
        old = self.servers.pop(deployment_id, None)
        port = self._ports.get(deployment_id)
        if old is not None:
            # Same data folder: the old server must save and let go before the new one.
            self._mark_down(deployment_id)
            await old.stop_async()
        folder = self.data_dir / "deployments" / deployment_id
        tracing, traced = await asyncio.to_thread(traced_deployment, config_path, env)
        env = {**tracing, **env}
        # Where an app connected to this server finds whether its runs are traced here.
        await asyncio.to_thread(record_tracing, folder, traced)
        server = EmbeddedAgentServer(
            config_path,
            data_dir=folder / "server",
            log_file=folder / "server.log",
            env=env,
            port=port,
            python=python,
        )
        try:
            await asyncio.to_thread(server.start)
            await server.wait_until_ready_async(READY_TIMEOUT)
        except EmbeddedServerError:
            if port is None:
                raise
            await server.stop_async()  # it may have started before failing to answer
            # The old port may be taken meanwhile: any free port will do.
            server = EmbeddedAgentServer(
                config_path,
                data_dir=folder / "server",
                log_file=folder / "server.log",
                env=env,
                python=python,
            )
            await asyncio.to_thread(server.start)
            await server.wait_until_ready_async(READY_TIMEOUT)
        except BaseException:
            await server.stop_async()
            raise
        self.servers[deployment_id] = server
        if server.port is not None:
            self._ports[deployment_id] = server.port
        return server

    def _mark_active(self, deployment_id: str, revision_id: str, url: str) -> None:
        deployment = self.store.deployment(deployment_id)
        if deployment is None:
            return
        deployment["active_revision_id"] = revision_id
        deployment["status"] = "READY"
        deployment["source_config"]["custom_url"] = url
        deployment["updated_at"] = now()
        self.store.put_deployment(deployment)

    def _mark_unknown(self, deployment_id: str) -> None:
        """Its server could not be brought back: nothing answers at its URL."""
        deployment = self.store.deployment(deployment_id)
        if deployment is not None:
            deployment["status"] = "UNKNOWN"
            deployment["source_config"]["custom_url"] = None
            self.store.put_deployment(deployment)

    async def _restart(self, deployment_id: str, revision_id: str) -> None:
        async with self._lock(deployment_id):
            await self._bring_back(deployment_id, revision_id)

    async def _bring_back(self, deployment_id: str, revision_id: str) -> None:
        """Start the server of an already deployed revision again (after a restart or a failure)."""
        revision = self.store.revision(deployment_id, revision_id)
        if revision is None:
            return
        path = Path(revision["source_revision_config"]["langgraph_config_path"])
        if refused := await asyncio.to_thread(self._config_problems, path):
            self._log(revision_id, *(line.replace("build", "restart", 1) for line in refused))
            self._mark_unknown(deployment_id)
            return
        secrets = self._secrets(revision_id)
        try:
            # Cheap when nothing changed; rebuilt when a dependency file did meanwhile.
            python = await build_environment(
                path, partial(self._log, revision_id), self._env_dir(path)
            )
            server = await self._start_server(deployment_id, path, secrets, python)
        except (EmbeddedServerError, EnvironmentBuildError) as exc:
            more = exc.log_lines if isinstance(exc, EmbeddedServerError) else exc.lines
            self._log(revision_id, f"restart failed: {exc.reason}", *more)
            self._mark_unknown(deployment_id)
            return
        self._log(revision_id, f"restarted at {server.url}")
        self._mark_active(deployment_id, revision_id, server.url)


def commands_not_run(deployment: dict[str, Any] | None) -> list[str]:
    """What the build says of `source_config.install_command` / `build_command`: kept on
    the deployment, not run. The spec has them for JS deployments only (LangSmith runs the
    install from the archive's root, the build beside langgraph.json); this control plane
    builds Python graphs, from langgraph.json's dependencies with uv."""
    source_config = (deployment or {}).get("source_config") or {}
    lines = []
    for key in ("install_command", "build_command"):
        command = source_config.get(key)
        if isinstance(command, str) and command:
            lines.append(
                f"{key} {command!r} not run: it applies to JS deployments only, and this "
                "control plane builds Python graphs (their dependencies come from "
                "langgraph.json, installed with uv)"
            )
    return lines


def _port_of(url: object) -> int | None:
    """The port of a stored `custom_url` (None when there is none or it is malformed)."""
    if not isinstance(url, str):
        return None
    try:
        return urlsplit(url).port
    except ValueError:
        return None


def _is_uuid(name: str) -> bool:
    try:
        return str(uuid.UUID(name)) == name
    except ValueError:
        return False
