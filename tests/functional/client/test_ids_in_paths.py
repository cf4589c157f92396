"""An id names itself and nothing else: ids from a server or the command line go into a
request's path quoted, so `..`, `/`, `?` or `#` in one cannot reach another resource.

Against the real agent server: before ids were quoted, deleting the "thread"
``../assistants/<id>`` deleted that assistant (URLs resolve dot segments), and
``agent-tui crons rm ../../threads/<id>`` deleted a thread.
"""

from __future__ import annotations

import asyncio

import pytest

from agent_tui.cli.main import main
from agent_tui.client import AgentServerClient, NotFound, ValidationFailed
from agent_tui.client.url_path import segment


async def test_a_thread_id_with_dot_segments_deletes_no_assistant(
    client: AgentServerClient,
) -> None:
    assistant = await client.assistants.create("counter", name="kept")
    for hostile in (
        f"../assistants/{assistant.assistant_id}",
        f"x/../../assistants/{assistant.assistant_id}",
        f"..%2F..%2Fassistants%2F{assistant.assistant_id}",
    ):
        # The server's own answer for an id it does not have: not a UUID, or not found.
        with pytest.raises((NotFound, ValidationFailed)):
            await client.threads.delete(hostile)
    kept = await client.assistants.get(assistant.assistant_id)
    assert kept.name == "kept"


async def test_a_cron_id_with_dot_segments_deletes_no_thread(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    thread = await client.threads.create(metadata={"kept": True})
    code = await asyncio.to_thread(
        main, ["crons", "rm", f"../../threads/{thread.thread_id}", "--url", agent_server_url]
    )
    out, err = capsys.readouterr()
    assert code == 1, (out, err)
    assert "no cron job ../../threads/" in err
    assert (await client.threads.get(thread.thread_id)).metadata == {"kept": True}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("5f0c", "5f0c"),
        ("..", "%2E%2E"),
        (".", "%2E"),
        ("a/../b", "a%2F..%2Fb"),
        ("a?b#c", "a%3Fb%23c"),
        ("100%", "100%25"),
        ("\x1b[2J", "%1B%5B2J"),
        ("\ud800", "%ED%A0%80"),
    ],
)
def test_a_segment_keeps_an_id_one_segment(value: str, expected: str) -> None:
    assert segment(value) == expected
