"""The shared async API client. Headless: this package never imports Textual."""

from typing import TYPE_CHECKING, Any

from agent_tui.client.agent_server import AgentServerClient
from agent_tui.client.errors import (
    ApiError,
    BadRequest,
    Conflict,
    ConnectionFailed,
    FieldError,
    Forbidden,
    HttpStatusError,
    NotFound,
    PartialFailure,
    RequestTimedOut,
    ServerError,
    StreamCut,
    Unauthorized,
    UnexpectedBody,
    UnexpectedStatus,
    ValidationFailed,
)
from agent_tui.client.transport import Credentials, RetryPolicy, Transport

if TYPE_CHECKING:
    from agent_tui.client.control_plane import ControlPlaneClient, RevisionWaitTimedOut
    from agent_tui.client.runs import RunStream

__all__ = [
    "AgentServerClient",
    "ApiError",
    "BadRequest",
    "Conflict",
    "ConnectionFailed",
    "ControlPlaneClient",
    "Credentials",
    "FieldError",
    "Forbidden",
    "HttpStatusError",
    "NotFound",
    "PartialFailure",
    "RequestTimedOut",
    "RetryPolicy",
    "RevisionWaitTimedOut",
    "RunStream",
    "ServerError",
    "StreamCut",
    "Transport",
    "Unauthorized",
    "UnexpectedBody",
    "UnexpectedStatus",
    "ValidationFailed",
]


def __getattr__(name: str) -> Any:
    # The control plane's client (and its request models) loads on first use: the app
    # connects to an agent server first, and these imports delayed its first screen.
    if name in ("ControlPlaneClient", "RevisionWaitTimedOut"):
        from agent_tui.client import control_plane

        return getattr(control_plane, name)
    if name == "RunStream":  # and the runs' typed events (~60 ms): a chat needs them
        from agent_tui.client import runs

        return runs.RunStream
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
