"""The request bodies of the deployment form, built and checked without Textual.

`create_body(draft)` is a `POST /v2/deployments` body, `patch_body(draft, deployment)` a
`PATCH` body holding only what changed. Either raises `DraftInvalid` listing each problem
under the form field it belongs to (`FIELD_*`, and `secret_field(i, "name")` for row i).

Secrets on PATCH: the spec sends `secrets` as one list that REPLACES the deployment's
list (a non-null list also starts a new revision). So the form shows existing secrets by
name with an empty value meaning "keep", and `patch_body` sends the list only when a
secret was added, removed, renamed or given a new value; a kept secret then travels with
the value the server returned for it. A server that does not return secret values (empty
or masked) cannot be kept that way: `patch_body` asks for those values to be typed again,
unless the server keeps a value sent back masked (``masks_kept``: agent-tui's local
control plane keeps the value stored under that name).

`fields_of_error(loc)` maps a 422's `loc` back to the form field, so the form can show
each server complaint under the input that caused it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import ValidationError

from agent_tui.client.errors import FieldError
from agent_tui.client.form_errors import sort_field_errors
from agent_tui.client.models.control_plane import Deployment
from agent_tui.client.models.deployment_request import (
    DeploymentCreate,
    DeploymentPatch,
    RequestModel,
    request_body,
)
from agent_tui.text.user_json import parse_json_object

SOURCES: tuple[str, ...] = ("internal_source", "github", "external_docker", "internal_docker")
"""`internal_source` first: it is what the local control plane deploys."""
BUILDABLE_SOURCES = frozenset({"github", "internal_source"})  # need a langgraph.json path
DEFAULT_CONFIG_PATH = "./langgraph.json"

FIELD_NAME = "name"
FIELD_SOURCE = "source"
FIELD_CONFIG_PATH = "config_path"
FIELD_SOURCE_CONFIG = "source_config"
FIELD_REVISION_CONFIG = "revision_config"
FIELD_SECRETS = "secrets"

# Set by the server, never sent back: the running server's URL and the built commit.
_READ_ONLY_SOURCE_CONFIG = frozenset({"custom_url"})
_READ_ONLY_REVISION_CONFIG = frozenset({"repo_commit_sha", "langgraph_config_path"})

R = TypeVar("R", bound=RequestModel)


def suggested_name(config_path: Path) -> str:
    """A first deployment's name: the project's folder (`demo` for the bundled graphs),
    lower-case with dashes, so a first deploy needs no typing."""
    folder = config_path.parent.name if config_path.suffix == ".json" else config_path.name
    slug = re.sub(r"[^a-z0-9]+", "-", folder.lower()).strip("-")
    return slug or "agent"


def secret_field(row: int, part: str) -> str:
    """The field id of row `row`'s secret name or value (`part` is "name" or "value")."""
    return f"secret-{row}-{part}"


class DraftInvalid(ValueError):
    """The draft cannot be sent; `problems` maps a field id to what is wrong with it."""

    def __init__(self, problems: Mapping[str, str]) -> None:
        self.problems = dict(problems)
        super().__init__("; ".join(self.problems.values()))

    @property
    def first_field(self) -> str:
        return next(iter(self.problems))


@dataclass(slots=True)
class SecretRow:
    """One secret row of the form. `original` is the name it had on the server (None for a
    row the user added); an empty `value` on such a row means "keep the value"."""

    name: str = ""
    value: str = field(default="", repr=False)  # never in a repr or a log
    original: str | None = None

    @property
    def blank(self) -> bool:
        return self.original is None and not self.name.strip() and not self.value


@dataclass(slots=True)
class DeploymentDraft:
    """What the form holds: the typed text, not yet checked."""

    name: str = ""
    source: str = "internal_source"
    config_path: str = DEFAULT_CONFIG_PATH
    source_config_json: str = ""
    revision_config_json: str = ""
    secrets: list[SecretRow] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class RequestBody(Generic[R]):
    """A request ready to send, and which form row each sent secret came from (for a 422)."""

    request: R
    secret_rows: tuple[int, ...] = ()

    @property
    def body(self) -> dict[str, Any]:
        """What goes over the wire (`{}`: nothing to change)."""
        return request_body(self.request)


def _checked(
    model: type[R], body: dict[str, Any], rows: Sequence[int], draft: DeploymentDraft
) -> R:
    """`body` as the request model, or `DraftInvalid` under the fields the model refused."""
    try:
        return model.model_validate(body)
    except ValidationError as error:
        errors = [FieldError(tuple(e["loc"]), str(e["msg"]), e["type"]) for e in error.errors()]
        # The form sends only what its fields hold, so every loc names one of them.
        refused = sort_field_errors(errors, lambda loc: field_of_error(loc, rows) or FIELD_NAME)
        raise DraftInvalid(_in_form_order(refused.problems, draft)) from None


