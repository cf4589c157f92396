"""Which control plane a context talks to, and with what credentials (headless).

The same rules as `agent-tui deployments` (`cli/deployments.control_plane_client`):
the URL is the context's `control_plane_url`; the key is `AGENT_TUI_CONTROL_PLANE_KEY`,
else the context's own API key (a LangSmith key serves both the agent servers and the
control plane); the workspace is the context's. A context without a control plane URL
gets the local control plane, which the app starts itself (`url` is None here).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from agent_tui.settings.contexts import Context
from agent_tui.settings.target import RemoteServer

CONTROL_PLANE_KEY_ENV = "AGENT_TUI_CONTROL_PLANE_KEY"


@dataclass(frozen=True, slots=True)
class ControlPlaneAccess:
    url: str | None  # None: the local control plane (started by agent-tui)
    api_key: str | None = field(default=None, repr=False)  # never in a repr or a log
    tenant_id: str | None = None

    @property
    def is_local(self) -> bool:
        return self.url is None


def control_plane_access(
    context: Context, environ: Mapping[str, str] | None = None
) -> ControlPlaneAccess:
    env = os.environ if environ is None else environ
    api_key = env.get(CONTROL_PLANE_KEY_ENV, "").strip() or None
    if api_key is None and isinstance(context.target, RemoteServer):
        api_key = context.target.api_key
    return ControlPlaneAccess(context.control_plane_url, api_key, context.workspace_id)


def describe_control_plane(url: str, *, local: bool, owner: str | None = None) -> str:
    """The line a screen shows so the user knows which control plane answers (`owner`:
    whose local one it is)."""
    if local:
        return f"local control plane ({owner or 'started by agent-tui'}) · {url}"
    return f"control plane · {url}"
