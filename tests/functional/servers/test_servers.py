"""agent-tui on each server it supports: langgraph-api and Aegra (PostgreSQL + Redis, two
instances on one database and one Redis), issue 22.

Every headless subcommand that talks to an agent server runs on both, with the same keys
and the same answers; where a server does not offer something (Aegra: thread import),
the command says so in one line, exits 1 and leaves nothing behind. Then what a user of a
scaled-out Aegra relies on: both instances are Aegra 0.11.0, a thread made on one is on
the other, a run started on one is followed and cancelled from the other, and a restart
of both instances loses nothing.

(One module for all of it: each xdist worker that runs Aegra tests starts its own stack.)
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.chat.driver_events import Finished, Received
from agent_tui.chat.session import ChatSession
from agent_tui.client import AgentServerClient
from agent_tui.client.capabilities import NotOffered
from agent_tui.client.events import MessagesEvent
from tests.support.aegra import AegraStack
from tests.support.cli import cli
from tests.support.servers import Server, server

__all__ = ["server"]  # the fixture, run once per server


def thread_of(output: str) -> str:
    """The thread id `agent-tui run` names first (`thread <id> (new thread …)`)."""
    line = next(line for line in output.splitlines() if line.startswith("thread "))
    return line.split()[1]


async def test_run_pause_resume_and_continue(
    server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    url = server.url
    code, out, err = await cli(capsys, "run", "chat", "--message", "hello", "--url", url)
    assert code == 0, err
    assert "You said: hello" in out + err

    # interrupt(): paused (exit 3), never "cancelled"; the answers go in by id.
    code, out, err = await cli(capsys, "run", "questions", "--input", "{}", "--url", url, "--json")
    assert code == 3, err
    events = [json.loads(line) for line in out.splitlines()]
    thread_id = events[0]["thread_id"]
    outcome = events[-1]
    assert outcome["event"] == "outcome" and outcome["data"]["state"] == "interrupted"
    ids = [item["id"] for item in outcome["data"]["interrupts"]]
    assert len(ids) == 2
    answers = json.dumps(dict(zip(ids, ["x", "y"], strict=True)))
    code, out, err = await cli(
        capsys, "run", "questions", "--thread", thread_id, "--resume", answers, "--url", url
    )
    assert code == 0, err
    assert "a=x" in out + err and "b=y" in out + err

    # A breakpoint: paused before the node (exit 3), then continued with no input.
    code, out, err = await cli(
        capsys, "run", "chat", "--message", "hi", "--interrupt-before", "agent", "--url", url
    )
    assert code == 3, err
    assert "paused before agent" in out + err
    thread_id = thread_of(out)
    code, out, err = await cli(capsys, "run", "chat", "--thread", thread_id, "--url", url)
    assert code == 0, err
    assert "You said: hi" in out + err


async def test_threads_history_diff_and_export(
    server: Server, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    kind, url = server.kind, server.url
    code, out, err = await cli(capsys, "run", "chat", "--message", "history please", "--url", url)
    assert code == 0, err
    thread_id = thread_of(out)

    code, out, err = await cli(capsys, "threads", "list", "--url", url, "--json")
    assert code == 0, err
    assert thread_id in [row["thread_id"] for row in json.loads(out)]

    code, out, err = await cli(capsys, "history", thread_id, "--url", url, "--json")
    assert code == 0, err
    rows = json.loads(out)
    steps = [row["step"] for row in rows]
    assert steps[-1] == -1 and len(steps) >= 3

    newest, oldest = rows[0]["checkpoint_id"], rows[-1]["checkpoint_id"]
    code, out, err = await cli(capsys, "diff", thread_id, oldest, newest, "--url", url, "--json")
    assert code == 0, err
    assert "You said: history please" in out

    # A copy: a new thread with the same history, or said plainly where not offered.
    async with AgentServerClient(url) as client:
        if kind == "aegra":
            with pytest.raises(NotOffered, match="does not copy threads"):
                await client.threads.copy(thread_id)
        else:
            copied = await client.threads.copy(thread_id)
            history = await client.threads.get_history(copied.thread_id, limit=10)
            assert len(history) == len(steps)

    exported = tmp_path / "thread.json"
    code, _, err = await cli(capsys, "export", thread_id, "-o", str(exported), "--url", url)
    assert code == 0, err
    assert json.loads(exported.read_text())["source"]["thread_id"] == thread_id

    async with AgentServerClient(url) as client:
        before = {t.thread_id for t in await client.threads.search(limit=1000)}
    code, out, err = await cli(capsys, "import", str(exported), "--url", url)
    async with AgentServerClient(url) as client:
        after = {t.thread_id for t in await client.threads.search(limit=1000)}
    if kind == "aegra":  # it ignores a thread's supersteps: said, and nothing left behind
        assert code == 1
        assert "does not replay a thread's history" in err and "nothing was imported" in err
        assert "Traceback" not in err
        assert after == before
    else:
        assert code == 0, err
        assert after - before == {out.strip()}


async def test_graph_drawing_by_graph_name(
    server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    """A graph name where an assistant id goes (Aegra: found by its default assistant)."""
    code, out, err = await cli(capsys, "graph", "chat", "--url", server.url, "--mermaid")
    assert code == 0, err
    assert out.startswith("flowchart TD") and "agent" in out and "tools" in out


async def test_store_and_crons(server: Server, capsys: pytest.CaptureFixture[str]) -> None:
    url = server.url
    code, _, err = await cli(
        capsys, "store", "put", "notes.both", "k1", "--value", '{"a": 1}', "--url", url
    )
    assert code == 0, err
    code, out, err = await cli(capsys, "store", "get", "notes.both", "k1", "--url", url, "--json")
    assert code == 0, err
    assert json.loads(out)["value"] == {"a": 1}
    code, out, err = await cli(capsys, "store", "search", "notes", "--url", url, "--json")
    assert code == 0, err
    assert [item["key"] for item in json.loads(out)] == ["k1"]
    code, out, err = await cli(capsys, "store", "ls", "--url", url)
    assert code == 0, err
    assert any(line.endswith("notes.both") for line in out.splitlines()), out
    code, _, err = await cli(capsys, "store", "rm", "notes.both", "k1", "--url", url)
    assert code == 0, err

    code, out, err = await cli(
        capsys,
        "crons",
        "create",
        "chat",
        "--schedule",
        "0 9 * * 1-5",
        "--message",
        "hi",
        "--url",
        url,
    )
    assert code == 0, err
    assert "Traceback" not in err
    cron_id = out.strip()
    code, out, err = await cli(capsys, "crons", "list", "--url", url, "--json")
    assert code == 0, err
    crons = [row for row in json.loads(out) if row["cron_id"] == cron_id]
    assert len(crons) == 1 and crons[0]["schedule"] == "0 9 * * 1-5"  # made once, not twice
    code, _, err = await cli(capsys, "crons", "rm", cron_id, "--url", url)
    assert code == 0, err


async def test_an_experiment_on_two_assistants_then_two_versions(
    server: Server, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A dataset of four examples run on two `echo` assistants (capitals, small letters),
    then on two versions of one: the same pass rates, regression and exit code on both
    servers. Tokens and model calls stay unknown: neither server here sends its traces to
    agent-tui's collector."""
    url = ["--url", server.url]
    tag = uuid.uuid4().hex[:6]
    source = tmp_path / "small.jsonl"
    source.write_text(
        "".join(
            json.dumps({"inputs": {"messages": [{"role": "user", "content": text}]},
                        "outputs": {"answer": answer}}) + "\n"
            for text, answer in [("hello Oslo", "HELLO OSLO"), ("hi Bern", "hi bern"),
                                 ("42", "42"), ("boom now", "never")]
        )
    )  # fmt: skip
    code, _out, err = await cli(capsys, "datasets", "import", str(source), "--name", f"small-{tag}")
    assert code == 0, err
    async with AgentServerClient(server.url) as client:
        upper = await client.assistants.create("echo", {"mode": "upper"}, name=f"upper-{tag}")
        lower = await client.assistants.create("echo", {"mode": "lower"}, name=f"lower-{tag}")

    async def experiment(*specs: str) -> dict[str, Any]:
        assistants = [arg for spec in specs for arg in ("--assistant", spec)]
        code, out, err = await cli(
            capsys, "experiments", "run", f"small-{tag}", *assistants, "--json", *url
        )
        assert code == 1, err  # "hello Oslo": passed in capitals, failed in small letters
        result: dict[str, Any] = json.loads(out)
        return result

    # Two assistants, then two versions of the first (version 2 answers as typed: on
    # Aegra a version may not take a context another assistant of the graph has).
    rounds = [
        ((upper.assistant_id, lower.assistant_id), [f"upper-{tag} v1", f"lower-{tag} v1"], 2),
        ((f"{upper.assistant_id}@1", f"{upper.assistant_id}@2"), [f"upper-{tag} v1", f"upper-{tag} v2"], 1),
    ]  # fmt: skip
    for specs, labels, later_passes in rounds:
        result = await experiment(*specs)
        assert [t["label"] for t in result["targets"]] == labels
        rows = [
            (r["passed"], r["judged"], r["errors"], r["model_calls"], r["input_tokens"])
            for r in result["summary"]
        ]
        assert rows == [(2, 4, 1, None, None), (later_passes, 4, 1, None, None)]
        texts = {e["id"]: e["inputs"]["messages"][0]["content"] for e in result["examples"]}
        assert [(texts[r["example_id"]], r["passed_on"], r["failed_on"])
                for r in result["regressions"]] == [("hello Oslo", *labels)]  # fmt: skip
        answers = {(texts[o["example_id"]], o["target"]): o for o in result["outcomes"]}
        assert answers[("hello Oslo", labels[0])]["output"] == "HELLO OSLO"
        assert answers[("hello Oslo", labels[1])]["output"] != "HELLO OSLO"
        failed = answers[("boom now", labels[1])]
        assert failed["status"] == "error" and "asked to fail: boom now" in failed["error"]
        if specs[0] == upper.assistant_id:
            async with AgentServerClient(server.url) as client:
                await client.assistants.update(upper.assistant_id, {"mode": "same"})


