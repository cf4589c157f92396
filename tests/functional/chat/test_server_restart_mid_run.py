"""A server restart while a node streams its answer (a live reload mid-run): the server
runs the node again; the chat rejoins, marks the first answer unfinished as soon as the
second starts, and ends showing the thread's messages, each once, saying what happened in
words (issue 20, part 3). Its own server: the shared one must not restart."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_tui.chat.items import AIItem, NoticeItem, Updated
from agent_tui.chat.run_request import RunRequest
from agent_tui.chat.session import ChatSession
from agent_tui.client import AgentServerClient
from agent_tui.local import EmbeddedAgentServer
from tests.support.chat import item_messages, state_messages
from tests.support.paths import GRAPHS_CONFIG

SLOW = {"token_delay_ms": 30}  # about 6 s of answer: time to restart in the middle


async def test_a_node_run_again_after_a_restart_leaves_one_answer(tmp_path: Path) -> None:
    server = EmbeddedAgentServer(
        GRAPHS_CONFIG, data_dir=tmp_path, log_file=tmp_path / "server.log", hold_listener=True
    )
    with server:
        async with AgentServerClient(server.url) as client:
            thread = await client.threads.create(metadata={"graph_id": "chat"})
            session = ChatSession(client, thread.thread_id, backoff=(0.5, 1, 2, 4, 8))
            restarted = False
            marked: list[str] = []
            async for _, changes in session.send(RunRequest("chat", context=SLOW), "count to 200"):
                items = session.transcript.items
                if not restarted and any(isinstance(i, AIItem) and len(i.text) > 60 for i in items):
                    restarted = True
                    await asyncio.to_thread(server.restart)
                marked += [
                    c.item.text
                    for c in changes
                    if isinstance(c, Updated)
                    and isinstance(c.item, AIItem)
                    and "Unfinished" in c.item.text
                ]
            shown = item_messages(session.transcript.items)
            assert shown == await state_messages(client, thread.thread_id)
    assert restarted
    assert [kind for kind, _ in shown] == ["human", "ai"]
    assert shown[1][1].endswith("199 200")
    assert marked and marked[0].endswith(
        "*Unfinished: the server restarted while `agent` ran; it ran again.*"
    )
    notices = [i.text for i in session.transcript.items if isinstance(i, NoticeItem)]
    assert notices == [
        "The server restarted while `agent` ran; it ran again: the transcript shows what"
        " the thread kept, not the first, unfinished answer."
    ]
