"""What an agent server offers, learnt from its answers rather than assumed (headless).

langgraph-api implements every operation of the Agent Server API; other servers that
speak it (Aegra) leave some out or refuse some options. The client asks for the richer
form first; when the server says it has no such route (404/405 on a route that exists in
the spec) or refuses an option by name (422), the client remembers it here, once per
client, and uses what the server does have from then on (search pages instead of a
count, whole objects instead of a projection), or raises `NotOffered` where nothing
can stand in.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_tui.client.errors import ApiError, MethodNotAllowed, NotFound, ValidationFailed


@dataclass
class Capabilities:
    """True until the server showed it does not have the feature."""

    thread_projection: bool = True
    """`select` / `extract` on `POST /threads/search`."""
    thread_count: bool = True
    """`POST /threads/count`."""
    cron_get: bool = True
    """`GET /runs/crons/{id}` (else: search by id)."""
    graph_by_name: bool = True
    """A graph name where an assistant id goes (`GET /assistants/{graph}/graph`)."""
    run_without_input: bool = True
    """A run with no input, command or checkpoint (a paused thread goes on)."""


class NotOffered(ApiError):
    """The server does not offer this at all (no route, no stand-in): says which."""

    title = "Not offered by this server"


def no_route(error: ApiError) -> bool:
    """The server has no such route (or not for this method)."""
    return isinstance(error, MethodNotAllowed | NotFound)


def refused_option(error: ApiError, *names: str) -> bool:
    """A 422 whose words name one of the options `names` (Aegra: `body.select: Value
    error, select projection is not supported`)."""
    if not isinstance(error, ValidationFailed):
        return False
    said = " ".join([error.message, *(str(field) for field in error.errors)]).lower()
    return any(name in said for name in names)
