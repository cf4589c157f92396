"""Control plane resources (LangSmith Deployment API, `/v2`) as pydantic models.

Field names follow `control-plane.openapi.json`; unknown fields are kept (`extra="allow"`)
so the raw view shows everything a newer server sends.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from agent_tui.client.models.agent_server import ApiModel

DeploymentSource = Literal["github", "external_docker", "internal_docker", "internal_source"]
DeploymentType = Literal["dev_free", "dev", "prod", "dev_zero"]
"""As the service names them today: the spec's three, and `dev_zero`, which the official
CLI sends for its default `serverless`."""
CLI_DEPLOYMENT_TYPES: dict[str, str] = {"serverless": "dev_zero", "dedicated": "prod"}
"""The official CLI's `--deployment-type` words, and what it sends for them."""
DeploymentStatus = Literal["AWAITING_DATABASE", "READY", "UNUSED", "AWAITING_DELETE", "UNKNOWN"]


class RevisionStatus(StrEnum):
    """Where a revision is in its life, in the order a deploy goes through them.

    A `StrEnum`, so a member equals the text the server sends (`"DEPLOYED"`) and a model's
    `status` stays a plain `str`: a newer server's status is shown, not refused."""

    CREATING = "CREATING"  # cloud control planes start here; the local one at QUEUED
    QUEUED = "QUEUED"
    AWAITING_BUILD = "AWAITING_BUILD"
    BUILDING = "BUILDING"
    AWAITING_DEPLOY = "AWAITING_DEPLOY"
    DEPLOYING = "DEPLOYING"
    CREATE_FAILED = "CREATE_FAILED"
    BUILD_FAILED = "BUILD_FAILED"
    DEPLOY_FAILED = "DEPLOY_FAILED"
    DEPLOYED = "DEPLOYED"
    SKIPPED = "SKIPPED"
    INTERRUPTED = "INTERRUPTED"
    UNKNOWN = "UNKNOWN"


REVISION_STATUSES: tuple[str, ...] = tuple(RevisionStatus)
REVISION_STEPS: tuple[RevisionStatus, ...] = (
    RevisionStatus.QUEUED,
    RevisionStatus.AWAITING_BUILD,
    RevisionStatus.BUILDING,
    RevisionStatus.AWAITING_DEPLOY,
    RevisionStatus.DEPLOYING,
    RevisionStatus.DEPLOYED,
)
"""The steps of a deploy that goes well, as the progress screen lists them."""
PENDING_REVISION_STATUSES = frozenset(
    {
        RevisionStatus.CREATING,
        RevisionStatus.QUEUED,
        RevisionStatus.AWAITING_BUILD,
        RevisionStatus.BUILDING,
        RevisionStatus.AWAITING_DEPLOY,
        RevisionStatus.DEPLOYING,
    }
)
"""Statuses of a deploy still under way (a restarted local control plane interrupts them)."""
FAILED_REVISION_STATUSES = frozenset(
    {RevisionStatus.CREATE_FAILED, RevisionStatus.BUILD_FAILED, RevisionStatus.DEPLOY_FAILED}
)
TERMINAL_REVISION_STATUSES = FAILED_REVISION_STATUSES | {
    RevisionStatus.DEPLOYED,
    RevisionStatus.SKIPPED,
    RevisionStatus.INTERRUPTED,
}
"""Statuses after which a revision never changes (docs/server-quirks.md); `UNKNOWN` keeps polling."""
STEADY_DEPLOYMENT_STATUSES = frozenset({"READY", "UNUSED"})
"""A deployment's statuses that change only when something is asked of it (the others,
`AWAITING_DATABASE`, `AWAITING_DELETE`, `UNKNOWN`, are on their way to another)."""


class Secret(ApiModel):
    name: str
    value: str


class SourceConfig(ApiModel):
    integration_id: str | None = None
    repo_url: str | None = None
    deployment_type: str | None = None
    build_on_push: bool | None = None
    custom_url: str | None = None
    resource_spec: dict[str, Any] | None = None
    listener_id: str | None = None
    listener_config: dict[str, Any] | None = None
    install_command: str | None = None
    build_command: str | None = None


class SourceRevisionConfig(ApiModel):
    repo_ref: str | None = None
    langgraph_config_path: str | None = None
    image_uri: str | None = None
    source_tarball_path: str | None = None
    repo_commit_sha: str | None = None


class Deployment(ApiModel):
    id: str
    name: str
    source: str
    source_config: SourceConfig = Field(default_factory=SourceConfig)
    source_revision_config: SourceRevisionConfig = Field(default_factory=SourceRevisionConfig)
    secrets: list[Secret] = Field(default_factory=list)
    secret_references: list[dict[str, Any]] | None = None
    tenant_id: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    status: str = "UNKNOWN"
    latest_revision_id: str | None = None
    active_revision_id: str | None = None
    image_version: str | None = None

    @property
    def url(self) -> str | None:
        """The deployment's agent server (`source_config.custom_url`)."""
        return self.source_config.custom_url


class Revision(ApiModel):
    id: str
    created_at: datetime | None = None
    updated_at: datetime | None = None
    status: str = "UNKNOWN"
    source: str | None = None
    source_revision_config: SourceRevisionConfig = Field(default_factory=SourceRevisionConfig)

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_REVISION_STATUSES

    @property
    def failed(self) -> bool:
        return self.status in FAILED_REVISION_STATUSES


class DeploymentsPage(ApiModel):
    """`DeploymentsList`: one page and the offset it started at."""

    resources: list[Deployment] = Field(default_factory=list)
    offset: int = 0


class RevisionsPage(ApiModel):
    """`RevisionsList`: one page, newest first."""

    resources: list[Revision] = Field(default_factory=list)
    offset: int = 0


class RevisionLogs(ApiModel):
    """`GET …/revisions/{id}/logs` of the local control plane: build and deploy lines."""

    revision_id: str | None = None
    status: str | None = None
    lines: list[str] = Field(default_factory=list)


class OAuthProvider(ApiModel):
    """`OAuthProviderResponse` (the client secret is never returned)."""

    id: str
    provider_id: str
    name: str
    organization_id: str | None = None
    client_id: str | None = None
    auth_url: str | None = None
    token_url: str | None = None
    uses_pkce: bool = False
    code_challenge_method: str | None = None
    provider_type: str | None = None
    mcp_server_url: str | None = None
    token_endpoint_auth_method: str | None = None
    is_dynamic_client: bool = False
    created_at: datetime | None = None
    updated_at: datetime | None = None


class LogEntry(ApiModel):
    """One line of `…/build_logs` or `…/deploy_logs` (`/v1/projects/…`).

    The timestamp is epoch milliseconds, or a string on some servers."""

    id: str | None = None
    timestamp: int | float | str | None = None
    level: str | None = None
    message: str = ""


class LogsPage(ApiModel):
    """One page of log entries; `next_offset` is passed back as `offset` for the next."""

    logs: list[LogEntry] = Field(default_factory=list)
    next_offset: str | int | None = None


class UploadUrl(ApiModel):
    """`POST …/upload-url`: where to PUT the source tarball, and what to name in the PATCH."""

    upload_url: str
    object_path: str
    upload_headers: dict[str, str] | None = None
