"""`agent-tui assistants list | show | versions | set-version | create | update | delete
| graph` against the real server: what prints, JSON output, exit codes, the refusal of an
update that drops keys, the stale context the in-memory runtime keeps after a version
switch, and read-only refusal.

Each test makes assistants of its own, with names no other test uses.
"""

from __future__ import annotations

import json
import uuid

import pytest

from agent_tui.client import AgentServerClient, NotFound
from tests.support.cli import cli


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


async def test_create_update_versions_set_version_delete(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = ["--url", agent_server_url]
    name = unique("shouty")
    code, out, err = await cli(
        capsys,
        "assistants",
        "create",
        "echo",
        "--name",
        name,
        "--context-json",
        '{"mode": "upper"}',
        "--description",
        "answers in capitals",
        *url,
    )
    assert (code, err) == (0, ""), err
    assistant_id = out.strip()
    made = await client.assistants.get(assistant_id)
    assert (made.graph_id, made.name, made.context) == ("echo", name, {"mode": "upper"})

    # An update that leaves out `mode` would drop it: refused, nothing changes.
    code, out, err = await cli(capsys, "assistants", "update", name, "--context-json", "{}", *url)
    assert code == 2
    assert err == (
        "agent-tui: the new version would drop mode of version 1 (an update replaces the"
        " whole context): put them in --context-json, or pass --drop to drop them\n"
    )
    assert (await client.assistants.get(assistant_id)).version == 1

    code, out, err = await cli(
        capsys, "assistants", "update", name, "--context-json", '{"mode": "lower"}', *url
    )
    assert (code, out, err) == (0, f"{name}: version 2 is active\n", "")

    code, out, err = await cli(capsys, "assistants", "versions", name, *url)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["VERSION", "ACTIVE", "CREATED", "(UTC)", "NAME", "CONTEXT"]
    assert lines[1].split()[:2] == ["2", "*"] and lines[1].endswith('{"mode":"lower"}')
    assert lines[2].split()[0] == "1" and lines[2].endswith('{"mode":"upper"}')

    code, out, err = await cli(capsys, "assistants", "versions", assistant_id, "--json", *url)
    versions = json.loads(out)
    assert [(v["version"], v["active"], v["context"]) for v in versions] == [
        (2, True, {"mode": "lower"}),
        (1, False, {"mode": "upper"}),
    ]

    # Back to version 1: the in-memory runtime keeps version 2's context, and says so.
    code, out, err = await cli(capsys, "assistants", "set-version", name, "1", *url)
    assert (code, out) == (0, f"{name}: version 1 is active\n")
    assert "kept another context (mode differ)" in err
    assert f"experiments run {assistant_id}@1" in err
    assert (await client.assistants.get(assistant_id)).version == 1

    code, out, err = await cli(capsys, "assistants", "show", name, *url)
    assert code == 0
    assert f"assistant    {assistant_id}\n" in out
    assert "version      1 (active)\n" in out
    assert "description  answers in capitals\n" in out
    # The context shown is version 1's, whatever the server's record holds.
    assert 'context:\n  {\n    "mode": "upper"\n  }\n' in out
    assert "runs by assistant id get that one" in err

    code, out, err = await cli(capsys, "assistants", "set-version", name, "7", *url)
    assert (code, out) == (1, "")
    assert err == f"agent-tui: {name} has no version 7 (its versions: 1, 2)\n"

    code, out, err = await cli(capsys, "assistants", "delete", name, "--json", *url)
    assert (code, err) == (0, "")
    assert json.loads(out) == {"assistant_id": assistant_id, "deleted": True}
    with pytest.raises(NotFound):
        await client.assistants.get(assistant_id)
    code, out, err = await cli(capsys, "assistants", "delete", assistant_id, *url)
    assert (code, err) == (1, f"agent-tui: no assistant {assistant_id} on the server\n")


async def test_list_show_schemas_and_graph(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = ["--url", agent_server_url]
    name = unique("lister")
    made = await client.assistants.create("echo", {"mode": "lower"}, name=name)

    code, out, err = await cli(capsys, "assistants", "list", "--graph", "echo", *url)
    assert (code, err) == (0, "")
    assert out.splitlines()[0].split() == [
        "ASSISTANT", "ID", "NAME", "GRAPH", "VERSION", "UPDATED", "(UTC)"
    ]  # fmt: skip
    row = next(line for line in out.splitlines() if line.startswith(made.assistant_id))
    assert row.split()[1:4] == [name, "echo", "1"]

    code, out, err = await cli(capsys, "assistants", "list", "--name", name, "--json", *url)
    listed = json.loads(out)
    assert [a["assistant_id"] for a in listed] == [made.assistant_id]
    assert list(listed[0]) == [
        "assistant_id", "graph_id", "name", "description", "version", "context", "config",
        "metadata", "created_at", "updated_at",
    ]  # fmt: skip

    # A graph name is its default assistant; --schemas adds the graph's schemas.
    code, out, err = await cli(capsys, "assistants", "show", "echo", "--schemas", "--json", *url)
    shown = json.loads(out)
    assert shown["metadata"] == {"created_by": "system"}
    assert shown["schemas"]["context_schema"]["properties"]["mode"]["default"] == "same"

    code, out, err = await cli(capsys, "assistants", "graph", name, "--compact", *url)
    assert code == 0 and "answer" in out

    await client.assistants.delete(made.assistant_id)


async def test_what_is_not_there_is_named(
    agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = ["--url", agent_server_url]
    code, out, err = await cli(capsys, "assistants", "show", "no-such-thing", *url)
    assert (code, out) == (1, "")
    assert err.startswith(
        "agent-tui: no assistant, graph or assistant name 'no-such-thing' on the server"
        " (its graphs: "
    )
    assert "echo" in err and "\n" not in err.rstrip("\n")
    missing = str(uuid.uuid4())
    code, out, err = await cli(capsys, "assistants", "versions", missing, *url)
    assert (code, err) == (1, f"agent-tui: no assistant {missing} on the server\n")
    code, out, err = await cli(capsys, "assistants", "create", "nope", *url)
    assert code == 1 and err.startswith("agent-tui: no graph 'nope' on the server (its graphs:")
    code, out, err = await cli(
        capsys, "assistants", "create", "echo", "--context-json", "[1]", *url
    )
    assert code == 2 and "a JSON object" in err


async def test_read_only_refuses_every_change(
    agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = ["--url", agent_server_url, "--readonly"]
    for argv, what in (
        (["create", "echo"], "create an assistant"),
        (["update", "echo", "--context-json", "{}"], "update an assistant"),
        (["set-version", "echo", "1"], "set an assistant's version"),
        (["delete", "echo"], "delete an assistant"),
    ):
        code, out, err = await cli(capsys, "assistants", *argv, *url)
        assert (code, out, err) == (
            2,
            "",
            f"agent-tui: read-only mode: cannot {what} (--readonly is set)\n",
        )


async def test_hostile_names_and_contexts_print_as_text(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.support.hostile_text import EVERYTHING, terminal_controls

    url = ["--url", agent_server_url]
    made = await client.assistants.create(
        "echo", {"mode": EVERYTHING}, name=unique(EVERYTHING), description=EVERYTHING
    )
    await client.assistants.update(made.assistant_id, {"mode": "upper"}, name=unique(EVERYTHING))
    for argv in (
        ["list", "--graph", "echo"],
        ["show", made.assistant_id, "--schemas"],
        ["versions", made.assistant_id],
        ["set-version", made.assistant_id, "1"],
    ):
        code, out, err = await cli(capsys, "assistants", *argv, *url)
        assert code == 0, err
        assert terminal_controls(out) == [] and terminal_controls(err) == [], argv
    code, out, err = await cli(capsys, "assistants", "versions", made.assistant_id, "--json", *url)
    # Escaped in JSON, and kept exactly as the server has it.
    served = await client.assistants.get_versions(made.assistant_id)
    assert json.loads(out)[1]["context"] == served[-1].context
    await client.assistants.delete(made.assistant_id)