HELLO = {"messages": [{"role": "user", "content": "hello"}]}


@pytest.fixture
async def client_b(aegra: AegraStack) -> AsyncIterator[AgentServerClient]:
    async with AgentServerClient(aegra.url_b) as client:
        yield client


def texts(values: dict[str, Any]) -> list[str]:
    return [message["content"] for message in values["messages"]]


async def test_both_instances_are_aegra_0_11_0(
    aegra_client: AgentServerClient, client_b: AgentServerClient
) -> None:
    for client in (aegra_client, client_b):
        assert (await client.info()).server == "Aegra 0.11.0"


async def test_a_thread_made_on_one_instance_is_on_the_other(
    aegra_client: AgentServerClient, client_b: AgentServerClient
) -> None:
    thread = await aegra_client.threads.create(metadata={"made_on": "a"})
    seen = await client_b.threads.get(thread.thread_id)
    assert seen.metadata["made_on"] == "a"


async def test_a_run_started_on_one_instance_is_joined_from_the_other(
    aegra_client: AgentServerClient, client_b: AgentServerClient
) -> None:
    thread = await aegra_client.threads.create()
    run = await aegra_client.runs.create(
        thread.thread_id, "chat", input=HELLO, context={"token_delay_ms": 0}
    )
    values = await client_b.runs.join(thread.thread_id, run.run_id)
    assert texts(values) == ["hello", "You said: hello"]


