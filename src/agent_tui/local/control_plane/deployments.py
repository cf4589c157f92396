"""`/v2/deployments` handlers: the documents they store and the revisions they start."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from agent_tui.local.control_plane.deployer import Deployer
from agent_tui.local.control_plane.store import Store, now
from agent_tui.local.control_plane.validation import (
    DeploymentCreate,
    DeploymentPatch,
    SourceRevisionConfigIn,
    check_uuid,
    parse_body,
    query_int,
)

SUPPORTED = (
    'the local control plane deploys only source "internal_source" with '
    "source_revision_config.langgraph_config_path set to a langgraph.json on this machine"
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
    path = merged.get("langgraph_config_path")
    if not path:
        raise HttpError(
            400, f"source_revision_config.langgraph_config_path is required: {SUPPORTED}"
        )
    merged["langgraph_config_path"] = str(Path(path).expanduser().resolve())
    merged.setdefault("repo_commit_sha", None)
    return merged


def _page(request: Request) -> tuple[int, int]:
    limit = query_int(request.query_params, "limit", 20, low=1, high=100)
    offset = query_int(request.query_params, "offset", 0, low=0)
    return limit, offset


class DeploymentRoutes:
    def __init__(self, store: Store, deployer: Deployer) -> None:
        self.store = store
        self.deployer = deployer

    def _deployment(self, request: Request) -> dict[str, Any]:
        deployment_id = check_uuid(request.path_params["deployment_id"], "deployment_id")
        deployment = self.store.deployment(deployment_id)
        if deployment is None:
            raise not_found(deployment_id)
        return deployment

    def _new_revision(
        self, deployment: dict[str, Any], source: str, secrets: list[dict[str, str]]
    ) -> None:
        stamp = now()
        revision_id = str(uuid.uuid4())
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
        limit, offset = _page(request)
        params = request.query_params
        name = (params.get("name_contains") or "").casefold()
        status = params.get("status")
        kind = params.get("deployment_type")
        ids = {i.strip() for i in (params.get("deployment_ids") or "").split(",") if i.strip()}
        found = [
            d
            for d in self.store.deployments()
            if name in d["name"].casefold()
            and (not status or d["status"] == status)
            and (not kind or d["source_config"].get("deployment_type") == kind)
            and (not ids or d["id"] in ids)
        ]
        return JSONResponse({"resources": found[offset : offset + limit], "offset": offset})

    async def create(self, request: Request) -> Response:
        body = parse_body(DeploymentCreate, await request.body())
        if body.source != "internal_source":
            raise HttpError(400, f'source "{body.source}" is not supported: {SUPPORTED}')
        stamp = now()
        source_config = body.source_config.model_dump(mode="json")
        source_config["custom_url"] = None  # set to the agent server's URL once deployed
        secrets = [s.model_dump() for s in body.secrets]
        deployment = {
            "id": str(uuid.uuid4()),
            "name": body.name,
            "source": body.source,
            "source_config": source_config,
            "source_revision_config": _revision_config(body.source_revision_config, {}),
            "secrets": secrets,
            "secret_references": body.secret_references,
            "tenant_id": self.store.tenant_id(),
            "created_at": stamp,
            "updated_at": stamp,
            "status": "AWAITING_DATABASE",
            "latest_revision_id": None,
            "active_revision_id": None,
            "image_version": None,
        }
        self.store.put_deployment(deployment)
        self._new_revision(deployment, body.source, secrets)
        return JSONResponse(deployment, status_code=201)

    async def get(self, request: Request) -> Response:
        return JSONResponse(self._deployment(request))

    async def patch(self, request: Request) -> Response:
        deployment = self._deployment(request)
        body = parse_body(DeploymentPatch, await request.body())
        source = body.revision_source or deployment["source"]
        if source != "internal_source":
            raise HttpError(400, f'revision_source "{source}" is not supported: {SUPPORTED}')
        new_revision = False
        if body.source_config is not None:
            changes = body.source_config.model_dump(mode="json", exclude_none=True)
            changes.pop("custom_url", None)  # ours: the running server's URL
            deployment["source_config"].update(changes)
            new_revision = "resource_spec" in changes
        if body.source_revision_config is not None:
            deployment["source_revision_config"] = _revision_config(
                body.source_revision_config, deployment["source_revision_config"]
            )
            new_revision = True
        if body.secrets is not None:
            deployment["secrets"] = [s.model_dump() for s in body.secrets]
            new_revision = True
        if body.secret_references is not None:
            deployment["secret_references"] = body.secret_references
        deployment["updated_at"] = now()
        self.store.put_deployment(deployment)
        if new_revision:
            self._new_revision(deployment, source, deployment["secrets"])
        return JSONResponse(deployment)

    async def delete(self, request: Request) -> Response:
        deployment = self._deployment(request)
        revisions = [r["id"] for r in self.store.revisions(deployment["id"])]
        await self.deployer.remove(deployment["id"], revisions)
        self.store.delete_deployment(deployment["id"])
        return Response(status_code=204)

    async def revisions(self, request: Request) -> Response:
        deployment = self._deployment(request)
        limit, offset = _page(request)
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

    async def logs(self, request: Request) -> Response:
        _, revision = self._revision(request)
        return JSONResponse(
            {
                "revision_id": revision["id"],
                "status": revision["status"],
                "lines": self.store.logs(revision["id"]),
            }
        )

    async def redeploy(self, request: Request) -> Response:
        """A new revision with that revision's config and secrets."""
        deployment, revision = self._revision(request)
        deployment["source_revision_config"] = dict(revision["source_revision_config"])
        secrets = self.store.revision_secrets(revision["id"])
        deployment["secrets"] = secrets
        self._new_revision(deployment, revision["source"], secrets)
        return JSONResponse(deployment)
