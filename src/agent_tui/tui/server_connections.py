"""The app's connections to servers, which it owns and closes on exit (`aclose`).

- One `AgentServerClient` per base URL and credentials (two contexts may share a
  server). Each reports how its requests go, so the header can say whether the current
  server is there.
- One `ControlPlaneClient` per URL and credentials, for the contexts' control planes
  (`control_plane_access`).
- The local control plane, started on first use by a context that names no control
  plane URL, and stopped (with the agent servers it deployed) on exit.

No Textual here. The client package (httpx, pydantic) and the local control plane are
imported on first use, after the app's first paint (see tui/app.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient, ControlPlaneClient
    from agent_tui.local.control_plane import LocalControlPlane
    from agent_tui.settings.contexts import Context

logger = logging.getLogger(__name__)

_ClientKey = tuple[str, str | None, str | None]  # URL, API key, workspace (tenant) id
# ... and the headers the client sends (a context's own; agent-tui's past a project's auth)
_AgentClientKey = tuple[str, str | None, str | None, tuple[tuple[str, str], ...]]


class ServerConnections:
    """The clients of every server the app has talked to, and the local control plane."""

    def __init__(
        self,
        *,
        current: Callable[[], AgentServerClient | None],
        on_online: Callable[[], None],
        on_offline: Callable[[str], None],
    ) -> None:
        """`current`: the client of the server the app is on now; only its requests call
        `on_online` (one worked) and `on_offline` (one could not reach the URL given)."""
        self._current = current
        self._on_online = on_online
        self._on_offline = on_offline
        self._clients: dict[_AgentClientKey, AgentServerClient] = {}
        self._control_planes: dict[_ClientKey, ControlPlaneClient] = {}
        self.local_control_plane: LocalControlPlane | None = None
        self._control_plane_lock: asyncio.Lock | None = None
        self.control_plane_description = ""  # e.g. "local control plane (…) · http://…"

    def client_for(
        self,
        url: str,
        api_key: str | None = None,
        workspace_id: str | None = None,
        headers: tuple[tuple[str, str], ...] = (),
        *,
        started_here: bool = False,
    ) -> AgentServerClient:
        """The one client for `url` (and these credentials and headers), created on first
        use. `started_here`: a local server agent-tui started, which lets agent-tui past
        the project's own auth as ``langgraph dev`` lets Studio (`STUDIO_HEADERS`)."""
        from agent_tui.client import AgentServerClient
        from agent_tui.client.agent_server import STUDIO_HEADERS

        if started_here:
            headers = (*headers, *STUDIO_HEADERS.items())
        key = (url, api_key, workspace_id, headers)
        client = self._clients.get(key)
        if client is None:
            client = AgentServerClient(
                url, api_key=api_key, tenant_id=workspace_id, headers=dict(headers) or None
            )
            # Only the current server's answers and failures set the header: a stream
            # still open on a previous context's server, or the control plane, says
            # nothing about whether this one is there.
            client.transport.response_listeners.append(
                lambda: self._on_online() if self._current() is client else None
            )
            client.transport.failure_listeners.append(
                lambda url: self._on_offline(url) if self._current() is client else None
            )
            self._clients[key] = client
        return client

    async def control_plane(self, context: Context) -> ControlPlaneClient:
        """`context`'s control plane client (`control_plane_access`), created once per URL
        and credentials. A context without a control plane URL gets the local one,
        started here on first use; one that cannot start is an `ApiError` like any
        other, for the screen to show."""
        from agent_tui.client import ApiError

        try:
            return await self._control_plane(context)
        except ApiError:
            raise
        except Exception as error:  # the local control plane did not start
            raise ApiError(f"the local control plane did not start: {error}") from error

    async def _control_plane(self, context: Context) -> ControlPlaneClient:
        from agent_tui.client import ControlPlaneClient
        from agent_tui.deployments.control_plane_access import (
            control_plane_access,
            describe_control_plane,
        )

        if self._control_plane_lock is None:
            self._control_plane_lock = asyncio.Lock()
        access = control_plane_access(context)
        async with self._control_plane_lock:  # two screens must not start two of them
            url: str
            api_key: str | None
            tenant: str | None
            owner = None
            if access.url is None:
                url, api_key, owner = await self._local_control_plane()
                tenant = None
            else:
                url, api_key, tenant = access.url, access.api_key, access.tenant_id
            self.control_plane_description = describe_control_plane(
                url, local=access.is_local, owner=owner
            )
            key = (url, api_key, tenant)
            client = self._control_planes.get(key)
            if client is None:
                client = ControlPlaneClient(url, api_key=api_key, tenant_id=tenant)
                self._control_planes[key] = client
            return client

    async def _local_control_plane(self) -> tuple[str, str | None, str]:
        """The local control plane's URL, key and whose it is: the one serving the data
        folder (`agent-tui control-plane serve`, another copy of the app), or one started
        here (one per data folder: `ControlPlaneRunning`)."""
        if self.local_control_plane is not None and self.local_control_plane.port is not None:
            local = self.local_control_plane
            return local.url, local.api_key, "started by agent-tui"
        from agent_tui.local.control_plane import LocalControlPlane
        from agent_tui.local.control_plane.server import ControlPlaneRunning, running_url
        from agent_tui.settings.logs import add_secret

        local = LocalControlPlane()  # its data folder honours AGENT_TUI_HOME
        add_secret(local.api_key)
        self.local_control_plane = local  # set before start: `aclose` must find it
        try:
            await asyncio.to_thread(local.start)
        except ControlPlaneRunning as running:
            self.local_control_plane = None
            url = await running_url(running)
            logger.info("using the local control plane at %s (%s)", url, running)
            return url, local.api_key, f"process {running.running.pid}'s"
        except BaseException:
            # The next use tries again from a clean slate instead of reusing a dead one.
            await asyncio.to_thread(local.stop)
            self.local_control_plane = None
            raise
        logger.info("local control plane ready at %s (data: %s)", local.url, local.data_dir)
        return local.url, local.api_key, "started by agent-tui"

    async def aclose(self) -> None:
        """Close every client and stop the local control plane (once nothing uses them)."""
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()
        for control_plane in self._control_planes.values():
            await control_plane.aclose()
        self._control_planes.clear()
        if self.local_control_plane is not None:
            # It stops the agent servers it deployed too.
            await asyncio.to_thread(self.local_control_plane.stop)
            self.local_control_plane = None
