"""`agent-tui run` on multi-agent graphs (a real langgraph-swarm swarm, a real
langgraph-supervisor supervisor, a hand-built graph with two levels of subgraphs; real
server): each message and tool result is printed once, a handoff reads as `→ agent`, and
no "another branch" warning follows a straight run (issue 30)."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import cli

PRINTED = {
    "swarm": [
        "[flight_assistant] tool call: transfer_to_hotel_assistant({})",
        "[flight_assistant] model ▸ messages",
        "→ hotel_assistant",
        'flight_assistant ▸ messages, active_agent="hotel_assistant"',
        '[hotel_assistant] tool call: book_hotel({"city":"Paris"})',
        "[hotel_assistant] model ▸ messages",
        "[hotel_assistant] tool result (book_hotel): Booked a room in Paris.",
        "[hotel_assistant] tools ▸ messages",
        "[hotel_assistant] ai (model): Your room in Paris is booked.",
        "[hotel_assistant] model ▸ messages",
        "hotel_assistant ▸ messages",
    ],
    "supervisor": [
        "[supervisor] tool call: transfer_to_researcher({})",
        "[supervisor] agent ▸ messages",
        "→ researcher",
        "supervisor ▸ messages",
        '[researcher] tool call: search({"query":"hotel in paris"})',
        "[researcher] model ▸ messages",
        "[researcher] tool result (search): Found 3 results for hotel in paris.",
        "[researcher] tools ▸ messages",
        "[researcher] ai (model): The research is done: found 3 results.",
        "[researcher] model ▸ messages",
        "ai (researcher): Transferring back to supervisor",
        "→ supervisor",
        "tool call: transfer_back_to_supervisor({})",
        "researcher ▸ messages",
        "[supervisor] ai (agent): Here is what the researcher found.",
        "[supervisor] agent ▸ messages",
        "supervisor ▸ messages",
    ],
    "deep": [
        "[lead] tool call: transfer_to_team({})",
        "[lead] model ▸ messages",
        "→ team",
        "lead ▸ messages",
        "[team] plan ▸ nothing",
        '[team:worker] tool call: lookup({"topic":"hotel in paris"})',
        "[team:worker] agent ▸ messages",
        "[team:worker] tool result (lookup): hotel in paris is well known.",
        "[team:worker] tools ▸ messages",
        "[team:worker] ai (agent): Looked it up: hotel in paris is well known.",
        "[team:worker] agent ▸ messages",
        "[team] worker ▸ messages",
        "team ▸ messages",
    ],
    # The brief streams though kept out of `messages`; the human message written for the
    # researchers is in the node's update line only, not printed as somebody's message.
    "brief": [
        "ai (write_brief): Brief: hotel in paris",
        'write_brief ▸ brief="Brief: hotel in paris", supervisor_messages=[{"content":'
        '"Brief: hotel in paris","additional_kwargs":{},"response_metadata":{},'
        '"type":"human","name":null,"id":',
        "ai (write_report): Report on hotel in paris.",
        "write_report ▸ messages",
    ],
}


@pytest.mark.parametrize("graph", list(PRINTED))
async def test_a_straight_run_prints_each_message_once_and_handoffs_as_arrows(
    graph: str, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = await cli(
        capsys, "run", graph, "--message", "hotel in paris", "--url", agent_server_url
    )
    assert (code, err) == (0, "")  # no "the thread is on another branch" warning
    printed = out.splitlines()[2:]
    assert len(printed) == len(PRINTED[graph])
    for line, expected in zip(printed, PRINTED[graph], strict=True):
        # A message id the server made up ends the brief's line.
        assert line == expected or (expected.endswith('"id":') and line.startswith(expected))


@pytest.mark.parametrize("graph", list(PRINTED))
async def test_json_output_of_a_straight_run_warns_of_no_other_branch(
    graph: str, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = await cli(
        capsys, "run", graph, "--message", "hotel in paris", "--json", "--url", agent_server_url
    )
    assert (code, err) == (0, "")
    records = [json.loads(line) for line in out.splitlines()]
    assert records[-1]["event"] == "outcome"
    assert records[-1]["data"]["state"] == "done"


async def test_two_researchers_streaming_at_once_print_each_message_whole_once(
    agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two branches of one step (two `Send`s to a subgraph) stream their notes at once:
    each message prints whole on one line with its prefix, not word by word in turns."""
    code, out, err = await cli(
        capsys, "run", "parallel", "--message", "rust or go", "--url", agent_server_url
    )
    assert (code, err) == (0, "")
    printed = out.splitlines()[2:]
    notes = [line for line in printed if "ai (summarize)" in line]
    assert sorted(notes) == [
        "[researcher] ai (summarize): Notes on go: it is fast, and it is safe.",
        "[researcher] ai (summarize): Notes on rust: it is fast, and it is safe.",
    ]
    # The plan's tool call, kept out of `messages`, prints as its stream ends (not when
    # the run ends, with the thread's final state).
    assert printed[0] == 'tool call: research({"topics":["rust","go"]})'
    assert printed[1].startswith('plan ▸ notes=[{"content":""')
    assert printed[-2:] == ["ai (report): Report on rust or go.", "report ▸ messages"]
    assert len(printed) == 10  # the notes, each branch's two updates, plan's and report's