def resolve_config_path(text: str, cwd: Path) -> Path:
    """The typed path, `~` expanded and made absolute against `cwd`."""
    path = Path(text.strip()).expanduser()
    return (path if path.is_absolute() else cwd / path).resolve()


def check_config_path(text: str, cwd: Path) -> tuple[Path | None, str | None]:
    """(the absolute path, None) when it names an existing file; else (path, problem)."""
    if not text.strip():
        return None, "the path of the langgraph.json is required"
    if "\x00" in text:  # no file has one; the OS calls below would raise ValueError
        return None, "the path holds a NUL character: no file is named so"
    path = resolve_config_path(text, cwd)
    if path.is_dir():
        candidate = path / "langgraph.json"
        if candidate.is_file():
            return candidate, None
        return path, f"{path} is a folder without a langgraph.json"
    if not path.is_file():
        return path, f"{path} does not exist"
    return path, None


def _parse_configs(
    draft: DeploymentDraft, problems: dict[str, str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    configs: list[dict[str, Any]] = []
    for field_id, text, what in (
        (FIELD_SOURCE_CONFIG, draft.source_config_json, "source_config"),
        (FIELD_REVISION_CONFIG, draft.revision_config_json, "source_revision_config"),
    ):
        try:
            configs.append(parse_json_object(text, what))
        except ValueError as error:
            problems[field_id] = str(error)
            configs.append({})
    return configs[0], configs[1]


def _config_path(
    draft: DeploymentDraft, source: str, cwd: Path, problems: dict[str, str]
) -> str | None:
    if source not in BUILDABLE_SOURCES:
        return None  # the spec: must be null for the other sources
    if source == "github":  # a path inside the repository, not on this machine
        if not draft.config_path.strip():
            problems[FIELD_CONFIG_PATH] = (
                "the path of the langgraph.json in the repository is required"
            )
        return draft.config_path.strip() or None
    path, problem = check_config_path(draft.config_path, cwd)
    if problem is not None:
        problems[FIELD_CONFIG_PATH] = problem
    return str(path) if path is not None else None


def _check_secret_names(rows: Sequence[SecretRow], problems: dict[str, str]) -> None:
    seen: set[str] = set()
    for index, row in enumerate(rows):
        if row.blank:
            continue
        name = row.name.strip()
        if not name:
            problems[secret_field(index, "name")] = "a secret needs a name"
        elif name in seen:
            problems[secret_field(index, "name")] = f"the secret {name} is listed twice"
        seen.add(name)


def create_body(draft: DeploymentDraft, cwd: Path) -> RequestBody[DeploymentCreate]:
    """The `POST /v2/deployments` body, or `DraftInvalid`."""
    problems: dict[str, str] = {}
    name = draft.name.strip()
    if not name:
        problems[FIELD_NAME] = "a deployment needs a name"
    if draft.source not in SOURCES:
        problems[FIELD_SOURCE] = f"the source must be one of {', '.join(SOURCES)}"
    source_config, revision_config = _parse_configs(draft, problems)
    path = _config_path(draft, draft.source, cwd, problems)
    _check_secret_names(draft.secrets, problems)
    for index, row in enumerate(draft.secrets):
        if not row.blank and not row.value and secret_field(index, "name") not in problems:
            problems[secret_field(index, "value")] = f"the secret {row.name.strip()} needs a value"
    if problems:
        raise DraftInvalid(_in_form_order(problems, draft))
    if path is not None:
        revision_config["langgraph_config_path"] = path
    rows = [i for i, row in enumerate(draft.secrets) if not row.blank]
    secrets = [
        {"name": draft.secrets[i].name.strip(), "value": draft.secrets[i].value} for i in rows
    ]
    body = {
        "name": name,
        "source": draft.source,
        "source_config": source_config,
        "source_revision_config": revision_config,
        "secrets": secrets,
    }
    return RequestBody(_checked(DeploymentCreate, body, rows, draft), tuple(rows))


def _stored_value(value: str) -> bool:
    """Whether the server returned a usable value (not empty, not a mask like "****")."""
    return bool(value) and set(value) != {"*"}


def editable_source_config(deployment: Deployment) -> dict[str, Any]:
    """The deployment's source_config as the form shows it (set fields, minus server-set ones)."""
    raw = deployment.source_config.raw()
    return {k: v for k, v in raw.items() if v is not None and k not in _READ_ONLY_SOURCE_CONFIG}


def editable_revision_config(deployment: Deployment) -> dict[str, Any]:
    """The revision config fields other than the langgraph.json path (which has its own input)."""
    raw = deployment.source_revision_config.raw()
    return {k: v for k, v in raw.items() if v is not None and k not in _READ_ONLY_REVISION_CONFIG}


def patch_body(
    draft: DeploymentDraft, deployment: Deployment, cwd: Path, *, masks_kept: bool = False
) -> RequestBody[DeploymentPatch]:
    """The `PATCH` body with only the changed fields (it may be `{}`), or `DraftInvalid`.
    ``masks_kept``: the server keeps a secret whose masked value is sent back."""
    problems: dict[str, str] = {}
    source_config, revision_config = _parse_configs(draft, problems)
    body: dict[str, Any] = {}
    current_path = deployment.source_revision_config.langgraph_config_path
    path: str | None = None
    if draft.config_path.strip() != (current_path or ""):
        path = _config_path(draft, deployment.source, cwd, problems)
    _check_secret_names(draft.secrets, problems)
    secrets, rows = _patched_secrets(draft.secrets, deployment, problems, masks_kept)
    if problems:
        raise DraftInvalid(_in_form_order(problems, draft))

    old_source = editable_source_config(deployment)
    changed_source = {k: v for k, v in source_config.items() if old_source.get(k) != v}
    if changed_source:
        body["source_config"] = changed_source
    old_revision = editable_revision_config(deployment)
    changed_revision = {k: v for k, v in revision_config.items() if old_revision.get(k) != v}
    if path is not None and path != current_path:
        changed_revision["langgraph_config_path"] = path
    if changed_revision:
        body["source_revision_config"] = changed_revision
    if secrets is not None:
        body["secrets"] = secrets
    return RequestBody(_checked(DeploymentPatch, body, rows, draft), rows)


def _patched_secrets(
    rows: Sequence[SecretRow],
    deployment: Deployment,
    problems: dict[str, str],
    masks_kept: bool = False,
) -> tuple[list[dict[str, str]] | None, tuple[int, ...]]:
    """The whole new secrets list, or None when no secret changed (then none is sent)."""
    stored = {secret.name: secret.value for secret in deployment.secrets}
    kept = [i for i, row in enumerate(rows) if not row.blank]
    changed = {rows[i].original for i in kept} != set(stored) or any(
        rows[i].original is None or rows[i].value or rows[i].name.strip() != rows[i].original
        for i in kept
    )
    if not changed:
        return None, ()
    secrets: list[dict[str, str]] = []
    for index in kept:
        row = rows[index]
        value = row.value
        if not value and row.original is not None:
            value = stored.get(row.original, "")
            if not _stored_value(value) and not (masks_kept and value):
                problems[secret_field(index, "value")] = (
                    f"type the value of {row.original} again: the server does not return "
                    "secret values, and saving replaces the whole list of secrets"
                )
                continue
        if not value:
            problems.setdefault(
                secret_field(index, "value"), f"the secret {row.name.strip()} needs a value"
            )
            continue
        secrets.append({"name": row.name.strip(), "value": value})
    return secrets, tuple(kept)


def _in_form_order(problems: dict[str, str], draft: DeploymentDraft) -> dict[str, str]:
    order = [
        FIELD_NAME,
        FIELD_SOURCE,
        FIELD_CONFIG_PATH,
        FIELD_SOURCE_CONFIG,
        FIELD_REVISION_CONFIG,
    ]
    for index in range(len(draft.secrets)):
        order += [secret_field(index, "name"), secret_field(index, "value")]
    order.append(FIELD_SECRETS)
    return {
        key: problems[key]
        for key in sorted(problems, key=lambda k: order.index(k) if k in order else len(order))
    }


def field_of_error(loc: Sequence[str | int], secret_rows: Sequence[int] = ()) -> str | None:
    """The form field a 422's `loc` points at (None: no field, show it at the top).

    `secret_rows[i]` is the form row the i-th sent secret came from."""
    parts = list(loc[1:] if loc[:1] == ["body"] else loc)
    if not parts:
        return None
    head = parts[0]
    if head in (FIELD_NAME, FIELD_SOURCE):
        return str(head)
    if head == "source_config":
        return FIELD_SOURCE_CONFIG
    if head == "source_revision_config":
        if parts[1:2] == ["langgraph_config_path"]:
            return FIELD_CONFIG_PATH
        return FIELD_REVISION_CONFIG
    if head == "secrets":
        if len(parts) > 1 and isinstance(parts[1], int) and parts[1] < len(secret_rows):
            part = "value" if parts[2:3] == ["value"] else "name"
            return secret_field(secret_rows[parts[1]], part)
        return FIELD_SECRETS
    return None
