"""The shared async API client. Headless: this package never imports Textual."""

from agent_tui.client.agent_server import AgentServerClient
from agent_tui.client.control_plane import ControlPlaneClient, RevisionWaitTimedOut
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
from agent_tui.client.runs import RunStream
from agent_tui.client.transport import Credentials, RetryPolicy, Transport

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
