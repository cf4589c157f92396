"""Agent server resources as pydantic models.

Every model keeps fields it does not declare (`extra="allow"`): servers add fields over
time and the raw JSON view must show all of them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic_core import to_jsonable_python

ThreadStatus = Literal["idle", "busy", "interrupted", "error"]
THREAD_STATUSES: tuple[ThreadStatus, ...] = ("idle", "busy", "interrupted", "error")
RunStatus = Literal["pending", "running", "error", "success", "timeout", "interrupted"]
SortOrder = Literal["asc", "desc"]
ThreadSortField = Literal["thread_id", "status", "created_at", "updated_at", "state_updated_at"]


class ApiModel(BaseModel):
    # defer_build: a model's validator is built when first used, not at import: the
    # home screen needs two of the ~40 (start-up time: ~60% of this module's import).
    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)

    def raw(self) -> dict[str, Any]:
        """The JSON as the server sent it, extra fields included.

        Strings are kept exactly, a lone surrogate too (what a `"\\ud800"` escape in the
        answer decodes to): JSON output writes it out as that escape again, a screen
        shows U+FFFD. `model_dump(mode="json")` cannot: it raised UnicodeEncodeError.
        """
        raw: dict[str, Any] = _jsonable(self.model_dump(by_alias=True))
        return raw


def _jsonable(value: Any) -> Any:
    """`value` as `model_dump(mode="json")` makes it, but strings left as they are."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return {_jsonable_key(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(item) for item in value]
    return to_jsonable_python(value)  # times, enums, numbers: as pydantic writes them


def _jsonable_key(key: Any) -> str:
    return key if isinstance(key, str) else str(to_jsonable_python(key))


class ServerInfo(ApiModel):
    version: str | None = None
    langgraph_py_version: str | None = None
    flags: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    name: str | None = None
    """The server's own name where it gives one (Aegra: `"Aegra"`); langgraph-api gives
    none."""

    @property
    def server(self) -> str:
        """What the server is, with its version: `Aegra 0.11.0`, `langgraph-api 0.16.7`."""
        return f"{self.name or 'langgraph-api'} {self.version or '?'}"


class Assistant(ApiModel):
    assistant_id: str
    graph_id: str
    name: str = ""
    description: str | None = None
    version: int | None = None
    config: dict[str, Any] = Field(default_factory=dict)
    context: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def is_default(self) -> bool:
        """The assistant the server made for the graph itself (`created_by: system`)."""
        return self.metadata.get("created_by") == "system"


class AssistantVersion(Assistant):
    """One entry of `POST /assistants/{id}/versions`: the configuration of one version."""

    version: int = 0


class GraphNode(ApiModel):
    id: str
    type: str | None = None
    data: Any = None


class GraphEdge(ApiModel):
    source: str
    target: str
    data: Any = None
    conditional: bool = False


class AssistantGraph(ApiModel):
    nodes: list[GraphNode] = Field(default_factory=list)
    edges: list[GraphEdge] = Field(default_factory=list)


class AssistantSchemas(ApiModel):
    graph_id: str
    input_schema: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    state_schema: dict[str, Any] | None = None
    config_schema: dict[str, Any] | None = None
    context_schema: dict[str, Any] | None = None


class Thread(ApiModel):
    thread_id: str
    status: str = "idle"
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime | None = None
    updated_at: datetime | None = None
    config: dict[str, Any] = Field(default_factory=dict)
    values: Any = Field(default_factory=dict)
    interrupts: dict[str, Any] = Field(default_factory=dict)

    @field_validator("values", mode="before")
    @classmethod
    def _empty_values(cls, value: Any) -> Any:
        # langgraph-api sends `"values": null` for a thread with no state yet; the
        # documented shape is an empty object, and callers can rely on that.
        return {} if value is None else value


class CheckpointRef(ApiModel):
    """Where a state lives: `checkpoint_id` in a thread, in a namespace ("" is the root)."""

    checkpoint_id: str | None = None
    thread_id: str | None = None
    checkpoint_ns: str = ""


class ThreadTask(ApiModel):
    id: str
    name: str
    error: str | None = None
    interrupts: list[dict[str, Any]] = Field(default_factory=list)
    checkpoint: dict[str, Any] | None = None
    state: Any = None
    result: Any = None


class ThreadState(ApiModel):
    """A thread's state at one checkpoint (also each entry of its history)."""

    values: Any = Field(default_factory=dict)
    next: list[str] = Field(default_factory=list)
    tasks: list[ThreadTask] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: str | None = None
    checkpoint: CheckpointRef = Field(default_factory=CheckpointRef)
    parent_checkpoint: CheckpointRef | None = None
    interrupts: list[dict[str, Any]] = Field(default_factory=list)

    @field_validator(
        "values", "next", "tasks", "metadata", "checkpoint", "interrupts", mode="before"
    )
    @classmethod
    def _null_is_empty(cls, value: Any, info: ValidationInfo) -> Any:
        # A thread with no state yet: langgraph-api sends `values`, `metadata` and
        # `checkpoint` as null. Read as the empty state rather than failing validation.
        if value is not None:
            return value
        field = cls.model_fields[info.field_name or ""]
        return field.get_default(call_default_factory=True)

    @property
    def checkpoint_id(self) -> str | None:
        return self.checkpoint.checkpoint_id

    @property
    def parent_checkpoint_id(self) -> str | None:
        return self.parent_checkpoint.checkpoint_id if self.parent_checkpoint else None

    @property
    def step(self) -> int | None:
        step = self.metadata.get("step")
        return step if isinstance(step, int) else None

    @property
    def source(self) -> str | None:
        source = self.metadata.get("source")
        return source if isinstance(source, str) else None

    @property
    def writes(self) -> dict[str, Any]:
        writes = self.metadata.get("writes")
        return writes if isinstance(writes, dict) else {}


def build_thread_state() -> None:
    """Build `ThreadState`'s validator now rather than on its first use (`defer_build`):
    the first thread opened in a process built it, 10-40 ms of CPU (with its tasks' and
    checkpoints') spent between the server's answer and the first rows on screen
    (`benchmarks/thread_view.py`). Once built, this returns at once."""
    ThreadState.model_rebuild()


class ThreadStateUpdateResult(ApiModel):
    checkpoint: CheckpointRef


class Run(ApiModel):
    run_id: str
    thread_id: str | None = None
    assistant_id: str | None = None
    status: str = "pending"
    metadata: dict[str, Any] = Field(default_factory=dict)
    run_kwargs: dict[str, Any] = Field(default_factory=dict, alias="kwargs")
    multitask_strategy: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
