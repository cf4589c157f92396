"""`agent-tui run` against the real server: what it prints, what it leaves on the server,
and its exit codes (0 ended, 3 paused, 1 the server said no, 2 bad usage, 130 ctrl+c).

`main([...])` runs in a worker thread (it calls `asyncio.run`, and the tests' own event
loop is running), with stdout and stderr captured; ctrl+c needs a real process.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from agent_tui.client import AgentServerClient
from agent_tui.text.sanitize import clean_text
from tests.support.cli import cli, write_readonly_context
from tests.support.hostile_text import EVERYTHING, MARKER, terminal_controls


def thread_of(out: str) -> str:
    """The thread id from the first line of the human output (`thread ID (…)`)."""
    first = out.splitlines()[0].split()
    assert first[0] == "thread", out
    return first[1]


async def test_a_message_streams_the_answer_on_a_new_thread(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = await cli(
        capsys, "run", "chat", "--message", "weather in Paris", "--url", agent_server_url
    )
    assert (code, err) == (0, "")
    lines = out.splitlines()
    thread_id = thread_of(out)
    assert lines[0] == f"thread {thread_id} (new thread on chat)"
    assert lines[1].startswith("run ")
    weather = lines[4].split(": ", 1)[1]
    assert weather.startswith("It is ") and weather.endswith(" in Paris.")
    assert lines[2:] == [
        'tool call: get_weather({"city":"Paris"})',
        "agent ▸ messages",
        f"tool result (get_weather): {weather}",
        "tools ▸ messages",
        f"ai (agent): {weather}",
        "agent ▸ messages",
    ]
    thread = await client.threads.get(thread_id)
    assert thread.status == "idle"
    assert thread.metadata["graph_id"] == "chat"
    assert thread.values["messages"][-1]["content"] == weather

    # The same thread again: only the new exchange is printed, not what it held before.
    code, out, _ = await cli(
        capsys, "run", "--thread", thread_id, "--message", "hello", "--url", agent_server_url
    )
    assert code == 0
    assert out.splitlines()[0].startswith(f"thread {thread_id} (on chat")
    assert out.splitlines()[2:] == ["ai (agent): You said: hello", "agent ▸ messages"]


async def test_json_prints_one_object_per_event_then_the_outcome(
    agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = await cli(
        capsys, "run", "chat", "--message", "hi", "--json", "--url", agent_server_url
    )
    assert (code, err) == (0, "")
    records = [json.loads(line) for line in out.splitlines()]
    assert all(list(record) == ["event", "data", "run_id", "thread_id"] for record in records)
    events = [record["event"] for record in records]
    assert events[0] == "metadata" and events[-1] == "outcome"
    assert {"updates", "messages"} <= set(events)
    run_id = records[0]["data"]["run_id"]
    assert {record["run_id"] for record in records} == {run_id}
    assert len({record["thread_id"] for record in records}) == 1
    tokens = "".join(
        record["data"][0]["content"] for record in records if record["event"] == "messages"
    )
    assert tokens == "You said: hi"
    assert records[-1]["data"] == {
        "state": "done",
        "thread_status": "idle",
        "reason": None,
        "next": [],
        "pause": None,
        "interrupts": [],
        "failure": None,
        "totals": None,  # not traced here (nor its calls streamed)
    }


async def test_a_breakpoint_pauses_the_run_and_a_run_with_no_input_goes_on(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = ["--url", agent_server_url]
    code, out, err = await cli(
        capsys, "run", "counter", "--input", '{"n": 5}', "--interrupt-before", "dbl", *url
    )
    assert (code, err) == (3, "")
    thread_id = thread_of(out)
    assert out.splitlines()[2:] == [
        "inc ▸ n=6, items=[5]",
        "paused before dbl (breakpoint)",
        f"continue: agent-tui run counter --thread {thread_id}",
    ]
    state = await client.threads.get_state(thread_id)
    assert (state.next, state.values["n"]) == (["dbl"], 6)

    # No assistant named: the thread's own; no input: the paused run goes on.
    code, out, err = await cli(capsys, "run", "--thread", thread_id, *url)
    assert (code, err) == (0, "")
    assert out.splitlines()[2:] == ["dbl ▸ n=12"]
    thread = await client.threads.get(thread_id)
    assert (thread.status, thread.values["n"]) == ("idle", 12)

    # After a node, and every node with `*`; --json says where in its outcome.
    code, out, _ = await cli(
        capsys, "run", "counter", "--input", '{"n": 1}', "--interrupt-after", "inc", "--json", *url
    )
    assert code == 3
    outcome = json.loads(out.splitlines()[-1])
    assert outcome["event"] == "outcome"
    assert outcome["data"]["pause"] == {"when": "after", "node": "inc"}
    assert outcome["data"]["next"] == ["dbl"]
    code, out, _ = await cli(
        capsys, "run", "counter", "--input", "{}", "--interrupt-before", "*", *url
    )
    assert code == 3
    assert "paused before inc (breakpoint)" in out.splitlines()


async def test_an_interrupt_waits_for_its_answer_and_resume_answers_it(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = ["--url", agent_server_url]
    code, out, err = await cli(capsys, "run", "chat", "--message", "deploy to mars", *url)
    assert (code, err) == (3, "")
    thread_id = thread_of(out)
    question = '{"action":"deploy","target":"mars","question":"Deploy to mars? (yes/no)"}'
    lines = out.splitlines()
    assert f"interrupt: {question}" in lines
    assert lines[-2].startswith("waiting at approve for an answer (interrupt ")
    assert lines[-2].endswith(f"): {question}")
    assert lines[-1] == f"answer: agent-tui run chat --thread {thread_id} --resume JSON"

    code, out, err = await cli(capsys, "run", "--thread", thread_id, "--resume", '"yes"', *url)
    assert (code, err) == (0, "")
    assert "ai (agent): Deployed to mars." in out.splitlines()
    assert (await client.threads.get(thread_id)).status == "idle"

    # Asked inside a subgraph: the path says where, and the answer goes down to it.
    code, out, _ = await cli(capsys, "run", "nested", "--message", "deploy to mars", *url)
    assert code == 3
    thread_id = thread_of(out)
    lines = out.splitlines()
    assert f"[chat] interrupt: {question}" in lines
    assert lines[-2].startswith("waiting at chat ▸ approve for an answer (interrupt ")
    code, out, _ = await cli(capsys, "run", "--thread", thread_id, "--resume", '"no"', *url)
    assert code == 0
    assert "[chat] ai (agent): Deployment to mars cancelled." in out.splitlines()


async def test_several_interrupts_are_answered_by_their_ids(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = ["--url", agent_server_url]
    code, out, _ = await cli(capsys, "run", "questions", "--input", "{}", *url)
    assert code == 3
    thread_id = thread_of(out)
    thread = await client.threads.get(thread_id)
    ids = {
        item["value"]["question"]: item["id"]
        for items in thread.interrupts.values()
        for item in items
    }
    a, b = ids["Answer for a?"], ids["Answer for b?"]
    lines = out.splitlines()
    assert (
        f'waiting at ask_a for an answer (interrupt {a}): {{"question":"Answer for a?"}}' in lines
    )
    assert (
        f'waiting at ask_b for an answer (interrupt {b}): {{"question":"Answer for b?"}}' in lines
    )
    assert lines[-1] == (
        f"answer each by its id: agent-tui run questions --thread {thread_id} "
        f'--resume \'{{"{a}": …, "{b}": …}}\''
    )

    # A bare value is refused here (the server would refuse it too, and leave the
    # thread in error): nothing is sent.
    code, out, err = await cli(capsys, "run", "--thread", thread_id, "--resume", '"x"', *url)
    assert (code, out) == (2, "")
    assert err.startswith(
        f"agent-tui: --resume: 2 interrupts wait on thread {thread_id}, and the server "
        "refuses a bare value then: map each id to its answer"
    )
    assert a in err and b in err
    assert (await client.threads.get(thread_id)).status == "interrupted"

    answers = json.dumps({a: "one", b: "two"})
    code, out, err = await cli(capsys, "run", "--thread", thread_id, "--resume", answers, *url)
    assert (code, err) == (0, "")
    thread = await client.threads.get(thread_id)
    assert thread.status == "idle"
    assert sorted(thread.values["answers"]) == ["a=one", "b=two"]


async def test_a_failing_run_exits_1_with_the_servers_words(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = ["--url", agent_server_url]
    failing = await client.assistants.create("ticker", context={"ticks": 1, "then": "fail"})
    code, out, err = await cli(capsys, "run", failing.assistant_id, "--input", "{}", *url)
    assert code == 1
    assert err == "agent-tui: the run failed: RuntimeError in tick: the ticker was told to fail\n"
    thread_id = thread_of(out)
    assert (await client.threads.get(thread_id)).status == "error"

    missing = str(uuid.uuid4())
    code, out, err = await cli(capsys, "run", "chat", "--thread", missing, "--message", "hi", *url)
    assert (code, out) == (1, "")
    assert err.startswith(f"agent-tui: Not found: Thread with ID {missing} not found")
    code, out, err = await cli(capsys, "run", missing, "--message", "hi", *url)
    assert (code, out) == (1, "")
    assert err.startswith(f"agent-tui: no assistant or graph '{missing}' on the server")
    code, _, err = await cli(capsys, "run", "nograph", "--message", "hi", *url)
    assert code == 1 and err.startswith("agent-tui: Not found: Graph 'nograph' not found.")

    # A busy thread: the run is refused (not queued behind the other one).
    slow = await client.assistants.create("ticker", context={"ticks": 2000, "delay": 0.05})
    busy = await client.threads.create(metadata={"graph_id": "ticker"})
    async with client.runs.stream(busy.thread_id, slow.assistant_id, input={}) as running:
        async for _ in running:
            break  # the run has started
        code, out, err = await cli(capsys, "run", "--thread", busy.thread_id, "--input", "{}", *url)
        assert running.run_id is not None
        await client.runs.cancel(busy.thread_id, running.run_id, wait=True)
    assert code == 1
    assert err.startswith("agent-tui: A run is already active on this thread")
    assert len(await client.runs.list(busy.thread_id)) == 1


async def test_a_failed_call_is_told_in_the_exceptions_own_words(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # The `failing` graph's node connects to a port that refuses: the stream and the
    # thread say only "An internal error occurred"; the failing task has the words.
    url = ["--url", agent_server_url]
    code, out, err = await cli(capsys, "run", "failing", "--message", "hello", *url)
    assert code == 1
    [said] = err.splitlines()
    assert said.startswith("agent-tui: the run failed: ConnectError in call_model: ")
    assert said.endswith("Connection refused: code 7731")
    assert "internal error" not in err
    thread_id = thread_of(out)
    assert (await client.threads.get(thread_id)).status == "error"

    code, out, err = await cli(
        capsys, "run", "failing", "--message", "quota exceeded", "--json", *url
    )
    assert code == 1
    assert err == (
        "agent-tui: the run failed: QuotaExceeded in call_model: quota exceeded: code 7731\n"
    )
    records = [json.loads(line) for line in out.splitlines()]
    # The server's events as they came (its generic words included), then the outcome
    # with the failure in the exception's own words.
    [error] = [record["data"] for record in records if record["event"] == "error"]
    assert error == {"error": "QuotaExceeded", "message": "An internal error occurred"}
    assert records[-1]["event"] == "outcome"
    assert records[-1]["data"]["state"] == "error"
    assert records[-1]["data"]["failure"] == {
        "error": "QuotaExceeded",
        "message": "quota exceeded: code 7731",
        "node": "call_model",
    }


async def test_bad_usage_exits_2_and_starts_nothing(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = ["--url", agent_server_url]
    before = await client.threads.count()
    refusals: list[tuple[list[str], str]] = [
        (["chat", "--message", "hi", "--input", "{}"], "argument --input: not allowed with"),
        (["chat", "--input", "{"], "argument --input: not valid JSON"),
        (["chat", "--stream-mode", "updates,sideways"], "unknown stream mode 'sideways'"),
        (["chat", "--interrupt-before", "*,agent"], "'*' stands alone"),
        (["chat", "--resume", '"yes"'], "--resume needs --thread"),
        (
            ["counter", "--input", "{}", "--interrupt-before", "inc,nope"],
            "agent-tui: --interrupt-before: no node 'nope' in graph 'counter' "
            "(its nodes: inc, dbl)\n",
        ),
        (
            ["nested", "--message", "hi", "--interrupt-after", "chat:agent"],
            "not inside a subgraph",
        ),
        (
            ["--message", "hi"],
            "agent-tui: name the assistant or graph to run (the server's graphs:",
        ),
    ]
    for argv, expected in refusals:
        code, out, err = await cli(capsys, "run", *argv, *url)
        assert (code, out) == (2, ""), argv
        assert expected in err, err
        assert "Traceback" not in err
    assert await client.threads.count() == before

    # A thread of another graph: the run would move it there.
    code, out, _ = await cli(capsys, "run", "counter", "--input", '{"n": 1}', *url)
    assert code == 0
    thread_id = thread_of(out)
    code, out, err = await cli(
        capsys, "run", "chat", "--thread", thread_id, "--message", "hi", *url
    )
    assert (code, out) == (2, "")
    assert "the thread runs graph 'counter' and 'chat' runs 'chat'" in err
    # Nothing waits on it: a resume has nothing to answer.
    code, out, err = await cli(capsys, "run", "--thread", thread_id, "--resume", "1", *url)
    assert (code, out) == (2, "")
    assert err.startswith(f"agent-tui: --resume: thread {thread_id} has no interrupt waiting")


async def test_a_read_only_session_refuses_to_run(
    client: AgentServerClient,
    agent_server_url: str,
    config_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    await write_readonly_context(config_file, agent_server_url)
    before = await client.threads.count()
    url = ["--url", agent_server_url]
    refusals = [
        (["run", "chat", "--message", "hi", *url, "--readonly"], "--readonly is set"),
        (["--readonly", "run", "chat", "--message", "hi", *url], "--readonly is set"),
        (
            ["run", "chat", "--message", "hi", "--context", "prod"],
            "the context 'prod' is read-only",
        ),
    ]
    for argv, reason in refusals:
        code, out, err = await cli(capsys, *argv)
        assert (code, out) == (2, "")
        assert err == f"agent-tui: read-only mode: cannot start a run ({reason})\n"
    monkeypatch.setenv("AGENT_TUI_READONLY", "1")
    code, out, err = await cli(capsys, "run", "chat", "--message", "hi", *url)
    assert (code, out) == (2, "")
    assert err == "agent-tui: read-only mode: cannot start a run (AGENT_TUI_READONLY is set)\n"
    assert await client.threads.count() == before


async def test_hostile_text_from_the_server_stays_inert(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = ["--url", agent_server_url]
    named = await client.assistants.create("chat", name=EVERYTHING)
    code, out, err = await cli(capsys, "run", named.assistant_id, "--message", EVERYTHING, *url)
    assert (code, err) == (0, "")
    assert terminal_controls(out) == []
    lines = out.splitlines()
    assert lines[0].startswith(f"thread {thread_of(out)} (new thread on {MARKER}")
    # Shown, cleaned as every human output is (a carriage return starts a new line).
    said = (await client.threads.get(thread_of(out))).values["messages"][-1]["content"]
    assert said.startswith(f"You said: {MARKER}")
    assert f"\nai (agent): {clean_text(said)}\n" in out

    # JSON keeps the exact text, escaped (inert on a terminal, the same value once parsed).
    code, out, _ = await cli(
        capsys, "run", "chat", "--message", EVERYTHING, "--json", "--stream-mode", "updates", *url
    )
    assert code == 0 and terminal_controls(out) == []
    updates = [json.loads(line)["data"] for line in out.splitlines()]
    answers: list[Any] = [u["agent"]["messages"][-1]["content"] for u in updates if "agent" in u]
    assert answers == [said]  # the server keeps a NUL as U+FFFD: the rest is exact

    # An error's words (the exception's own, read back from its repr in the thread's
    # state), and the answer an interrupt waits for.
    code, out, err = await cli(capsys, "run", "chat", "--message", f"fail {EVERYTHING}", *url)
    assert code == 1
    assert terminal_controls(out) == [] and terminal_controls(err) == []
    for json_flag in ((), ("--json",)):
        code, out, err = await cli(
            capsys, "run", "failing", "--message", f"quota {EVERYTHING}", *json_flag, *url
        )
        assert code == 1
        assert terminal_controls(out) == [] and terminal_controls(err) == []
        assert MARKER in err and "code 7731" in err
    code, out, err = await cli(capsys, "run", "chat", "--message", f"deploy to {EVERYTHING}", *url)
    assert code == 3
    assert terminal_controls(out) == [] and MARKER in out.splitlines()[-2]

    # Names that are no names, quoted back in errors: a message, never raw bytes.
    for argv, expected in (
        ([EVERYTHING, "--message", "hi"], 1),
        (["chat", "--thread", EVERYTHING, "--message", "hi"], 1),
        (["counter", "--input", "{}", "--interrupt-before", EVERYTHING], 2),
    ):
        code, out, err = await cli(capsys, "run", *argv, *url)
        assert (code, out) == (expected, "")
        assert terminal_controls(err) == [] and MARKER in err and "Traceback" not in err


def test_ctrl_c_cancels_the_run_on_the_server(agent_server_url: str) -> None:
    async def slow_assistant() -> str:
        async with AgentServerClient(agent_server_url) as client:
            assistant = await client.assistants.create(
                "ticker", context={"ticks": 2000, "delay": 0.05}
            )
            return assistant.assistant_id

    assistant_id = asyncio.run(slow_assistant())
    argv = ["run", assistant_id, "--input", "{}", "--stream-mode", "updates,custom"]
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_tui", *argv, "--url", agent_server_url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    try:
        seen = [process.stdout.readline() for _ in range(3)]  # thread, run, the first tick
        assert seen[2] == 'custom: {"tick":0}\n', seen
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert err == "agent-tui: cancelled the run on the server\n"
    thread_id = seen[0].split()[1]
    run_id = seen[1].split()[1]

    async def run_status() -> str:
        async with AgentServerClient(agent_server_url) as client:
            return (await client.runs.get(thread_id, run_id)).status

    assert asyncio.run(run_status()) == "interrupted"  # what a cancelled run reads as


async def test_a_graph_without_messages_refuses_a_message_and_runs_its_input(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # The graph would ignore a human message: exit 2, naming its input keys, and no run.
    before = len(await client.threads.search(limit=1000))
    code, out, err = await cli(
        capsys, "run", "pipeline", "--message", "hi", "--url", agent_server_url
    )
    assert (code, out) == (2, "")
    assert "graph 'pipeline' takes no messages" in err
    assert "its input keys: topic (string), notes (string), summary (string)" in err
    assert '--input \'{"topic": "", "notes": "", "summary": ""}\'' in err
    assert len(await client.threads.search(limit=1000)) == before

    # A wrong input is refused the same way, saying what is wrong.
    code, out, err = await cli(
        capsys, "run", "pipeline", "--input", '{"topic": 3}', "--url", agent_server_url
    )
    assert (code, out) == (2, "")
    assert "--input: topic must be string" in err
    code, out, err = await cli(
        capsys, "run", "pipeline", "--input", '{"topik": "owls"}', "--url", agent_server_url
    )
    assert (code, out) == (2, "")
    assert "--input: no key topik in the graph's input" in err

    # Its input runs, and each node's update prints with its values.
    code, out, err = await cli(
        capsys, "run", "pipeline", "--input", '{"topic": "owls"}', "--url", agent_server_url
    )
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[2].startswith('research ▸ notes="OWLS and more')
    assert lines[3] == 'summarize ▸ summary="summary of owls"'
    thread = await client.threads.get(thread_of(out))
    assert thread.values["summary"] == "summary of owls"
