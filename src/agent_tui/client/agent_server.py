"""`AgentServerClient`: one async client for a running agent server.

Sub-clients are named like langgraph-sdk's (`assistants`, `threads`, `runs`, `store`,
`crons`) so the
calls read the same to users who know the SDK.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import TYPE_CHECKING

import httpx

from agent_tui.client.assistants import AssistantsClient
from agent_tui.client.crons import CronsClient
from agent_tui.client.errors import ApiError
from agent_tui.client.models import ServerInfo
from agent_tui.client.store import StoreClient
from agent_tui.client.threads import ThreadsClient
from agent_tui.client.transport import ApiClient, Credentials, RetryPolicy

if TYPE_CHECKING:
    from agent_tui.client.runs import RunsClient

STUDIO_HEADERS = {"x-auth-scheme": "langsmith"}
"""What LangGraph Studio sends, and agent-tui with it to the local servers it starts and to
a deployment's server opened from the control plane. A local development server
(langgraph-api's ``local_dev`` variant) lets such a client past the project's own ``auth``
handler, as it lets Studio; a deployment checks the LangSmith key (``x-api-key``) instead
of the project's auth (langgraph-api ``auth/custom.py``). Any other client still meets the
project's auth."""


class AgentServerClient(ApiClient):
    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        tenant_id: str | None = None,
        headers: Mapping[str, str] | None = None,
        retry: RetryPolicy | None = None,
        http_transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__(
            base_url,
            credentials=Credentials(api_key=api_key, tenant_id=tenant_id),
            headers=headers,
            retry=retry,
            http_transport=http_transport,
        )
        self.assistants = AssistantsClient(self.transport)
        self.threads = ThreadsClient(self.transport)
        self.store = StoreClient(self.transport)
        self.crons = CronsClient(self.transport)

    @cached_property
    def runs(self) -> RunsClient:
        """Made on first use: with the runs' typed events it takes ~60 ms to import, which
        the app's first screens need not (a chat does)."""
        from agent_tui.client.runs import RunsClient

        return RunsClient(self.transport)

    async def info(self) -> ServerInfo:
        """`GET /info`: the server's version and feature flags."""
        return await self.transport.request_as(ServerInfo, "GET", "/info")

    async def ok(self) -> bool:
        """Whether `GET /ok` answers; never raises."""
        try:
            await self.transport.request("GET", "/ok", timeout=5.0, idempotent=False)
        except ApiError:
            return False
        return True
