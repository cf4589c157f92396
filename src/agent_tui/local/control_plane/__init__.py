"""A local deployment control plane that speaks the LangSmith `/v2` API (headless).

Deployments of ``source: "internal_source"`` point at a local ``langgraph.json``, or at a
tarball uploaded to the URL the control plane hands out (the official CLI's
``langgraph deploy --remote``), unpacked into the revision's own folder; each revision is
built (graphs imported in a child process) and deployed as a real
`EmbeddedAgentServer`. State lives in SQLite in the data folder. Importing this package
imports nothing heavy: `server` (uvicorn, Starlette) loads on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_tui.local.control_plane.server import LocalControlPlane

__all__ = ["LocalControlPlane"]


def __getattr__(name: str) -> Any:
    if name == "LocalControlPlane":
        from agent_tui.local.control_plane.server import LocalControlPlane

        return LocalControlPlane
    raise AttributeError(name)
