"""Request bodies and parameters, checked the way the FastAPI control plane checks them.

Failures become the spec's `HTTPValidationError`: `{"detail": [{"loc", "msg", "type"}]}`,
with `loc` starting at `body`, `query` or `path`. Extra fields are ignored, as FastAPI does.

Whatever is accepted is stored and served back, so a body is refused (422) when its
answer could not be JSON or would break the spec: `NaN`/`Infinity`, a lone surrogate
(`"\udc00"`, not Unicode text), nesting deeper than `MAX_DEPTH`, values of the wrong type
in `source_config`'s nested objects; and when it could not be used: a NUL byte in a path
or a secret, a `langgraph_config_path` that is not a regular file.

And what a local deployment must not be given (`check_deployment_fields`,
`check_config_path`), each refused with an error of its own field:

- a name with control characters (C0, C1, bidi and invisible format characters: they
  would act on a terminal that shows it) or longer than `MAX_NAME` characters;
- a secret name that is not an environment variable name (`[A-Za-z_][A-Za-z0-9_]*`, at
  most `MAX_NAME` characters), that is given twice, or that is reserved: it would change
  how the server process itself runs rather than what the graphs read (the allow rule of
  `env_names`: ``PATH``, ``LD_*``, ``PYTHON*``, ``NODE_*``, ``UV_*``, ``SSL_*``,
  ``AGENT_TUI_*``, the server's own settings …);
- a ``langgraph_config_path`` that is not a ``.json`` file, or that lies in a system
  folder (`SYSTEM_FOLDERS`: ``/etc``, ``/proc``, ``/dev`` …), where no project is: the
  build would read it.
"""

from __future__ import annotations

import json
import math
import os
import re
import uuid
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
)
from starlette.requests import Request

from agent_tui.local.control_plane import env_names
from agent_tui.local.control_plane.env_names import ENV_NAME, RULE, reserved_because
from agent_tui.local.project_files import MAX_PROJECT_FILE, check_project_file
from agent_tui.text.sanitize import INVISIBLE

M = TypeVar("M", bound=BaseModel)

MAX_BODY = 1 << 20
"""Bytes of a request body read at most (real bodies are a few KiB)."""
MAX_DEPTH = 32
"""Deepest nesting of a body's arrays and objects."""


class InvalidRequest(Exception):
    """A 422: `errors` is the `detail` list."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__("; ".join(str(e.get("msg")) for e in errors))
        self.errors = errors


class _Body(BaseModel):
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)


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


class BodyTooLarge(Exception):
    """A 413: the body is larger than `MAX_BODY`."""

    detail = f"The request body is larger than {MAX_BODY >> 20} MiB."


async def read_body(request: Request) -> bytes:
    """The whole body, refused (`BodyTooLarge`) past `MAX_BODY` bytes without reading on."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise BodyTooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise BodyTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


class _NotFinite(ValueError):
    pass


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400
        raise _NotFinite(f"{text} is out of range")
    return value


def _constant(name: str) -> Any:
    raise _NotFinite(f"{name} is not a JSON number")


def _json_error(message: str, loc: list[str | int] | None = None) -> InvalidRequest:
    return InvalidRequest(
        [{"loc": loc or ["body"], "msg": f"JSON decode error: {message}", "type": "json_invalid"}]
    )


def _printable_key(key: str) -> str:
    # A key quoted in an error must itself be Unicode text.
    return key.encode("utf-8", "backslashreplace").decode("utf-8")


def _check_tree(data: Any) -> None:
    """Refuse nesting past `MAX_DEPTH` and strings (keys too) that are not Unicode text."""
    stack: list[tuple[Any, list[str | int]]] = [(data, ["body"])]
    while stack:
        value, loc = stack.pop()
        if len(loc) - 1 > MAX_DEPTH:
            raise _json_error(f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, str):
            _check_text(value, loc)
        elif isinstance(value, dict):
            for key, item in value.items():
                _check_text(key, [*loc, _printable_key(key)])
                stack.append((item, [*loc, key]))
        elif isinstance(value, list):
            stack.extend((item, [*loc, index]) for index, item in enumerate(value))


def _check_text(text: str, loc: list[str | int]) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start : exc.end].encode("utf-8", "backslashreplace").decode("utf-8")
        raise InvalidRequest(
            [
                {
                    "loc": [_printable_key(p) if isinstance(p, str) else p for p in loc],
                    "msg": f"Input should be valid Unicode text: it contains a lone surrogate "
                    f"({bad})",
                    "type": "string_unicode",
                }
            ]
        ) from None


