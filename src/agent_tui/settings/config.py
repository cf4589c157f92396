"""The config file: contexts (named agent servers), key remapping and UI defaults.

Headless (never imports Textual): the CLI reads it before deciding whether to open
the TUI, and the headless subcommands manage it.

The file is TOML in the user config folder (`agent-tui config path`), or wherever
`AGENT_TUI_CONFIG` points::

    current_context = "staging"

    [contexts.staging]
    agent_server_url = "https://staging.example.com"
    control_plane_url = "https://api.example.com"
    api_key_env = "STAGING_API_KEY"     # or: api_key_stored = true (agent-tui config set-context)
    workspace_id = "…"                   # sent as X-Tenant-Id
    readonly = true

    [contexts.staging.headers]           # behind the project's own auth
    Authorization = "Bearer {env:STAGING_TOKEN}"   # or {file:PATH}, {stored}

    [keymap]                             # binding id → keys
    "app.quit" = "ctrl+q,f10"

    [ui]
    theme = "nord"

    [traces]                             # the local trace collector (`agent-tui traces`)
    enabled = true                       # local servers trace to it (AGENT_TUI_TRACES=0: off)
    max_size_mb = 256                    # oldest traces pruned past this

    [traces.prices."gpt-4o-mini"]        # US dollars per million tokens, for run costs
    input_per_million = 0.15
    output_per_million = 0.6

`local` is the implicit context of the embedded server: always there, never in the
file. A bad file raises `ConfigError`, which names the file, the key and the problem.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from agent_tui.settings.paths import CONFIG_ENV as CONFIG_ENV
from agent_tui.settings.paths import config_path as config_path
from agent_tui.settings.target import LOCAL_CONTEXT as LOCAL_CONTEXT
from agent_tui.settings.target import normalize_url

_CONTEXT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")
_ENV_VAR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check_context_name(name: str) -> str:
    """`name` if it can name a context (`:ctx NAME` must be able to type it)."""
    if not _CONTEXT_NAME.fullmatch(name):
        raise ValueError(
            f"{name!r} is not a valid context name (letters, digits, '.', '_', '-'; "
            "starting with a letter or digit; at most 63 characters)"
        )
    return name


class ContextConfig(BaseModel):
    """One `[contexts.NAME]` table."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    agent_server_url: str = Field(description="The agent server's URL (http or https).")
    control_plane_url: str | None = Field(
        default=None, description="The control plane API's URL, for deployments."
    )
    api_key_env: str | None = Field(
        default=None,
        description="The name of the environment variable that holds the API key.",
    )
    api_key_stored: bool = Field(
        default=False,
        description="The API key is stored by agent-tui (`agent-tui config set-context NAME "
        "--store-api-key`), in a file only you can read.",
    )
    workspace_id: str | None = Field(
        default=None, description="The workspace (tenant) id, sent as X-Tenant-Id."
    )
    readonly: bool = Field(
        default=False, description="Refuse every action that would change the server."
    )
    headers: dict[str, str] = Field(
        default_factory=dict,
        description='Headers sent to the agent server, e.g. Authorization = "Bearer '
        "{env:TOKEN}\": a value's {env:NAME}, {file:PATH} and {stored} parts are read when "
        "the context is used, never written here.",
    )

    @field_validator("agent_server_url", "control_plane_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return None if value is None else normalize_url(value)

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        if value is not None and not _ENV_VAR_NAME.fullmatch(value):
            raise ValueError(f"{value!r} is not an environment variable name")
        return value

    @field_validator("headers")
    @classmethod
    def _headers(cls, headers: dict[str, str]) -> dict[str, str]:
        from agent_tui.settings.context_headers import check_header

        seen: set[str] = set()
        for name, template in headers.items():
            check_header(name, template)
            if name.lower() in seen:
                raise ValueError(f"{name} is given twice (header names ignore case)")
            seen.add(name.lower())
        return headers

    @field_validator("workspace_id")
    @classmethod
    def _workspace(cls, value: str | None) -> str | None:
        value = None if value is None else value.strip()
        if value == "":
            raise ValueError("is empty (leave it out for no workspace)")
        return value

    @model_validator(mode="after")
    def _one_key_source(self) -> ContextConfig:
        if self.api_key_env and self.api_key_stored:
            raise ValueError(
                "api_key_env and api_key_stored = true are alternatives: keep one of them"
            )
        return self


class UiConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    theme: str | None = Field(
        default=None, description="The colour theme to start with (a Textual theme name)."
    )


class ModelPriceConfig(BaseModel):
    """One `[traces.prices."MODEL"]` table."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    input_per_million: float = Field(ge=0, description="US dollars per million input tokens.")
    output_per_million: float = Field(ge=0, description="US dollars per million output tokens.")


class TracesConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    enabled: bool = Field(
        default=True,
        description="The local agent servers agent-tui starts send their traces (every "
        "model and tool call) to agent-tui's local collector; nothing leaves the machine. "
        "AGENT_TUI_TRACES=0 or --no-traces turns it off for one start.",
    )
    max_size_mb: int = Field(
        default=256,
        ge=1,
        description="Megabytes of runs the trace store keeps (their JSON); past it the "
        "oldest traces are pruned.",
    )
    prices: dict[str, ModelPriceConfig] = Field(
        default_factory=dict,
        description="Prices by model name (as the trace names it, e.g. gpt-4o-mini; a dated "
        "release takes the price of the longest name that starts it), for the cost of a "
        "run's model calls. None is shipped: prices change.",
    )


class AgentTuiConfig(BaseModel):
    """The whole file. `AgentTuiConfig()` is the config of a missing file."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    current_context: str = Field(
        default=LOCAL_CONTEXT,
        description="The context agent-tui opens with; `local` is the embedded server.",
    )
    contexts: dict[str, ContextConfig] = Field(
        default_factory=dict,
        description="Named agent servers, like k9s contexts.",
        json_schema_extra={
            "propertyNames": {
                "pattern": f"^{_CONTEXT_NAME.pattern}$",
                "not": {"const": LOCAL_CONTEXT},
            }
        },
    )
    keymap: dict[str, str] = Field(
        default_factory=dict,
        description='Keys by binding id, e.g. "app.quit" = "ctrl+q,f10" (see `?` in the app).',
    )
    ui: UiConfig = Field(default_factory=UiConfig)
    traces: TracesConfig = Field(default_factory=TracesConfig)

    @field_validator("contexts")
    @classmethod
    def _context_names(cls, contexts: dict[str, ContextConfig]) -> dict[str, ContextConfig]:
        for name in contexts:
            check_context_name(name)
            if name == LOCAL_CONTEXT:
                raise ValueError(
                    "'local' is the built-in context of the embedded server; "
                    "give this context another name"
                )
        return contexts

    @field_validator("keymap")
    @classmethod
    def _keys(cls, keymap: dict[str, str]) -> dict[str, str]:
        for binding_id, keys in keymap.items():
            if not keys.strip():
                raise ValueError(f"{binding_id!r} has no keys")
        return keymap

    @model_validator(mode="after")
    def _current_exists(self) -> AgentTuiConfig:
        if self.current_context != LOCAL_CONTEXT and self.current_context not in self.contexts:
            raise ValueError(
                f"current_context names {self.current_context!r}, which is not a context "
                f"(known: {', '.join(self.context_names())})"
            )
        return self

    def context_names(self) -> list[str]:
        """`local` first, then the file's contexts in file order."""
        return [LOCAL_CONTEXT, *self.contexts]

    @property
    def theme(self) -> str | None:
        """The theme to start with, unless the user picked one in the app since."""
        return self.ui.theme


