"""A thread named by the short id the tables show (`:thread …1d37dc1d`). Headless.

Tables show the end of a thread id (`threads.query.short_id`: the random part of a
time-ordered UUID). `:thread` and `:runs` take that form as well as a full id: the
server has no prefix search, so the most recently updated threads are read (ids only)
until one matches — up to `LOOK_AT` of them — and the match must be unique.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_tui.text.sanitize import clean_text

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient

LOOK_AT = 5000  # threads read at most to find a short id
_PAGE = 1000
_FULL_ID = re.compile(
    r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$"
)
_SHORT_ID = re.compile(r"^[0-9a-fA-F-]{4,35}$")


class ThreadNotFound(Exception):
    """The text names no thread, or several: the message says which and what to type."""


def is_full_id(text: str) -> bool:
    return bool(_FULL_ID.match(text))


async def resolve_thread_id(client: AgentServerClient, text: str, *, look_at: int = LOOK_AT) -> str:
    """The full id of the thread `text` names: a full id as it is; else the one thread
    whose id ends (or starts) with `text` (a leading `…` is ignored)."""
    wanted = text.strip().lstrip("…").lstrip(".").lower()
    if is_full_id(wanted):
        return text.strip()
    if not _SHORT_ID.match(wanted):
        raise ThreadNotFound(
            f"{text!r} is not a thread id: give the full id, or at least 4 of its last "
            "characters as the tables show them"
        )
    compact = wanted.replace("-", "")
    found: list[str] = []
    read = 0
    while read < look_at:
        page = await client.threads.search(
            limit=min(_PAGE, look_at - read),
            offset=read,
            sort_by="updated_at",
            sort_order="desc",
            select=["thread_id"],
        )
        for thread in page:
            plain = thread.thread_id.replace("-", "").lower()
            if plain.endswith(compact) or plain.startswith(compact):
                found.append(thread.thread_id)
        read += len(page)
        if len(page) < _PAGE or len(found) > 1:
            break
    if len(found) == 1:
        return found[0]
    if not found:
        scope = f"the {read} most recently updated threads" if read >= look_at else "any thread"
        raise ThreadNotFound(f"No thread id ends with {wanted!r} (looked at {scope})")
    shown = clean_text(", ".join(found[:5]))  # ids as the server sent them
    raise ThreadNotFound(f"{wanted!r} matches more than one thread ({shown}): give more of the id")
