"""`/v2/deployments` handlers: the documents they store and the revisions they start."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path, PurePosixPath
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from agent_tui.client.models.deployment_request import SecretReferenceIn, SourceRevisionConfigIn
from agent_tui.local.control_plane import revision_logs
from agent_tui.local.control_plane.deployer import Deployer
from agent_tui.local.control_plane.list_queries import bulk_ids, page
from agent_tui.local.control_plane.requests import (
    LocalDeploymentCreate,
    LocalDeploymentPatch,
    spec_source_config,
)
from agent_tui.local.control_plane.secret_values import (
    MaskedValueUnknown,
    public_deployment,
    redact,
    secret_values,
    unmasked,
)
from agent_tui.local.control_plane.store import Store, now
from agent_tui.local.control_plane.tenancy import request_tenant, visible
from agent_tui.local.control_plane.uploads import (
    UploadError,
    Uploads,
    remove_unpacked,
    revision_source_folder,
    unpack,
    uploaded_revision_folder,
)
from agent_tui.local.control_plane.validation import (
    InvalidRequest,
    check_config_path,
    check_deployment_fields,
    check_uuid,
    parse_body,
    read_body,
)

SUPPORTED = (
    'the local control plane deploys only source "internal_source": '
    "source_revision_config.langgraph_config_path set to a langgraph.json on this machine, "
    "or source_tarball_path set to an upload (POST .../upload-url) and "
    "langgraph_config_path to the langgraph.json inside it"
)


class HttpError(Exception):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


def not_found(deployment_id: str) -> HttpError:
    return HttpError(404, f"Deployment ID {deployment_id} not found.")


def _revision_config(config: SourceRevisionConfigIn, base: dict[str, Any]) -> dict[str, Any]:
    merged = {**base, **config.model_dump(exclude_none=True)}
    if config.source_tarball_path is None:
        merged.pop("source_tarball_path", None)  # a path on this machine again
    path = merged.get("langgraph_config_path")
    if not path:
        raise HttpError(
            400, f"source_revision_config.langgraph_config_path is required: {SUPPORTED}"
        )
    merged["langgraph_config_path"] = check_config_path(
        path, ["body", "source_revision_config", "langgraph_config_path"]
    )
    merged.setdefault("repo_commit_sha", None)
    return merged


def _unmasked(
    given: list[dict[str, str]], stored: list[dict[str, Any]] | None
) -> list[dict[str, str]]:
    """Secrets sent back with the mask an answer gave keep their stored value (a 422 for
    a name that has none)."""
    try:
        return unmasked(given, stored)
    except MaskedValueUnknown as exc:
        raise InvalidRequest(
            [
                {
                    "loc": ["body", "secrets", exc.index, "value"],
                    "msg": f"The value of the secret {exc.name} is the mask answers show in "
                    "place of values, and no value is stored under that name: send the value",
                    "type": "value_error",
                }
            ]
        ) from None


def _dumped(references: list[SecretReferenceIn] | None) -> list[dict[str, Any]] | None:
    return None if references is None else [r.model_dump() for r in references]


def _config_in_archive(path: str | None) -> str:
    """The archive-relative ``langgraph.json`` path of a tarball revision."""
    parts = PurePosixPath(path or "").parts
    if not path or path.startswith("/") or ".." in parts or "\0" in path:
        raise HttpError(
            400,
            "source_revision_config.langgraph_config_path must name the langgraph.json "
            "inside the uploaded archive (a relative path within it)",
        )
    return path


class DeploymentRoutes:
    def __init__(self, store: Store, deployer: Deployer, uploads: Uploads) -> None:
        self.store = store
        self.deployer = deployer
        self.uploads = uploads

    def _deployment(self, request: Request) -> dict[str, Any]:
        """The path's deployment, when the request's workspace sees it (else a 404)."""
        deployment_id = check_uuid(request.path_params["deployment_id"], "deployment_id")
        deployment = self.store.deployment(deployment_id)
        if deployment is None or not visible(deployment, request_tenant(request)):
            raise not_found(deployment_id)
        return deployment

    def _new_revision(
        self,
        deployment: dict[str, Any],
        source: str,
        secrets: list[dict[str, str]],
        revision_id: str | None = None,
    ) -> None:
        stamp = now()
        revision_id = revision_id or str(uuid.uuid4())
        revision: dict[str, Any] = {
            "id": revision_id,
            "created_at": stamp,
            "updated_at": stamp,
            "status": "QUEUED",
            "source": source,
            "source_revision_config": dict(deployment["source_revision_config"]),
        }
        self.store.add_revision(deployment["id"], revision, secrets)
        self.store.append_logs(revision_id, [f"queued {stamp}"])
        deployment["latest_revision_id"] = revision_id
        deployment["updated_at"] = stamp
        self.store.put_deployment(deployment)
        self.deployer.submit(deployment["id"], revision_id)

    async def index(self, request: Request) -> Response:
        limit, offset = page(request)
        params = request.query_params
        name = (params.get("name_contains") or "").casefold()
        status = params.get("status")
        kind = params.get("deployment_type")
        ids = {i.strip() for i in (params.get("deployment_ids") or "").split(",") if i.strip()}
        tenant = request_tenant(request)
        found = [
            public_deployment(d)
            for d in self.store.deployments()
            if visible(d, tenant)
            and name in d["name"].casefold()
            and (not status or d["status"] == status)
            and (not kind or d["source_config"].get("deployment_type") == kind)
            and (not ids or d["id"] in ids)
        ]
        return JSONResponse({"resources": found[offset : offset + limit], "offset": offset})

    async def create(self, request: Request) -> Response:
        body = parse_body(LocalDeploymentCreate, await read_body(request))
        check_deployment_fields(body.name, [secret.name for secret in body.secrets])
        tenant = request_tenant(request)
        if body.source != "internal_source":
            raise HttpError(400, f'source "{body.source}" is not supported: {SUPPORTED}')
        stamp = now()
        source_config = spec_source_config(body.source_config.model_dump(mode="json"))
        source_config["custom_url"] = None  # set to the agent server's URL once deployed
        secrets = _unmasked([s.model_dump() for s in body.secrets], None)
        given = body.source_revision_config
        if given.source_tarball_path is not None:
            raise HttpError(
                400,
                "source_tarball_path names an upload, which needs the deployment: create it "
                "without one, then POST .../upload-url and PATCH",
            )
        # Without a config the deployment waits for its source (the CLI's remote build
        # creates it empty, then uploads a tarball and PATCHes).
        waiting = given.langgraph_config_path is None
        deployment = {
            "id": str(uuid.uuid4()),
            "name": body.name,
            "source": body.source,
            "source_config": source_config,
            "source_revision_config": {} if waiting else _revision_config(given, {}),
            "secrets": secrets,
            "secret_references": _dumped(body.secret_references),
            "tenant_id": tenant or self.store.tenant_id(),
            "created_at": stamp,
            "updated_at": stamp,
            "status": "AWAITING_DATABASE",
            "latest_revision_id": None,
            "active_revision_id": None,
            "image_version": None,
        }
        self.store.put_deployment(deployment)
        if not waiting:
            self._new_revision(deployment, body.source, secrets)
        return JSONResponse(public_deployment(deployment), status_code=201)

    async def get(self, request: Request) -> Response:
        return JSONResponse(public_deployment(self._deployment(request)))

    async def patch(self, request: Request) -> Response:
        check_uuid(request.path_params["deployment_id"], "deployment_id")
        body = parse_body(LocalDeploymentPatch, await read_body(request))
        check_deployment_fields(
            None, None if body.secrets is None else [s.name for s in body.secrets]
        )
        given = body.source_revision_config
        if given is None or given.source_tarball_path is None:
            return self._patched(request, body, given, None)
        # Unpacked into the new revision's own folder before the deployment is read for
        # the update (unpacking awaits); removed again when the update is refused.
        tarball_revision = str(uuid.uuid4())
        given, folder = await self._unpack(request, given, tarball_revision)
        try:
            return self._patched(request, body, given, tarball_revision)
        except BaseException:
            remove_unpacked(folder)
            raise

    def _patched(
        self,
        request: Request,
        body: LocalDeploymentPatch,
        given: SourceRevisionConfigIn | None,
        tarball_revision: str | None,
    ) -> Response:
        # Nothing awaits here: the deployment is read, changed and stored in one step, so
        # a concurrent PATCH or the deployer's own updates (its URL, its status) are
        # never overwritten by a stale copy.
        deployment = self._deployment(request)
        source = body.revision_source or deployment["source"]
        if source != "internal_source":
            raise HttpError(400, f'revision_source "{source}" is not supported: {SUPPORTED}')
        revision_config = (
            _revision_config(given, deployment["source_revision_config"])
            if given is not None
            else None
        )
        new_revision = False
        if body.source_config is not None:
            changes = spec_source_config(
                body.source_config.model_dump(mode="json", exclude_none=True)
            )
            changes.pop("custom_url", None)  # ours: the running server's URL
            deployment["source_config"].update(changes)
            new_revision = "resource_spec" in changes
        if revision_config is not None:
            deployment["source_revision_config"] = revision_config
            new_revision = True
        if body.secrets is not None:
            given_secrets = [s.model_dump() for s in body.secrets]
            deployment["secrets"] = _unmasked(given_secrets, deployment["secrets"])
            new_revision = True
        if body.secret_references is not None:
            deployment["secret_references"] = _dumped(body.secret_references)
        deployment["updated_at"] = now()
        self.store.put_deployment(deployment)
        # A deployment still waiting for its source keeps the changes for its first one.
        if new_revision and deployment["source_revision_config"].get("langgraph_config_path"):
            self._new_revision(deployment, source, deployment["secrets"], tarball_revision)
        return JSONResponse(public_deployment(deployment))

    async def _unpack(
        self, request: Request, given: SourceRevisionConfigIn, revision_id: str
    ) -> tuple[SourceRevisionConfigIn, Path]:
        """Unpack the named upload into the revision's folder; the config with the
        ``langgraph.json`` path made the one in that folder, and the folder."""
        deployment = self._deployment(request)
        relative = _config_in_archive(given.langgraph_config_path)
        assert given.source_tarball_path is not None
        folder = revision_source_folder(self.deployer.data_dir, deployment["id"], revision_id)
        try:
            tarball = self.uploads.accepted(given.source_tarball_path, deployment["id"])
            await asyncio.to_thread(unpack, tarball, folder)
        except UploadError as exc:
            raise HttpError(exc.status, exc.detail) from None
        path = str(folder / relative)
        return given.model_copy(update={"langgraph_config_path": path}), folder

    async def delete(self, request: Request) -> Response:
        deployment = self._deployment(request)
        await self._remove([deployment["id"]])
        return Response(status_code=204)

    async def upload_url(self, request: Request) -> Response:
        """A one-time URL on this control plane the project's tarball is PUT to."""
        deployment = self._deployment(request)
        return JSONResponse(self.uploads.grant(request, deployment["id"]))

    async def upload(self, request: Request) -> Response:
        return await self.uploads.receive(request, lambda i: self.store.deployment(i) is not None)

    async def delete_many(self, request: Request) -> Response:
        """Bulk delete: 200 when every one was deleted, 207 when some were not found (the
        answer lists both), 404 when none was."""
        ids = bulk_ids(request)
        tenant = request_tenant(request)
        found = [
            i for i in ids if (d := self.store.deployment(i)) is not None and visible(d, tenant)
        ]
        missing = [i for i in ids if i not in found]
        if not found:
            if len(missing) == 1:
                raise not_found(missing[0])
            raise HttpError(404, f"Deployment IDs {', '.join(missing)} not found.")
        await self._remove(found)
        failed = [{"deployment_id": i, "detail": not_found(i).detail} for i in missing]
        return JSONResponse(
            {"deleted": found, "failed": failed}, status_code=207 if missing else 200
        )

    async def _remove(self, deployment_ids: list[str]) -> None:
        """Delete deployments, then stop their pipelines (builds killed) and servers."""
        revisions = {i: [r["id"] for r in self.store.revisions(i)] for i in deployment_ids}
        for deployment_id in deployment_ids:
            # Gone from the state first: a request arriving while the servers stop gets a
            # 404 rather than starting a revision for a deployment being deleted.
            self.store.delete_deployment(deployment_id)
            self.uploads.forget(deployment_id)
        await asyncio.gather(*(self.deployer.remove(i, revisions[i]) for i in deployment_ids))

    async def revisions(self, request: Request) -> Response:
        deployment = self._deployment(request)
        limit, offset = page(request)
        wanted = {s.strip() for s in (request.query_params.get("status") or "").split(",")}
        wanted.discard("")
        found = [
            r for r in self.store.revisions(deployment["id"]) if not wanted or r["status"] in wanted
        ]
        return JSONResponse({"resources": found[offset : offset + limit], "offset": offset})

    def _revision(self, request: Request) -> tuple[dict[str, Any], dict[str, Any]]:
        deployment = self._deployment(request)
        revision_id = check_uuid(request.path_params["revision_id"], "revision_id")
        revision = self.store.revision(deployment["id"], revision_id)
        if revision is None:
            raise HttpError(404, f"Revision ID {revision_id} not found.")
        return deployment, revision

    async def revision(self, request: Request) -> Response:
        return JSONResponse(self._revision(request)[1])

    def _revision_lines(self, revision_id: str) -> list[str]:
        """A revision's log lines, its secret values masked (also in lines stored before
        they were masked when written)."""
        values = secret_values(self.store.revision_secrets(revision_id))
        return [redact(line, values) for line in self.store.logs(revision_id)]

    async def logs(self, request: Request) -> Response:
        _, revision = self._revision(request)
        return JSONResponse(
            {
                "revision_id": revision["id"],
                "status": revision["status"],
                "lines": self._revision_lines(revision["id"]),
            }
        )

    async def build_logs(self, request: Request) -> Response:
        """The CLI's ``/v1/projects/{id}/revisions/{rid}/build_logs``: a revision's lines."""
        _, revision = self._revision(request)
        entries = revision_logs.build_entries(revision, self._revision_lines(revision["id"]))
        return await revision_logs.answer(entries, request)

    async def deploy_logs(self, request: Request) -> Response:
        """The CLI's ``…/deploy_logs``: what the deployment's agent server wrote."""
        if "revision_id" in request.path_params:
            deployment, _ = self._revision(request)
        else:
            deployment = self._deployment(request)
        log_file = self.deployer.data_dir / "deployments" / deployment["id"] / "server.log"
        entries = await asyncio.to_thread(revision_logs.server_entries, log_file)
        # The server ran with the secrets of any of its revisions: none is served.
        values = set().union(
            *(
                secret_values(self.store.revision_secrets(r["id"]))
                for r in self.store.revisions(deployment["id"])
            )
        )
        for entry in entries:
            entry["message"] = redact(entry["message"], values)
        return await revision_logs.answer(entries, request)

    async def redeploy(self, request: Request) -> Response:
        """A new revision with that revision's config and secrets; a 409 for an uploaded
        revision whose unpacked source was removed (see `old_sources`)."""
        deployment, revision = self._revision(request)
        config_path = Path(revision["source_revision_config"]["langgraph_config_path"])
        folder = uploaded_revision_folder(self.deployer.data_dir, config_path)
        if folder is not None and not (folder / "source").is_dir():
            raise HttpError(
                409,
                f"Revision {revision['id']} cannot be redeployed: its uploaded source was "
                "removed (the local control plane keeps the uploaded source of the active "
                "revision and the one deployed before it only). Upload the project again "
                "(langgraph deploy, agent-tui deploy) to make a new revision.",
            )
        deployment["source_revision_config"] = dict(revision["source_revision_config"])
        secrets = self.store.revision_secrets(revision["id"])
        deployment["secrets"] = secrets
        self._new_revision(deployment, revision["source"], secrets)
        return JSONResponse(public_deployment(deployment))
