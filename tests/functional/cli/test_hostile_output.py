"""The hostile-text corpus (`tests/support/hostile_text.py`) over every headless output path.

Thread metadata and values on the real agent server, a deployment on the local control
plane, and a config file hold every trick at once; each command's stdout and stderr
must come out with nothing a terminal acts on, while the text itself is still shown
(`MARKER`), and JSON output must give the exact value back.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_tui.cli.main import main
from agent_tui.client import AgentServerClient
from agent_tui.local.control_plane import LocalControlPlane
from tests.support.control_plane import store_name
from tests.support.hostile_text import EVERYTHING, HOSTILE, MARKER, terminal_controls


async def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = await asyncio.to_thread(main, list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_inert(out: str, err: str = "") -> None:
    assert terminal_controls(out) == [], out
    assert terminal_controls(err) == [], err


def toml_string(text: str) -> str:
    """A TOML basic string holding `text` exactly (JSON's escapes are TOML's)."""
    return json.dumps(text)


async def test_agent_server_text_is_inert_in_every_thread_command(
    client: AgentServerClient,
    agent_server_url: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    tag = uuid.uuid4().hex
    where = ["--url", agent_server_url]
    chat = await client.threads.create(
        metadata={"graph_id": "chat", "tag": tag, "note": EVERYTHING, EVERYTHING: 1}
    )
    async with client.runs.stream(
        chat.thread_id,
        "chat",
        input={"messages": [{"role": "user", "content": EVERYTHING}]},
        context={"token_delay_ms": 0},
    ) as run:
        async for _ in run:
            pass
    odd_graph = await client.threads.create(metadata={"graph_id": EVERYTHING, "tag": tag})
    # Updates that write hostile values: history and diff show them.
    counter = await client.threads.create(metadata={"graph_id": "counter", "tag": tag})
    await client.threads.update_state(
        counter.thread_id, {"items": [EVERYTHING]}, as_node="__input__"
    )
    await client.threads.update_state(counter.thread_id, {"n": 1, "items": [EVERYTHING]})

    # What the server kept (it stores NUL as U+FFFD): JSON output must give exactly that.
    stored = (await client.threads.get(chat.thread_id)).metadata["note"]
    assert stored.startswith(MARKER) and stored.endswith(MARKER)

    code, out, err = await cli(capsys, "threads", "list", *where, "--metadata", f"tag={tag}")
    assert code == 0
    assert_inert(out, err)
    assert MARKER in out  # shown, not dropped: the graph column and the last message

    code, out, err = await cli(
        capsys, "threads", "list", *where, "--metadata", f"tag={tag}", "--json"
    )
    assert code == 0
    assert_inert(out, err)
    listed = {thread["thread_id"]: thread for thread in json.loads(out)}
    assert listed[chat.thread_id]["metadata"]["note"] == stored
    assert listed[odd_graph.thread_id]["graph_id"] == stored

    for thread in (chat, counter):
        history = await client.threads.get_history(thread.thread_id, limit=20)
        first, last = history[-1].checkpoint_id, history[0].checkpoint_id
        assert first and last
        code, out, err = await cli(capsys, "history", thread.thread_id, *where)
        assert code == 0, err
        assert_inert(out, err)
        code, out, err = await cli(capsys, "history", thread.thread_id, *where, "--json")
        assert code == 0, err
        assert_inert(out, err)
        assert json.loads(out)
        diff = ["diff", thread.thread_id, first, last, *where]
        code, out, err = await cli(capsys, *diff)
        assert code == 0, err
        assert_inert(out, err)
        assert MARKER in out
        code, out, err = await cli(capsys, *diff, "--json")
        assert code == 0, err
        assert_inert(out, err)
        assert MARKER in out

    code, out, err = await cli(capsys, "export", chat.thread_id, *where, "-o", "-")
    assert code == 0
    assert_inert(out, err)
    exported = json.loads(out)
    assert exported["thread"]["metadata"]["note"] == stored

    # A file that names a node the graph does not have: the server's refusal quotes it.
    exported["checkpoints"][-1]["writes"] = {EVERYTHING: {"messages": []}}
    bad_node = tmp_path / "bad-node.json"
    bad_node.write_text(json.dumps(exported))
    code, out, err = await cli(capsys, "import", str(bad_node), *where)
    assert code == 1
    assert_inert(out, err)
    assert MARKER in err

    # Ids that are no ids: a message, never raw bytes or a traceback.
    code, out, err = await cli(capsys, "history", EVERYTHING, *where)
    assert code == 1
    assert_inert(out, err)
    assert "Traceback" not in err
    code, out, err = await cli(capsys, "import", str(tmp_path / EVERYTHING), *where)
    assert code == 1
    assert_inert(out, err)


async def test_store_and_cron_text_is_inert_in_store_and_crons_commands(
    client: AgentServerClient, agent_server_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ["--url", agent_server_url]
    root = f"h{uuid.uuid4().hex[:12]}"
    # A namespace part cannot hold a dot or NUL (the store's rules): the rest of the
    # corpus can.
    label = EVERYTHING.replace(".", "").replace("\x00", "")
    await client.store.put_item((root, label), EVERYTHING, {EVERYTHING: EVERYTHING})
    # A key with NUL in it cannot be read back by key (the server answers it with U+FFFD).
    key = EVERYTHING.replace("\x00", "")
    await client.store.put_item((root,), key, {"note": EVERYTHING})
    stored = await client.store.search_items((root,))
    assert len(stored) == 2
    by_namespace = {tuple(item.namespace): item for item in stored}

    code, out, err = await cli(capsys, "store", "ls", root, *where)
    assert code == 0
    assert_inert(out, err)
    assert MARKER in out
    code, out, err = await cli(capsys, "store", "ls", root, "--json", *where)
    assert code == 0
    assert_inert(out, err)
    # Exactly the namespaces the server kept.
    assert sorted(json.loads(out)) == sorted(list(namespace) for namespace in by_namespace)

    for json_flag in ([], ["--json"]):
        code, out, err = await cli(capsys, "store", "search", root, *json_flag, *where)
        assert code == 0
        assert_inert(out, err)
        assert MARKER in out
    assert {item["key"] for item in json.loads(out)} == {item.key for item in stored}

    code, out, err = await cli(capsys, "store", "get", root, key, *where)
    assert code == 0, err
    assert_inert(out, err)
    assert MARKER in out
    code, out, err = await cli(capsys, "store", "get", root, key, "--json", *where)
    assert code == 0
    assert_inert(out, err)
    assert json.loads(out)["value"] == by_namespace[(root,)].value
    # A key that is not there: the message quotes it.
    code, out, err = await cli(capsys, "store", "rm", root, EVERYTHING + "x", *where)
    assert code == 1
    assert_inert(out, err)
    assert MARKER in err

    # Crons: an assistant's name, a cron's input and metadata from the server; a schedule
    # that is no schedule, quoted back in the refusal.
    assistant = await client.assistants.create("chat", name=EVERYTHING)
    cron = await client.crons.create(
        assistant.assistant_id,
        "0 0 1 1 *",
        input={"messages": [{"role": "user", "content": EVERYTHING}]},
        metadata={"note": EVERYTHING},
    )
    try:
        listing = ["crons", "list", "--assistant", assistant.assistant_id, *where]
        code, out, err = await cli(capsys, *listing)
        assert code == 0
        assert_inert(out, err)
        assert MARKER in out
        code, out, err = await cli(capsys, *listing, "--json")
        assert code == 0
        assert_inert(out, err)
        kept = await client.crons.get(cron.cron_id)
        assert json.loads(out)[0]["metadata"] == kept.metadata
        assert json.loads(out)[0]["metadata"]["note"].startswith(MARKER)
        code, out, err = await cli(
            capsys,
            "crons",
            "create",
            assistant.assistant_id,
            "--schedule",
            EVERYTHING,
            "--message",
            EVERYTHING,
            *where,
        )
        assert code == 2
        assert_inert(out, err)
        assert MARKER in err
    finally:
        await client.crons.delete(cron.cron_id)


def create_deployment(plane: LocalControlPlane, body: dict[str, Any]) -> dict[str, Any]:
    answer = httpx.post(
        f"{plane.url}/v2/deployments",
        headers={"X-Api-Key": plane.api_key},
        json={"source": "internal_source", "source_config": {}, "secrets": [], **body},
        trust_env=False,
    )
    assert answer.status_code == 201, answer.text
    created: dict[str, Any] = answer.json()
    return created


def test_control_plane_text_is_inert_in_deployments_list_and_watch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A folder name cannot hold "/" or NUL: the rest of the corpus goes into the path,
    # which the failed build's log lines quote.
    folder = MARKER + "".join(
        text for text in HOSTILE.values() if "/" not in text and "\x00" not in text
    )
    missing = tmp_path / folder / "langgraph.json"
    with LocalControlPlane(tmp_path / "cp") as plane:
        created = create_deployment(
            plane,
            {"name": "renamed", "source_revision_config": {"langgraph_config_path": str(missing)}},
        )
        where = ["--control-plane", plane.url, "--control-plane-key", plane.api_key]
        assert main(["deployments", "watch", created["id"], "--interval", "0.1", *where]) == 1
    # The API refuses such a name; a hosted control plane (or an older agent-tui) may hold it.
    store_name(tmp_path / "cp", created["id"], EVERYTHING)
    capsys.readouterr()
    with LocalControlPlane(tmp_path / "cp") as plane:
        where = ["--control-plane", plane.url, "--control-plane-key", plane.api_key]

        code = main(["deployments", "watch", created["id"], "--interval", "0.1", *where])
        out, err = capsys.readouterr()
        assert code == 1
        assert_inert(out, err)
        assert "BUILD_FAILED" in out and MARKER in out  # the log line naming the path

        code = main(["deployments", "list", *where])
        out, err = capsys.readouterr()
        assert code == 0
        assert_inert(out, err)
        assert MARKER in out

        code = main(["deployments", "list", "--json", *where])
        out, err = capsys.readouterr()
        assert code == 0
        assert_inert(out, err)
        assert json.loads(out)[0]["name"] == EVERYTHING

        # An id that makes no URL: a message, not raw bytes or a traceback.
        code = main(["deployments", "watch", created["id"], EVERYTHING, *where])
        out, err = capsys.readouterr()
        assert code == 1
        assert_inert(out, err)


def test_config_file_text_is_inert_in_config_commands_and_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    monkeypatch.setenv("AGENT_TUI_CONFIG", str(config))
    hostile = toml_string(EVERYTHING)
    config.write_text(
        "[contexts.staging]\n"
        'agent_server_url = "https://staging.example.com"\n'
        f"workspace_id = {hostile}\n"
        "[keymap]\n"
        f'"app.quit" = {hostile}\n'
        f'{hostile} = "f1"\n'
    )
    assert main(["config", "contexts"]) == 0
    out, err = capsys.readouterr()
    assert_inert(out, err)
    assert MARKER in out  # the workspace column

    assert main(["config", "keys"]) == 2  # an unknown binding id
    out, err = capsys.readouterr()
    assert_inert(out, err)
    assert MARKER in out and MARKER in err

    # Mistakes quote the file's text in the message.
    config.write_text(
        'current_context = "staging"\n'
        f"[contexts.staging]\nagent_server_url = {hostile}\nreadonly = {hostile}\n"
    )
    assert main(["config", "contexts"]) == 2
    out, err = capsys.readouterr()
    assert_inert(out, err)
    assert "contexts.staging.agent_server_url" in err and "contexts.staging.readonly" in err
    assert main(["threads", "list", "--context", "staging"]) == 2
    out, err = capsys.readouterr()
    assert_inert(out, err)
    assert main([]) == 2  # the app: refused before anything starts
    out, err = capsys.readouterr()
    assert_inert(out, err)
    assert MARKER in err
