"""The body of a deployment create or update: one pydantic model for every side (headless).

The deployment form builds it, the control plane client sends it, and the local control
plane checks what it receives with it, so a body is shaped and checked in one place.
Field by field it is the control plane spec's `DeploymentCreate`/`DeploymentPatch`; extra
fields are ignored, as the FastAPI control plane does. It also refuses what could not be
used: `NaN`/`Infinity`, a NUL byte in a path or a secret, a secret name with `=` (a
secret becomes an environment variable).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

Source = Literal["github", "external_docker", "internal_docker", "internal_source"]


class RequestModel(BaseModel):
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)


class _Sparse(RequestModel):
    """Served back without its unset (null) fields: the spec types many of them non-null."""

    @model_serializer(mode="wrap")
    def _without_nulls(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return {key: value for key, value in handler(self).items() if value is not None}


def _no_nul(what: str) -> Callable[[str], str]:
    def check(value: str) -> str:
        if "\0" in value:
            raise ValueError(f"{what} cannot contain a NUL character")
        return value

    return check


def _env_name(value: str) -> str:
    if "=" in value or "\0" in value:
        raise ValueError(
            "a secret's name becomes an environment variable name: it cannot contain '=' "
            "or a NUL character"
        )
    return value


class SecretIn(RequestModel):
    name: Annotated[str, Field(min_length=1), AfterValidator(_env_name)]
    value: Annotated[str, AfterValidator(_no_nul("a secret's value (an environment variable)"))]


class SecretReferenceIn(RequestModel):
    name: str
    secret_name: str
    secret_key: str


# The spec's ResourceSpec and ListenerConfig, field by field: they are served back as sent.
Cpu = Annotated[float, Field(ge=0.1, le=8.0)]
CpuLimit = Annotated[float, Field(ge=0.1, le=16.0)]


class LocalObjectReferenceIn(_Sparse):
    name: str


class VolumeIn(_Sparse):
    name: str | None = None
    configMap: dict[str, Any] | None = None
    secret: dict[str, Any] | None = None
    emptyDir: dict[str, Any] | None = None
    persistentVolumeClaim: dict[str, Any] | None = None
    nfs: dict[str, Any] | None = None
    projected: dict[str, Any] | None = None
    downwardAPI: dict[str, Any] | None = None
    csi: dict[str, Any] | None = None


class VolumeMountIn(_Sparse):
    name: str | None = None
    mountPath: str | None = None
    subPath: str | None = None
    mountPropagation: str | None = None
    readOnly: bool | None = None
    subPathExpr: str | None = None


class EnvVarIn(_Sparse):
    name: str
    value: str | None = None
    valueFrom: dict[str, Any] | None = None


class ResourceRequirementsIn(_Sparse):
    limits: dict[str, str] | None = None
    requests: dict[str, str] | None = None


class ContainerIn(_Sparse):
    name: str
    image: str
    imagePullPolicy: str | None = None
    command: list[str] | None = None
    args: list[str] | None = None
    workingDir: str | None = None
    env: list[EnvVarIn] | None = None
    envFrom: list[dict[str, Any]] | None = None
    resources: ResourceRequirementsIn | None = None
    volumeMounts: list[VolumeMountIn] | None = None
    securityContext: dict[str, Any] | None = None
    restartPolicy: str | None = None


class ResourceSpecIn(_Sparse):
    min_scale: int | None = None
    max_scale: int | None = None
    cpu: Cpu | None = None
    cpu_limit: CpuLimit | None = None
    memory_mb: int | None = None
    memory_limit_mb: int | None = None
    queue_min_scale: int | None = None
    queue_max_scale: int | None = None
    queue_cpu: Cpu | None = None
    queue_cpu_limit: CpuLimit | None = None
    queue_memory_mb: int | None = None
    queue_memory_limit_mb: int | None = None
    orchestrator_cpu: float | None = None
    orchestrator_cpu_limit: float | None = None
    orchestrator_memory_mb: int | None = None
    orchestrator_memory_limit_mb: int | None = None
    orchestrator_min_scale: int | None = None
    orchestrator_max_scale: int | None = None
    executor_cpu: float | None = None
    executor_cpu_limit: float | None = None
    executor_memory_mb: int | None = None
    executor_memory_limit_mb: int | None = None
    redis_cpu: Cpu | None = None
    redis_cpu_limit: CpuLimit | None = None
    redis_memory_mb: int | None = None
    redis_memory_limit_mb: int | None = None
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    service_account_name: str | None = None
    image_pull_secrets: list[LocalObjectReferenceIn] | None = None
    volumes: list[VolumeIn] | None = None
    volume_mounts: list[VolumeMountIn] | None = None
    init_containers: list[ContainerIn] | None = None
    sidecars: list[ContainerIn] | None = None
    db_cpu: float | None = None
    db_cpu_limit: float | None = None
    db_memory_mb: int | None = None
    db_memory_limit_mb: int | None = None
    db_storage_gi: int | None = None
    db_max_connections: int | None = None


class ListenerConfigIn(_Sparse):
    k8s_namespace: str | None = None


class SourceConfigIn(RequestModel):
    integration_id: uuid.UUID | None = None
    repo_url: str | None = None
    deployment_type: Literal["dev_free", "dev", "prod", "dev_zero"] | None = None
    build_on_push: bool | None = None
    custom_url: str | None = None
    resource_spec: ResourceSpecIn | None = None
    listener_id: uuid.UUID | None = None
    listener_config: ListenerConfigIn | None = None
    install_command: str | None = None
    build_command: str | None = None


class SourceRevisionConfigIn(RequestModel):
    repo_ref: str | None = None
    langgraph_config_path: Annotated[str, AfterValidator(_no_nul("a path"))] | None = None
    image_uri: str | None = None
    source_tarball_path: str | None = None


class DeploymentCreate(RequestModel):
    name: str = Field(min_length=1)
    source: Source
    source_config: SourceConfigIn
    source_revision_config: SourceRevisionConfigIn
    secrets: list[SecretIn]
    secret_references: list[SecretReferenceIn] | None = None


class DeploymentPatch(RequestModel):
    revision_source: Literal["github", "internal_docker", "internal_source"] | None = None
    source_config: SourceConfigIn | None = None
    source_revision_config: SourceRevisionConfigIn | None = None
    secrets: list[SecretIn] | None = None
    secret_references: list[SecretReferenceIn] | None = None


def request_body(request: RequestModel) -> dict[str, Any]:
    """What is sent: the fields the caller set (an unset field is not sent at all)."""
    return request.model_dump(mode="json", exclude_unset=True)