@dataclass(frozen=True, slots=True)
class Problem:
    key: str  # dotted TOML key, or "line L, column C" for a syntax error
    message: str

    def __str__(self) -> str:
        return f"{self.key}: {self.message}" if self.key else self.message


class ConfigError(Exception):
    """The config file is unusable; `str()` names the file, each key and its problem."""

    def __init__(self, path: Path, problems: Sequence[Problem]) -> None:
        self.path = path
        self.problems = list(problems)
        super().__init__("\n".join(f"{path}: {problem}" for problem in self.problems))


def read_toml(path: Path) -> dict[str, Any]:
    """The file's TOML as a dict ({} when missing); `ConfigError` when unreadable."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(path, [Problem("", f"cannot read the file: {error}")]) from error
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(path, [_syntax_problem(error)]) from error


def parse_config(data: Mapping[str, Any], path: Path) -> AgentTuiConfig:
    try:
        return AgentTuiConfig.model_validate(data)
    except ValidationError as error:
        raise ConfigError(path, [_problem(e) for e in error.errors()]) from None


def load_config(path: Path | None = None) -> AgentTuiConfig:
    """Read and validate the config file (`config_path()` unless given)."""
    path = config_path() if path is None else path
    return parse_config(read_toml(path), path)


_POSITION = re.compile(
    r"^(?P<message>.*?)\s*\(at (?P<where>line \d+, column \d+|end of document)\)$"
)


def _syntax_problem(error: tomllib.TOMLDecodeError) -> Problem:
    match = _POSITION.match(str(error))
    if match is None:
        return Problem("", f"not valid TOML: {error}")
    return Problem(match["where"], f"not valid TOML: {match['message']}")


_TYPE_NAMES = {
    "bool_type": "expected true or false",
    "string_type": "expected a string",
    "dict_type": "expected a table",
}


def _problem(error: Any) -> Problem:
    """One pydantic error as the TOML key it is about and a sentence about it."""
    loc = [str(part) for part in error["loc"]]
    kind = error["type"]
    if kind == "missing":
        return Problem(".".join(loc), "is required")
    if kind == "extra_forbidden":
        if loc[-1] in ("api_key", "key", "token"):
            return Problem(
                ".".join(loc),
                "keys are never written in the config file: set api_key_env to the name of "
                "an environment variable, or store the key with "
                "`agent-tui config set-context NAME --store-api-key`",
            )
        return Problem(".".join(loc), "unknown key" + _expected_keys(loc[:-1]))
    if kind in _TYPE_NAMES:
        return Problem(".".join(loc), f"{_TYPE_NAMES[kind]}, got {_toml_repr(error['input'])}")
    message = str(error["msg"]).removeprefix("Value error, ")
    return Problem(".".join(loc), message)


def _expected_keys(parent: list[str]) -> str:
    model: type[BaseModel] | None = {
        0: AgentTuiConfig,
        2: ContextConfig if parent[:1] == ["contexts"] else None,
        1: UiConfig if parent == ["ui"] else TracesConfig if parent == ["traces"] else None,
    }.get(len(parent))
    if model is None:
        return ""
    return f" (expected one of: {', '.join(model.model_fields)})"


def _toml_repr(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return repr(value)
