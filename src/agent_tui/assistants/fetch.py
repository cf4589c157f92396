"""Every assistant of a server, page by page up to a cap (headless).

The home screen counts graphs from this list and the Assistants screen fills its graph
filter from it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient
    from agent_tui.client.models import Assistant

# Enough for any real overview; past this the Assistants screen pages properly.
_ASSISTANT_PAGE = 100
_ASSISTANT_PAGES = 20


async def fetch_all_assistants(client: AgentServerClient) -> tuple[list[Assistant], bool]:
    """All assistants up to a cap, and whether the cap cut the list short."""
    found: list[Assistant] = []
    for page in range(_ASSISTANT_PAGES):
        batch = await client.assistants.search(limit=_ASSISTANT_PAGE, offset=page * _ASSISTANT_PAGE)
        found.extend(batch)
        if len(batch) < _ASSISTANT_PAGE:
            return found, False
    return found, True
