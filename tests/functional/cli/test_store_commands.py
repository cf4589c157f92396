"""`agent-tui store ls | get | put | rm | search` against the real server: what prints,
JSON output, exit codes and read-only refusal.

Every test writes under a namespace root of its own (the server is shared by the suite).
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from agent_tui.client import AgentServerClient, NotFound
from tests.support.cli import cli, write_readonly_context


def new_root() -> str:
    return f"t{uuid.uuid4().hex[:12]}"


async def test_put_get_ls_search_rm_round_trip(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = ["--url", agent_server_url]
    root = new_root()
    memories = f"{root}.u1.memories"

    code, out, err = await cli(
        capsys, "store", "put", memories, "likes", "--value", '{"food": "pizza"}', *url
    )
    assert (code, out, err) == (0, f"put likes in {memories}\n", "")
    code, out, err = await cli(
        capsys,
        "store",
        "put",
        f"{root}.u2",
        "city",
        "--value",
        '{"city": "Oslo", "n": 2}',
        "--ttl",
        "60",
        "--json",
        *url,
    )
    assert (code, err) == (0, "")
    put = json.loads(out)
    assert list(put) == ["namespace", "key", "value", "created_at", "updated_at"]
    assert (put["namespace"], put["key"], put["value"]) == (
        [root, "u2"],
        "city",
        {"city": "Oslo", "n": 2},
    )
    # What the client reads back is what was put.
    assert (await client.store.get_item((root, "u1", "memories"), "likes")).value == {
        "food": "pizza"
    }

    code, out, err = await cli(capsys, "store", "ls", root, *url)
    assert (code, out, err) == (0, f"{memories}\n{root}.u2\n", "")
    code, out, _ = await cli(capsys, "store", "ls", root, "--max-depth", "2", "--json", *url)
    assert code == 0 and json.loads(out) == [[root, "u1"], [root, "u2"]]

    code, out, err = await cli(capsys, "store", "get", memories, "likes", *url)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:2] == [f"namespace      {memories}", "key            likes"]
    assert lines[2].startswith("created (UTC)  20") and lines[3].startswith("updated (UTC)  20")
    assert json.loads("\n".join(lines[5:])) == {"food": "pizza"} and lines[4] == "value"
    code, out, _ = await cli(capsys, "store", "get", memories, "likes", "--json", *url)
    assert code == 0 and json.loads(out)["value"] == {"food": "pizza"}

    # Search: everything under the root, then by an exact value filter.
    code, out, err = await cli(capsys, "store", "search", root, *url)
    assert (code, err) == (0, "")
    rows = [line.split() for line in out.splitlines()]
    assert rows[0] == ["NAMESPACE", "KEY", "UPDATED", "(UTC)", "VALUE"]
    assert sorted((row[0], row[1], row[-1]) for row in rows[1:]) == [
        (f"{root}.u1.memories", "likes", '{"food":"pizza"}'),
        (f"{root}.u2", "city", '{"city":"Oslo","n":2}'),
    ]
    code, out, err = await cli(
        capsys, "store", "search", root, "--filter", '{"city": "Oslo"}', "--json", *url
    )
    assert (code, err) == (0, "")
    found = json.loads(out)
    assert [(item["namespace"], item["key"], item["score"]) for item in found] == [
        ([root, "u2"], "city", None)
    ]
    # With no NS: every namespace.
    code, out, _ = await cli(
        capsys, "store", "search", "--filter", '{"city": "Oslo", "n": 2}', "--json", *url
    )
    assert code == 0 and [root, "u2"] in [item["namespace"] for item in json.loads(out)]
    # A query on a server with no store index: the items come, unranked, and it is said.
    code, out, err = await cli(capsys, "store", "search", root, "--query", "food", *url)
    assert code == 0 and "likes" in out
    assert err == (
        "agent-tui: this server's store has no index for --query: the query is ignored "
        "and the items are not ranked\n"
    )
    code, out, _ = await cli(capsys, "store", "search", root, "--limit", "1", "--json", *url)
    assert code == 0 and len(json.loads(out)) == 1

    code, out, err = await cli(capsys, "store", "rm", memories, "likes", *url)
    assert (code, out, err) == (0, f"deleted likes from {memories}\n", "")
    with pytest.raises(NotFound):
        await client.store.get_item((root, "u1", "memories"), "likes")
    code, out, _ = await cli(capsys, "store", "rm", f"{root}.u2", "city", "--json", *url)
    assert code == 0
    assert json.loads(out) == {"namespace": [root, "u2"], "key": "city", "deleted": True}

    # (The in-memory server keeps a namespace listed after its last item goes.)
    other = new_root()
    code, out, err = await cli(capsys, "store", "ls", other, *url)
    assert (code, out, err) == (0, "", f"agent-tui: no namespaces under {other}\n")


async def test_a_missing_item_exits_1_and_bad_usage_exits_2(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = ["--url", agent_server_url]
    root = new_root()
    for verb in ("get", "rm"):
        code, out, err = await cli(capsys, "store", verb, f"{root}.x", "nope", *url)
        assert (code, out) == (1, "")
        assert err == f"agent-tui: no item 'nope' in namespace {root}.x\n"

    refusals = [
        (["put", f"{root}.x", "k", "--value", "[1, 2]"], "must be a JSON object"),
        (["put", f"{root}.x", "k", "--value", '{"a": '], "--value: not valid JSON: Expecting"),
        (["put", f"{root}.x", "k", "--value", "{}", "--ttl", "0"], "a number above 0"),
        (["put", f"{root}..x", "k", "--value", "{}"], "not a namespace"),
        (["put", f"{root}.x", "k"], "required: --value"),
        (["search", root, "--filter", '"Oslo"'], "--filter: must be a JSON object"),
        (["ls", "--max-depth", "0"], "--max-depth: 1 or more"),
    ]
    for argv, expected in refusals:
        code, out, err = await cli(capsys, "store", *argv, *url)
        assert (code, out) == (2, ""), argv
        assert expected in err, err
    assert await client.store.search_items((root,)) == []  # nothing was put


async def test_a_read_only_session_refuses_put_and_rm(
    client: AgentServerClient,
    agent_server_url: str,
    config_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    await write_readonly_context(config_file, agent_server_url)
    root = new_root()
    await client.store.put_item((root,), "kept", {"v": 1})
    url = ["--url", agent_server_url]
    put = ["store", "put", root, "kept", "--value", '{"v": 2}']
    rm = ["store", "rm", root, "kept"]
    refusals = [
        ([*put, *url, "--readonly"], "put a store item", "--readonly is set"),
        (["--readonly", *rm, *url], "delete a store item", "--readonly is set"),
        ([*rm, "--context", "prod"], "delete a store item", "the context 'prod' is read-only"),
    ]
    for argv, what, reason in refusals:
        code, out, err = await cli(capsys, *argv)
        assert (code, out) == (2, ""), argv
        assert err == f"agent-tui: read-only mode: cannot {what} ({reason})\n"
    monkeypatch.setenv("AGENT_TUI_READONLY", "1")
    code, out, err = await cli(capsys, *put, *url)
    assert (code, out) == (2, "")
    assert err == "agent-tui: read-only mode: cannot put a store item (AGENT_TUI_READONLY is set)\n"
    # Reading is fine in read-only mode.
    code, out, _ = await cli(capsys, "store", "get", root, "kept", "--json", *url)
    assert code == 0 and json.loads(out)["value"] == {"v": 1}
    assert (await client.store.get_item((root,), "kept")).value == {"v": 1}
    await client.store.delete_item((root,), "kept")
