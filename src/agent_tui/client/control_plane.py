"""`ControlPlaneClient`: the LangSmith Deployment control plane (`/v2`), on `Transport`.

The base URL may carry a path prefix (self-hosted LangSmith serves the API under
`/api-host`); every path here is appended to it. Any one of the API key, the bearer
token and the workspace (tenant) id may authorise a request; a 403 that asks for a
workspace raises `Forbidden` whose message says to set the tenant id.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import httpx

from agent_tui.client.control_plane_logs import LogsClient, UploadsClient
from agent_tui.client.errors import ApiError
from agent_tui.client.models.control_plane import (
    Deployment,
    DeploymentsPage,
    OAuthProvider,
    Revision,
    RevisionLogs,
    RevisionsPage,
    Secret,
)
from agent_tui.client.models.deployment_request import (
    DeploymentCreate,
    DeploymentPatch,
    request_body,
)
from agent_tui.client.transport import ApiClient, Credentials, RetryPolicy, Transport, compact
from agent_tui.client.url_path import segment

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
DEFAULT_WAIT_TIMEOUT = 30 * 60.0
"""Cloud builds take minutes; the official CLI waits this long too."""


class RevisionWaitTimedOut(ApiError):
    """`wait_for_revision` saw no terminal status within its timeout."""

    title = "The revision did not finish in time"


def _secrets(secrets: Sequence[Secret | Mapping[str, str]] | None) -> list[dict[str, Any]] | None:
    if secrets is None:
        return None
    return [s.raw() if isinstance(s, Secret) else dict(s) for s in secrets]


class DeploymentsClient:
    def __init__(self, transport: Transport) -> None:
        self._http = transport

    async def list(
        self,
        name_contains: str | None = None,
        status: str | None = None,
        deployment_type: str | None = None,
        limit: int = DEFAULT_PAGE_SIZE,
        offset: int = 0,
    ) -> DeploymentsPage:
        params = compact(
            name_contains=name_contains,
            status=status,
            deployment_type=deployment_type,
            limit=limit,
            offset=offset,
        )
        return await self._http.request_as(DeploymentsPage, "GET", "/v2/deployments", params=params)

    async def iter_all(
        self,
        name_contains: str | None = None,
        status: str | None = None,
        deployment_type: str | None = None,
        page_size: int = MAX_PAGE_SIZE,
    ) -> AsyncIterator[Deployment]:
        """Every matching deployment, fetching one page at a time."""
        offset = 0
        while True:
            page = await self.list(name_contains, status, deployment_type, page_size, offset)
            for deployment in page.resources:
                yield deployment
            if len(page.resources) < page_size:
                return
            offset += len(page.resources)

    async def create(
        self,
        request: DeploymentCreate | str,
        *,
        source: str = "internal_source",
        source_config: Mapping[str, Any] | None = None,
        source_revision_config: Mapping[str, Any] | None = None,
        secrets: Sequence[Secret | Mapping[str, str]] = (),
        secret_references: Sequence[Mapping[str, Any]] | None = None,
    ) -> Deployment:
        """`POST /v2/deployments` (201); its first revision is `latest_revision_id`.

        Give a `DeploymentCreate` (the form does), or a name and the fields as keywords;
        either way the body is shaped and checked by that one model (pydantic's
        `ValidationError` before anything is sent)."""
        if isinstance(request, str):
            request = DeploymentCreate.model_validate(
                compact(
                    name=request,
                    source=source,
                    source_config=dict(source_config or {}),
                    source_revision_config=dict(source_revision_config or {}),
                    secrets=_secrets(secrets),
                    secret_references=[dict(r) for r in secret_references]
                    if secret_references is not None
                    else None,
                )
            )
        body = request_body(request)
        return await self._http.request_as(Deployment, "POST", "/v2/deployments", json=body)

    async def get(self, deployment_id: str) -> Deployment:
        return await self._http.request_as(
            Deployment, "GET", f"/v2/deployments/{segment(deployment_id)}"
        )

    async def patch(
        self,
        deployment_id: str,
        request: DeploymentPatch | None = None,
        *,
        source_config: Mapping[str, Any] | None = None,
        source_revision_config: Mapping[str, Any] | None = None,
        secrets: Sequence[Secret | Mapping[str, str]] | None = None,
        revision_source: str | None = None,
        secret_references: Sequence[Mapping[str, Any]] | None = None,
    ) -> Deployment:
        """`PATCH`: a new revision only when secrets, resource_spec or the revision config change.

        Give a `DeploymentPatch`, or the fields to change as keywords (only those are sent)."""
        if request is None:
            request = DeploymentPatch.model_validate(
                compact(
                    source_config=dict(source_config) if source_config is not None else None,
                    source_revision_config=dict(source_revision_config)
                    if source_revision_config is not None
                    else None,
                    secrets=_secrets(secrets),
                    revision_source=revision_source,
                    secret_references=[dict(r) for r in secret_references]
                    if secret_references is not None
                    else None,
                )
            )
        body = request_body(request)
        return await self._http.request_as(
            Deployment, "PATCH", f"/v2/deployments/{segment(deployment_id)}", json=body
        )

    async def delete(self, deployment_id: str, *, delete_tracing_project: bool = False) -> None:
        """`DELETE` (204, no body)."""
        params = {"delete_tracing_project": "true"} if delete_tracing_project else None
        await self._http.request(
            "DELETE", f"/v2/deployments/{segment(deployment_id)}", params=params
        )


class RevisionsClient:
    def __init__(self, transport: Transport) -> None:
        self._http = transport

    async def list(
        self,
        deployment_id: str,
        limit: int = DEFAULT_PAGE_SIZE,
        offset: int = 0,
        status: str | Sequence[str] | None = None,
    ) -> RevisionsPage:
        """Newest first; `status` filters by one status or several."""
        if status is not None and not isinstance(status, str):
            status = ",".join(status)
        params = compact(limit=limit, offset=offset, status=status)
        return await self._http.request_as(
            RevisionsPage,
            "GET",
            f"/v2/deployments/{segment(deployment_id)}/revisions",
            params=params,
        )

    async def get(self, deployment_id: str, revision_id: str) -> Revision:
        return await self._http.request_as(
            Revision,
            "GET",
            f"/v2/deployments/{segment(deployment_id)}/revisions/{segment(revision_id)}",
        )

    async def redeploy(self, deployment_id: str, revision_id: str) -> Deployment:
        """Deploy an older revision again (a new revision with its config)."""
        return await self._http.request_as(
            Deployment,
            "POST",
            f"/v2/deployments/{segment(deployment_id)}/revisions/{segment(revision_id)}/redeploy",
        )

    async def logs(self, deployment_id: str, revision_id: str) -> RevisionLogs:
        """Build and deploy log lines (the local control plane's `…/logs`); prefer
        `ControlPlaneClient.logs.revision_log`, which reads what LangSmith serves."""
        return await self._http.request_as(
            RevisionLogs,
            "GET",
            f"/v2/deployments/{segment(deployment_id)}/revisions/{segment(revision_id)}/logs",
        )


class AuthProvidersClient:
    def __init__(self, transport: Transport) -> None:
        self._http = transport

    async def list(self) -> list[OAuthProvider]:
        return await self._http.request_as(list[OAuthProvider], "GET", "/v2/auth/providers")

    async def get(self, provider_id: str) -> OAuthProvider:
        return await self._http.request_as(
            OAuthProvider, "GET", f"/v2/auth/providers/{segment(provider_id)}"
        )

    async def create(
        self,
        provider_id: str,
        name: str,
        client_id: str,
        auth_url: str,
        token_url: str,
        *,
        client_secret: str | None = None,
        uses_pkce: bool | None = None,
        code_challenge_method: str | None = None,
        provider_type: str | None = None,
        token_endpoint_auth_method: str | None = None,
    ) -> OAuthProvider:
        body = compact(
            provider_id=provider_id,
            name=name,
            client_id=client_id,
            auth_url=auth_url,
            token_url=token_url,
            client_secret=client_secret,
            uses_pkce=uses_pkce,
            code_challenge_method=code_challenge_method,
            provider_type=provider_type,
            token_endpoint_auth_method=token_endpoint_auth_method,
        )
        return await self._http.request_as(OAuthProvider, "POST", "/v2/auth/providers", json=body)

    async def patch(self, provider_id: str, **changes: Any) -> OAuthProvider:
        """`PATCH`: name, client_id, client_secret, auth_url, token_url, uses_pkce, …"""
        return await self._http.request_as(
            OAuthProvider,
            "PATCH",
            f"/v2/auth/providers/{segment(provider_id)}",
            json=compact(**changes),
        )

    async def delete(self, provider_id: str) -> Any:
        """`DELETE` (200 with any JSON, usually `{"message": …}`)."""
        return await self._http.request_json("DELETE", f"/v2/auth/providers/{segment(provider_id)}")


class ControlPlaneClient(ApiClient):
    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        tenant_id: str | None = None,
        bearer_token: str | None = None,
        headers: Mapping[str, str] | None = None,
        retry: RetryPolicy | None = None,
        http_transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__(
            base_url,
            credentials=Credentials(
                api_key=api_key, tenant_id=tenant_id, bearer_token=bearer_token
            ),
            headers=headers,
            retry=retry,
            http_transport=http_transport,
        )
        self.deployments = DeploymentsClient(self.transport)
        self.revisions = RevisionsClient(self.transport)
        self.auth_providers = AuthProvidersClient(self.transport)
        self.logs = LogsClient(self.transport)
        self.uploads = UploadsClient(self.transport)

    async def wait_for_revision(
        self,
        deployment_id: str,
        revision_id: str,
        *,
        interval: float = 2.0,
        timeout: float = DEFAULT_WAIT_TIMEOUT,
    ) -> AsyncIterator[Revision]:
        """Poll a revision; yield it on each status change, ending after a terminal status.

        The first poll is yielded too. Raises `RevisionWaitTimedOut` after `timeout` seconds
        without a terminal status (`UNKNOWN` is not terminal: it keeps polling).
        """
        deadline = time.monotonic() + timeout
        last_status: str | None = None
        while True:
            revision = await self.revisions.get(deployment_id, revision_id)
            if revision.status != last_status:
                last_status = revision.status
                yield revision
            if revision.is_terminal:
                return
            if time.monotonic() >= deadline:
                raise RevisionWaitTimedOut(
                    f"revision {revision_id} is still {revision.status} after {timeout:g} s",
                    method="GET",
                    url=self.transport.url_for(
                        f"/v2/deployments/{segment(deployment_id)}/revisions/{segment(revision_id)}"
                    ),
                )
            await asyncio.sleep(max(0.0, min(interval, deadline - time.monotonic())))