async def test_a_run_started_on_one_instance_is_followed_and_cancelled_from_the_other(
    aegra_client: AgentServerClient, client_b: AgentServerClient
) -> None:
    thread = await aegra_client.threads.create(metadata={"graph_id": "chat"})
    run = await aegra_client.runs.create(
        thread.thread_id,
        "chat",
        input={"messages": [{"role": "user", "content": "count to 2000"}]},
        context={"token_delay_ms": 20},
        stream_mode=["updates", "messages-tuple"],
        stream_resumable=True,
    )
    session = ChatSession(client_b, thread.thread_id)
    await session.load()
    assert session.thread_status == "busy"
    tokens = 0
    finished: list[Finished] = []
    async for event, _ in session.join(run.run_id):
        if isinstance(event, Received) and isinstance(event.event, MessagesEvent):
            tokens += 1
            if tokens == 20:
                assert await session.cancel()
        elif isinstance(event, Finished):
            finished.append(event)
    assert [(f.state, f.reason) for f in finished] == [("cancelled", None)]
    assert (await aegra_client.runs.get(thread.thread_id, run.run_id)).status == "interrupted"
    reopened = ChatSession(aegra_client, thread.thread_id)
    await reopened.load()
    assert reopened.cancelled and reopened.machine.state == "cancelled"
    # What the thread kept: the question; the stopped node's partial answer is not in it.
    state = await aegra_client.threads.get_state(thread.thread_id)
    assert [m["content"] for m in state.values["messages"]] == ["count to 2000"]
    assert reopened.transcript.ai_texts() == []


async def test_a_thread_keeps_its_messages_across_a_restart_of_both_instances(
    aegra: AegraStack, aegra_client: AgentServerClient
) -> None:
    thread = await aegra_client.threads.create()
    run = await aegra_client.runs.create(
        thread.thread_id, "chat", input=HELLO, context={"token_delay_ms": 0}
    )
    await aegra_client.runs.join(thread.thread_id, run.run_id)

    aegra.restart()

    for url in (aegra.url_a, aegra.url_b):
        async with AgentServerClient(url) as client:
            state = await client.threads.get_state(thread.thread_id)
            assert texts(state.values) == ["hello", "You said: hello"]
            reopened = ChatSession(client, thread.thread_id)  # as the chat reopens it
            await reopened.load()
            assert reopened.transcript.ai_texts() == ["You said: hello"]