def parse_body(model: type[M], raw: bytes) -> M:
    """The body as `model`, or `InvalidRequest` with FastAPI-shaped errors."""
    try:
        data = json.loads(raw, parse_float=_finite, parse_constant=_constant) if raw else None
    except json.JSONDecodeError as exc:
        raise InvalidRequest(
            [
                {
                    "loc": ["body", exc.pos],
                    "msg": f"JSON decode error: {exc.msg}",
                    "type": "json_invalid",
                }
            ]
        ) from None
    except UnicodeDecodeError:
        raise _json_error("the body is not UTF-8 text") from None
    except RecursionError:
        raise _json_error(f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # NaN, Infinity, an integer too long to convert
        raise _json_error(str(exc)) from None
    if data is None:
        raise InvalidRequest([{"loc": ["body"], "msg": "Field required", "type": "missing"}])
    _check_tree(data)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InvalidRequest(
            [
                {"loc": ["body", *e["loc"]], "msg": e["msg"], "type": e["type"]}
                for e in exc.errors(include_url=False)
            ]
        ) from None


MAX_NAME = env_names.MAX_NAME
"""Characters of a deployment's or a secret's name at most."""

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069" + INVISIBLE + "]")

SYSTEM_FOLDERS = tuple(
    Path(folder)
    for folder in (
        "/etc",
        "/proc",
        "/sys",
        "/dev",
        "/boot",
        "/run",
        "/private/etc",  # macOS: /etc resolves here
        "/private/var/run",
        "/System",
    )
)
"""Folders that hold the system's files, never a project to deploy."""


def _field_error(loc: list[str | int], msg: str) -> dict[str, Any]:
    return {"loc": loc, "msg": msg, "type": "value_error"}


def _name_problem(name: str, what: str) -> str | None:
    if _CONTROL.search(name):
        return f"{what} cannot contain control characters"
    if len(name) > MAX_NAME:
        return f"{what} is longer than {MAX_NAME} characters"
    return None


def check_deployment_fields(name: str | None, secret_names: list[str] | None) -> None:
    """Refuse (`InvalidRequest`, an error per field) a deployment ``name`` or secret names
    a local deployment must not have (see the module docstring)."""
    errors: list[dict[str, Any]] = []
    if name is not None and (problem := _name_problem(name, "A deployment's name")):
        errors.append(_field_error(["body", "name"], problem))
    seen: set[str] = set()
    for index, secret in enumerate(secret_names or []):
        loc: list[str | int] = ["body", "secrets", index, "name"]
        shown = _printable_key(secret)[:MAX_NAME]
        if problem := _name_problem(secret, "A secret's name"):
            errors.append(_field_error(loc, problem))
        elif not ENV_NAME.fullmatch(secret):
            errors.append(
                _field_error(
                    loc,
                    f"A secret's name becomes an environment variable: {shown!r} is not one "
                    "(letters, digits and '_', not starting with a digit)",
                )
            )
        elif what := reserved_because(secret):
            errors.append(
                _field_error(
                    loc, f"A secret cannot be named {shown}: it is reserved ({what}). {RULE}"
                )
            )
        elif secret in seen:
            errors.append(_field_error(loc, f"The secret {shown} is given more than once"))
        seen.add(secret)
    if errors:
        raise InvalidRequest(errors)


def _location_problem(path: Path) -> str | None:
    """Why ``path`` (resolved) cannot be a project's ``langgraph.json``, by where it is."""
    if path.suffix.lower() != ".json":
        return "it is not a .json file"
    for folder in SYSTEM_FOLDERS:
        if path.is_relative_to(folder):
            return f"it is in {folder}, a system folder"
    return None


def check_config_path(path: str, loc: list[str | int]) -> str:
    """``langgraph_config_path`` made absolute; refused when it names something other than
    a regular ``.json`` file of a sensible size outside the system folders. A missing file
    is accepted: its build fails, saying so.
    """
    try:
        resolved = Path(path).expanduser().resolve()
        info = os.stat(resolved)
    except FileNotFoundError:
        if problem := _location_problem(resolved):
            raise InvalidRequest(
                [_field_error(loc, f"{resolved} cannot be a langgraph.json: {problem}")]
            ) from None
        return str(resolved)
    except (OSError, ValueError, RuntimeError) as exc:  # RuntimeError: a symlink loop
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InvalidRequest(
            [{"loc": loc, "msg": f"Cannot use this path: {reason}", "type": "value_error"}]
        ) from None
    problem = check_project_file(info.st_mode, info.st_size, MAX_PROJECT_FILE)
    if problem := problem or _location_problem(resolved):
        raise InvalidRequest(
            [
                {
                    "loc": loc,
                    "msg": f"{resolved} cannot be a langgraph.json: {problem}",
                    "type": "value_error",
                }
            ]
        )
    return str(resolved)


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
