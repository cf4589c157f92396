"""Shared by the Threads screen tests: threads made fast on the real server, hostile text."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from agent_tui.client import AgentServerClient
from agent_tui.client.models import Thread

# Markup that would quit the app when clicked, a style, a clipboard write (OSC 52), a
# window title (OSC 0), a screen clear and a colour (CSI).
HOSTILE = "[@click=app.quit]x[/] [bold]b \x1b]52;c;aGVsbG8=\x07\x1b]0;pwned\x07\x1b[2J\x1b[31mred"
SHOWN = "[@click=app.quit]x[/] [bold]b red"
ESCAPES = ("\x1b", "\x07", "]52;", "]0;", "[2J", "[31m")


def tag() -> str:
    """A metadata value unique to one test, so it sees only its own threads.

    Never all digits: the metadata field would rightly read that as a number (about one
    run in 300 drew such a hex string and failed).
    """
    return "t" + uuid.uuid4().hex[:12]


def chat_steps(*texts: str) -> list[dict[str, Any]]:
    """Supersteps for the demo chat graph: messages alternate human / ai."""
    messages = [
        {"type": "human" if i % 2 == 0 else "ai", "content": text, "id": f"m{i}"}
        for i, text in enumerate(texts)
    ]
    return [
        {"updates": [{"values": {"messages": []}, "as_node": "__input__"}]},
        {"updates": [{"values": {"messages": messages}, "as_node": "agent"}]},
    ]


def counter_steps(count: int) -> list[dict[str, Any]]:
    """Counter graph supersteps; the last leaves `dbl` pending, so the thread is interrupted."""
    steps = [{"updates": [{"values": {"n": 0}, "as_node": "__input__"}]}]
    steps += [
        {"updates": [{"values": {"n": i, "items": [i]}, "as_node": "inc"}]}
        for i in range(1, count + 1)
    ]
    return steps


async def create_many(
    client: AgentServerClient, count: int, metadata: dict[str, Any], batch: int = 100
) -> None:
    """`count` empty threads, created `batch` at a time in parallel.

    At most httpx's pool size (100 connections) at once: a larger batch queued for a
    connection and, on a loaded machine, the queued requests hit the 10 s pool timeout.
    Each names its thread (`if_exists="do_nothing"`), so the client sends it again when
    a connection is lost before the answer (seen with two suites on two cores).
    """
    for start in range(0, count, batch):
        size = min(batch, count - start)
        await asyncio.gather(
            *(
                client.threads.create(
                    metadata={**metadata, "i": start + i},
                    thread_id=str(uuid.uuid4()),
                    if_exists="do_nothing",
                )
                for i in range(size)
            )
        )


async def hostile_thread(client: AgentServerClient, label: str) -> Thread:
    return await client.threads.create(
        metadata={"graph_id": "chat", "suite": label, "note": HOSTILE, HOSTILE: "key"},
        supersteps=chat_steps(f"hello {HOSTILE}", f"answer {HOSTILE}"),
    )


async def page_to_the_end(pilot: Any, table: Any, wait_for: Any) -> int:
    """Press `end` until the table has every page; returns how many pages came in."""
    pages = 0
    while table.has_more:
        loaded = table.loaded_count

        def grew(loaded: int = loaded) -> bool:
            return bool(table.loaded_count > loaded or not table.has_more)

        await pilot.press("end")
        await wait_for(pilot, grew, what="the next page")
        pages += table.loaded_count > loaded
    return pages
