"""Request bodies and parameters, checked the way the FastAPI control plane checks them.

Failures become the spec's `HTTPValidationError`: `{"detail": [{"loc", "msg", "type"}]}`,
with `loc` starting at `body`, `query` or `path`. Extra fields are ignored, as FastAPI does.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

M = TypeVar("M", bound=BaseModel)
Source = Literal["github", "external_docker", "internal_docker", "internal_source"]


class InvalidRequest(Exception):
    """A 422: `errors` is the `detail` list."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__("; ".join(str(e.get("msg")) for e in errors))
        self.errors = errors


class _Body(BaseModel):
    model_config = ConfigDict(extra="ignore")


class SecretIn(_Body):
    name: str = Field(min_length=1)
    value: str


class SourceConfigIn(_Body):
    integration_id: uuid.UUID | None = None
    repo_url: str | None = None
    deployment_type: Literal["dev_free", "dev", "prod"] | None = None
    build_on_push: bool | None = None
    custom_url: str | None = None
    resource_spec: dict[str, Any] | None = None
    listener_id: uuid.UUID | None = None
    listener_config: dict[str, Any] | None = None
    install_command: str | None = None
    build_command: str | None = None


class SourceRevisionConfigIn(_Body):
    repo_ref: str | None = None
    langgraph_config_path: str | None = None
    image_uri: str | None = None
    source_tarball_path: str | None = None


class DeploymentCreate(_Body):
    name: str = Field(min_length=1)
    source: Source
    source_config: SourceConfigIn
    source_revision_config: SourceRevisionConfigIn
    secrets: list[SecretIn]
    secret_references: list[dict[str, Any]] | None = None


class DeploymentPatch(_Body):
    revision_source: Literal["github", "internal_docker", "internal_source"] | None = None
    source_config: SourceConfigIn | None = None
    source_revision_config: SourceRevisionConfigIn | None = None
    secrets: list[SecretIn] | None = None
    secret_references: list[dict[str, Any]] | None = None


class ProviderCreate(_Body):
    provider_id: str = Field(min_length=1)
    name: str
    client_id: str
    client_secret: str | None = None
    auth_url: str
    token_url: str
    uses_pkce: bool = False
    code_challenge_method: str = "S256"
    provider_type: Literal["microsoft", "salesforce", "slack"] | None = None
    token_endpoint_auth_method: Literal["none", "client_secret_basic", "client_secret_post"] = (
        "client_secret_post"
    )


class ProviderUpdate(_Body):
    name: str | None = None
    client_id: str | None = None
    client_secret: str | None = None
    auth_url: str | None = None
    token_url: str | None = None
    uses_pkce: bool | None = None
    code_challenge_method: str | None = None


def parse_body(model: type[M], raw: bytes) -> M:
    """The body as `model`, or `InvalidRequest` with FastAPI-shaped errors."""
    try:
        data = json.loads(raw) if raw else None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        pos = getattr(exc, "pos", 0)
        raise InvalidRequest(
            [{"loc": ["body", pos], "msg": "JSON decode error", "type": "json_invalid"}]
        ) from None
    if data is None:
        raise InvalidRequest([{"loc": ["body"], "msg": "Field required", "type": "missing"}])
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InvalidRequest(
            [
                {"loc": ["body", *e["loc"]], "msg": e["msg"], "type": e["type"]}
                for e in exc.errors(include_url=False)
            ]
        ) from None


def check_uuid(value: str, name: str) -> str:
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise InvalidRequest(
            [
                {
                    "loc": ["path", name],
                    "msg": "Input should be a valid UUID, invalid character or length",
                    "type": "uuid_parsing",
                }
            ]
        ) from None


def query_int(params: Any, name: str, default: int, *, low: int, high: int | None = None) -> int:
    raw = params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise InvalidRequest(
            [
                {
                    "loc": ["query", name],
                    "msg": "Input should be a valid integer, unable to parse string as an integer",
                    "type": "int_parsing",
                }
            ]
        ) from None
    if value < low:
        msg, kind = f"Input should be greater than or equal to {low}", "greater_than_equal"
    elif high is not None and value > high:
        msg, kind = f"Input should be less than or equal to {high}", "less_than_equal"
    else:
        return value
    raise InvalidRequest([{"loc": ["query", name], "msg": msg, "type": kind}])
