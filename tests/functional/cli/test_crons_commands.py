"""`agent-tui crons list | create | rm` against the real server: what prints, JSON
output, exit codes, the schedule checked before sending, and read-only refusal.

Schedules are yearly (`0 0 1 1 *`) or far from now so no cron fires during the suite;
each test deletes what it creates.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.client import AgentServerClient, NotFound
from tests.support.cli import cli, write_readonly_context

YEARLY = "0 0 1 1 *"


async def chat_default_assistant(client: AgentServerClient) -> str:
    found = await client.assistants.search("chat", metadata={"created_by": "system"}, limit=1)
    return found[0].assistant_id


async def test_create_list_and_rm(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = ["--url", agent_server_url]
    # A graph name: its default assistant, on a new thread each run.
    code, out, err = await cli(
        capsys,
        "crons",
        "create",
        "chat",
        "--schedule",
        YEARLY,
        "--message",
        "weather in Oslo",
        *url,
    )
    assert code == 0, err
    stateless_id = out.strip()
    assert len(out.splitlines()) == 1
    year = int(err.split("next (UTC): ")[1][:4])
    assert err == (
        "runs chat on a new thread each time; next (UTC): "
        f"{year}-01-01 00:00, {year + 1}-01-01 00:00, {year + 2}-01-01 00:00\n"
    )
    stateless = await client.crons.get(stateless_id)
    chat = await chat_default_assistant(client)
    assert (stateless.assistant_id, stateless.thread_id, stateless.schedule) == (chat, None, YEARLY)
    assert stateless.input == {"messages": [{"role": "user", "content": "weather in Oslo"}]}

    # An assistant id, on one thread, in a timezone, until an end time, JSON out.
    assistant = await client.assistants.create("counter", name="nightly counter")
    thread = await client.threads.create(metadata={"graph_id": "counter"})
    code, out, err = await cli(
        capsys,
        "crons",
        "create",
        assistant.assistant_id,
        "--schedule",
        "30 9 * * 1-5",
        "--thread",
        thread.thread_id,
        "--input",
        '{"n": 3}',
        "--timezone",
        "Europe/Paris",
        "--end-time",
        "2099-12-31T00:00:00",
        "--json",
        *url,
    )
    assert (code, err) == (0, "")
    bound = json.loads(out)
    assert list(bound) == [
        "cron_id",
        "assistant_id",
        "thread_id",
        "schedule",
        "timezone",
        "next_run",
        "end_time",
        "enabled",
        "on_run_completed",
        "input",
        "metadata",
        "created_at",
        "updated_at",
    ]
    assert (bound["assistant_id"], bound["thread_id"], bound["input"]) == (
        assistant.assistant_id,
        thread.thread_id,
        {"n": 3},
    )
    assert (bound["timezone"], bound["end_time"]) == ("Europe/Paris", "2099-12-31T00:00:00+00:00")
    # 9:30 in Paris is 8:30 or 7:30 UTC, on a weekday.
    assert bound["next_run"][11:16] in ("08:30", "07:30")

    try:
        # Filters: by graph name (its default assistant), by assistant id, by thread.
        code, out, err = await cli(capsys, "crons", "list", "--assistant", "chat", "--json", *url)
        assert (code, err) == (0, "")
        listed = {cron["cron_id"]: cron for cron in json.loads(out)}
        assert stateless_id in listed and bound["cron_id"] not in listed
        assert listed[stateless_id]["next_run"] == f"{year}-01-01T00:00:00+00:00"
        code, out, _ = await cli(
            capsys, "crons", "list", "--assistant", assistant.assistant_id, "--json", *url
        )
        assert code == 0 and [cron["cron_id"] for cron in json.loads(out)] == [bound["cron_id"]]
        code, out, err = await cli(capsys, "crons", "list", "--thread", thread.thread_id, *url)
        assert (code, err) == (0, "")
        header, row = out.splitlines()
        assert header.split() == [
            "CRON",
            "ID",
            "SCHEDULE",
            "TARGET",
            "NEXT",
            "RUN",
            "(UTC)",
            "ENABLED",
            "INPUT",
        ]
        short = assistant.assistant_id[:8]
        assert row.startswith(
            f"{bound['cron_id']}  30 9 * * 1-5 (Europe/Paris)  nightly counter ({short}) v1, "
            f"thread {thread.thread_id}  "
        )
        assert row.endswith('  yes      {"n":3}')
        code, out, err = await cli(capsys, "crons", "list", "--assistant", "nope", *url)
        assert (code, out) == (1, "")
        assert "nope" in err and "chat" in err  # the server names its graphs
    finally:
        for cron_id in (stateless_id, bound["cron_id"]):
            code, out, err = await cli(capsys, "crons", "rm", cron_id, *url)
            assert (code, out, err) == (0, f"deleted cron job {cron_id}\n", "")
    with pytest.raises(NotFound):
        await client.crons.get(stateless_id)
    code, out, err = await cli(capsys, "crons", "rm", stateless_id, "--json", *url)
    assert (code, out) == (1, "")
    assert err == f"agent-tui: no cron job {stateless_id} on the server\n"


async def test_a_schedule_is_checked_before_sending_and_bad_usage_exits_2(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = ["--url", agent_server_url]
    before = await client.crons.count()
    refusals = [
        (
            ["chat", "--schedule", "0 0 1 1"],
            "agent-tui: --schedule '0 0 1 1': 4 fields given; a schedule is five: "
            "minute hour day-of-month month day-of-week\n",
        ),
        (["chat", "--schedule", "61 * * * *"], "agent-tui: --schedule '61 * * * *': "),
        (
            ["chat", "--schedule", YEARLY, "--end-time", "2020-01-01"],
            f"agent-tui: --schedule '{YEARLY}' never fires before --end-time\n",
        ),
        (["chat", "--schedule", YEARLY, "--timezone", "Mars/Base"], "unknown timezone 'Mars/Base'"),
        (["chat", "--schedule", YEARLY, "--end-time", "soon"], "not an ISO 8601 time: 'soon'"),
        (["chat", "--schedule", YEARLY, "--input", "{"], "argument --input: not valid JSON"),
        (
            ["chat", "--schedule", YEARLY, "--message", "hi", "--input", "{}"],
            "argument --input: not allowed with",
        ),
        (["chat"], "required: --schedule"),
    ]
    for argv, expected in refusals:
        code, out, err = await cli(capsys, "crons", "create", *argv, *url)
        assert (code, out) == (2, ""), argv
        assert expected in err, err
    # Unknown to the server: exit 1, in its words.
    code, out, err = await cli(capsys, "crons", "create", "nope", "--schedule", YEARLY, *url)
    assert (code, out) == (1, "")
    assert "'nope'" in err and "Traceback" not in err
    code, out, err = await cli(
        capsys,
        "crons",
        "create",
        "chat",
        "--schedule",
        YEARLY,
        "--thread",
        "00000000-0000-0000-0000-000000000001",
        *url,
    )
    assert (code, out) == (1, "")
    assert "not found" in err
    assert await client.crons.count() == before


async def test_a_read_only_session_refuses_create_and_rm(
    client: AgentServerClient,
    agent_server_url: str,
    config_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    await write_readonly_context(config_file, agent_server_url)
    kept = await client.crons.create("chat", YEARLY)
    before = await client.crons.count()
    url = ["--url", agent_server_url]
    create = ["crons", "create", "chat", "--schedule", YEARLY]
    rm = ["crons", "rm", kept.cron_id]
    try:
        refusals = [
            ([*create, *url, "--readonly"], "create a cron job", "--readonly is set"),
            (["--readonly", *rm, *url], "delete a cron job", "--readonly is set"),
            ([*rm, "--context", "prod"], "delete a cron job", "the context 'prod' is read-only"),
            (
                [*create, "--context", "prod"],
                "create a cron job",
                "the context 'prod' is read-only",
            ),
        ]
        for argv, what, reason in refusals:
            code, out, err = await cli(capsys, *argv)
            assert (code, out) == (2, ""), argv
            assert err == f"agent-tui: read-only mode: cannot {what} ({reason})\n"
        monkeypatch.setenv("AGENT_TUI_READONLY", "1")
        code, out, err = await cli(capsys, *rm, *url)
        assert (code, out) == (2, "")
        assert err == (
            "agent-tui: read-only mode: cannot delete a cron job (AGENT_TUI_READONLY is set)\n"
        )
        # Listing is fine in read-only mode.
        code, out, _ = await cli(capsys, "crons", "list", "--json", *url)
        assert code == 0 and kept.cron_id in {cron["cron_id"] for cron in json.loads(out)}
        assert await client.crons.count() == before
    finally:
        await client.crons.delete(kept.cron_id)
