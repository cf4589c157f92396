"""`agent-tui datasets …` and `agent-tui experiments …` against the real server: a
dataset of 20 examples run on two versions of one `echo` assistant (version 1 answers in
capitals, version 2 in small letters), pass rates, the answers side by side and their
diffs, the regressions and the exit code that gates CI.

Datasets and experiments live in the session's user data folder; each test names its
datasets uniquely.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from agent_tui.client import AgentServerClient
from tests.support.cli import cli

UPPER = ["Paris", "oslo", "Rome", "berlin", "Madrid", "lima", "Quito", "tokyo", "Seoul",
         "delhi", "Cairo", "accra"]  # fmt: skip
LOWER = ["Bern", "KYIV", "Riga", "Vienna", "LISBON"]
SAME = ["12345", "42"]


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def line(text: str, reference: str | None, **metadata: str) -> str:
    example: dict[str, object] = {"inputs": {"messages": [{"role": "user", "content": text}]}}
    if reference is not None:
        example["outputs"] = {"answer": reference}
    example["metadata"] = metadata
    return json.dumps(example) + "\n"


def twenty_examples() -> str:
    """12 examples only version 1 answers right, 5 only version 2, 2 both, 1 that fails."""
    return (
        "".join(line(f"hello {w}", f"HELLO {w.upper()}", kind="upper") for w in UPPER)
        + "".join(line(f"hi {w}", f"hi {w.lower()}", kind="lower") for w in LOWER)
        + "".join(line(w, w, kind="same") for w in SAME)
        + line("boom please", "never", kind="fails")
    )


async def two_versions(client: AgentServerClient) -> tuple[str, str]:
    """An echo assistant whose version 1 answers in capitals, version 2 in small letters."""
    name = unique("echo-bot")
    made = await client.assistants.create("echo", {"mode": "upper"}, name=name)
    await client.assistants.update(made.assistant_id, {"mode": "lower"})
    return name, made.assistant_id


async def test_two_versions_side_by_side_with_a_regression(
    client: AgentServerClient,
    agent_server_url: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    url = ["--url", agent_server_url]
    dataset = unique("cities")
    source = tmp_path / "cities.jsonl"
    source.write_text(twenty_examples())
    code, out, err = await cli(capsys, "datasets", "import", str(source), "--name", dataset)
    assert (code, out, err) == (0, f"{dataset}: 20 examples added; 20 in all\n", "")

    name, assistant_id = await two_versions(client)
    # Version 1 made active again: the in-memory runtime keeps version 2's context on the
    # assistant, yet `NAME` (the active version 1) must still answer in capitals.
    await client.assistants.set_latest(assistant_id, 1)

    code, out, err = await cli(
        capsys,
        "experiments", "run", dataset,
        "--assistant", name,
        "--assistant", f"{assistant_id}@2",
        "--concurrency", "3",
        "--json",
        *url,
    )  # fmt: skip
    assert code == 1, err  # a regression: version 2 fails what version 1 passes
    result = json.loads(out)
    assert err == (
        "agent-tui: 12 examples regressed (passed on an earlier assistant, failed on a later"
        f" one); experiment {result['id']}\n"
    )
    labels = [f"{name} v1", f"{name} v2"]
    assert [t["label"] for t in result["targets"]] == labels
    assert [t["context"] for t in result["targets"]] == [{"mode": "upper"}, {"mode": "lower"}]
    summary = {row["target"]: row for row in result["summary"]}
    assert (summary[labels[0]]["passed"], summary[labels[0]]["judged"]) == (14, 20)
    assert (summary[labels[1]]["passed"], summary[labels[1]]["judged"]) == (7, 20)
    assert summary[labels[0]]["errors"] == summary[labels[1]]["errors"] == 1
    assert all(row["median_latency"] > 0 for row in result["summary"])

    kinds = {e["id"]: e["inputs"]["messages"][0]["content"] for e in result["examples"]}
    regressed = {kinds[r["example_id"]] for r in result["regressions"]}
    assert regressed == {f"hello {w}" for w in UPPER}
    assert {(r["passed_on"], r["failed_on"]) for r in result["regressions"]} == {tuple(labels)}
    # Answers differ wherever letters are; the digits and the failure read the same.
    assert {kinds[i] for i in result["differing"]} == {
        *(f"hello {w}" for w in UPPER),
        *(f"hi {w}" for w in LOWER),
    }
    outcomes = {(o["example_id"], o["target"]): o for o in result["outcomes"]}
    paris = next(i for i, text in kinds.items() if text == "hello Paris")
    assert outcomes[(paris, labels[0])]["output"] == "HELLO PARIS"
    assert outcomes[(paris, labels[1])]["output"] == "hello paris"
    assert outcomes[(paris, labels[1])]["passed"] is False
    # Each example ran on a thread of its own, per version.
    threads = {o["thread_id"] for o in result["outcomes"]}
    assert len(threads) == 40
    boom = next(i for i, text in kinds.items() if text == "boom please")
    failed = outcomes[(boom, labels[0])]
    assert (failed["status"], failed["passed"]) == ("error", False)
    assert failed["error"] == "ValueError: asked to fail: boom please"
    state = await client.threads.get_state(outcomes[(paris, labels[0])]["thread_id"])
    assert state.values["messages"][-1]["content"] == "HELLO PARIS"

    # In the other order the five small-letter answers are the regressions.
    code, out, err = await cli(
        capsys, "experiments", "run", dataset,
        "--assistant", f"{name}@2", "--assistant", f"{name}@1", *url,
    )  # fmt: skip
    assert code == 1
    lines = out.splitlines()
    assert (
        lines[0].startswith("experiment 20") and f"dataset {dataset}, 20 examples x 2" in lines[0]
    )
    assert lines[1].split()[:3] == ["ASSISTANT", "PASS", "RATE"]
    assert lines[2].startswith(f"{name} v2") and " 7/20 35% " in lines[2]
    assert lines[3].startswith(f"{name} v1") and " 14/20 70% " in lines[3]
    assert lines[5] == "5 regressions (passed on an earlier assistant, failed on a later one):"
    assert any(
        text.endswith(f"hi Bern: {name} v2 hi bern → {name} v1 HI BERN") for text in lines[6:]
    )

    # The same version twice: nothing regresses, exit 0 (the gate lets it through).
    code, out, err = await cli(
        capsys, "experiments", "run", dataset,
        "--assistant", f"{name}@1", "--assistant", f"{name}@1", *url,
    )  # fmt: skip
    assert (code, err) == (0, "")
    assert f"{name} v1 (2)" in out and "regressions" not in out

    # Saved: listed newest first, shown again with the answers side by side and diffs.
    code, out, err = await cli(capsys, "experiments", "list", "--json")
    saved = [e for e in json.loads(out) if e["dataset"] == dataset]
    assert [e["regressions"] for e in saved] == [0, 5, 12]
    code, out, err = await cli(capsys, "experiments", "show", saved[2]["id"])
    assert code == 0
    shown = out.splitlines()
    header = next(text for text in shown if text.startswith("EXAMPLE"))
    assert header.split()[-4:] == [name, "v1", name, "v2"]
    row = next(text for text in shown if " hello Paris " in text)
    assert "HELLO PARIS" in row and "✓ HELLO PARIS" in row and "✗ hello paris" in row
    assert "17 examples answered differently:" in shown
    diff_at = shown.index("    -HELLO PARIS")
    assert shown[diff_at + 1] == "    +hello paris"
    code, out, err = await cli(capsys, "experiments", "show", saved[2]["id"], "--json")
    assert json.loads(out)["regressions"] == result["regressions"]


async def test_evaluators_and_bad_choices(
    client: AgentServerClient,
    agent_server_url: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = ["--url", agent_server_url]
    dataset = unique("few")
    source = tmp_path / "few.jsonl"
    source.write_text(line("hello Oslo", "OSLO") + line("Zed", None))
    await cli(capsys, "datasets", "import", str(source), "--name", dataset)
    name, _ = await two_versions(client)

    async def pass_rates(*evaluator: str) -> list[tuple[int, int]]:
        code, out, err = await cli(
            capsys, "experiments", "run", dataset, "--assistant", f"{name}@1",
            "--assistant", f"{name}@2", *evaluator, "--json", *url,
        )  # fmt: skip
        assert code in (0, 1), err
        return [(row["passed"], row["judged"]) for row in json.loads(out)["summary"]]

    # `contains`: the reference inside the answer; no reference, no verdict.
    assert await pass_rates("--evaluator", "contains") == [(1, 1), (0, 1)]
    # `regex`: needs no reference, so both examples are judged.
    assert await pass_rates("--evaluator", "regex:^[A-Z ]+$") == [(2, 2), (0, 2)]
    # A function of the user's, imported from the current folder.
    module = unique("judges").replace("-", "_")
    (tmp_path / f"{module}.py").write_text(
        "def shouting(outputs, reference_outputs):\n"
        "    return {'score': outputs.isupper(), 'comment': 'capitals?'}\n"
    )
    monkeypatch.chdir(tmp_path)
    assert await pass_rates("--evaluator", f"{module}:shouting") == [(2, 2), (0, 2)]

    for evaluator, said in (
        ("nearly", "--evaluator: unknown evaluator 'nearly'"),
        ("regex:(", "--evaluator: regex:(: not a regular expression"),
        ("no_such_module_here:f", "--evaluator: no_such_module_here:f: cannot import"),
    ):
        code, out, err = await cli(
            capsys, "experiments", "run", dataset, "--assistant", name,
            "--evaluator", evaluator, *url,
        )  # fmt: skip
        assert (code, out) == (2, "") and err.startswith(f"agent-tui: {said}"), err
    code, out, err = await cli(
        capsys, "experiments", "run", dataset, "--assistant", f"{name}@9", *url
    )
    assert (code, err) == (1, f"agent-tui: {name} has no version 9 (its versions: 1, 2)\n")
    code, out, err = await cli(
        capsys, "experiments", "run", unique("none"), "--assistant", name, *url
    )
    assert code == 1 and err.startswith("agent-tui: no dataset")


async def test_datasets_import_export_and_a_thread_turn(
    client: AgentServerClient,
    agent_server_url: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    dataset = unique("kept")
    first = tmp_path / "first.jsonl"
    first.write_text(line("hello Oslo", "HELLO OSLO", city="Oslo") + "\n" + line("x", None))
    code, out, err = await cli(capsys, "datasets", "import", str(first), "--name", dataset)
    assert code == 0

    # A file with bad lines names each, and the dataset keeps what it had.
    bad = tmp_path / "bad.jsonl"
    bad.write_text(line("fine", "FINE") + '{"inputs": 3}\nnot json\n{"inputs": {}, "oops": 1}\n')
    code, out, err = await cli(capsys, "datasets", "import", str(bad), "--name", dataset)
    assert (code, out) == (1, "")
    assert err == (
        "agent-tui: 3 lines are not an example (nothing was imported):\n"
        f"  {bad}:2: `inputs` must be a JSON object\n"
        f"  {bad}:3: not JSON (Expecting value, column 1)\n"
        f"  {bad}:4: unknown key 'oops'\n"
    )
    code, out, err = await cli(capsys, "datasets", "show", dataset, "--json")
    kept = json.loads(out)
    assert [e["inputs"]["messages"][0]["content"] for e in kept["examples"]] == ["hello Oslo", "x"]

    # Exported in LangSmith's shape; importing the export again adds nothing.
    exported = tmp_path / "out.jsonl"
    code, out, err = await cli(capsys, "datasets", "export", dataset, str(exported))
    assert (code, err) == (0, f"wrote 2 examples to {exported}\n")
    rows = [json.loads(text) for text in exported.read_text().splitlines()]
    assert [list(row) for row in rows] == [["id", "inputs", "outputs", "metadata"]] * 2
    assert rows[0]["outputs"] == {"answer": "HELLO OSLO"} and rows[0]["metadata"] == {
        "city": "Oslo"
    }
    assert rows[1]["outputs"] is None
    code, out, err = await cli(capsys, "datasets", "import", str(exported), "--name", dataset)
    assert out == f"{dataset}: 0 examples added, 2 replaced (same id); 2 in all\n"

    # A thread's turn: its human message as the input, its answer as the reference.
    _, assistant_id = await two_versions(client)
    thread = await client.threads.create(metadata={"graph_id": "echo"})
    for text in ("first words", "Second Words"):
        await client.runs.wait(
            thread.thread_id,
            assistant_id,
            input={"messages": [{"role": "user", "content": text}]},
        )
    code, out, err = await cli(
        capsys, "datasets", "add", dataset, "--thread", thread.thread_id, "--turn", "1",
        "--url", agent_server_url, "--json",
    )  # fmt: skip
    assert (code, err) == (0, "")
    added = json.loads(out)
    assert added["inputs"] == {"messages": [{"role": "user", "content": "first words"}]}
    assert added["outputs"] == {"answer": "first words"}
    assert added["metadata"] == {"source_thread_id": thread.thread_id}
    code, out, err = await cli(capsys, "datasets", "list")
    row = next(text for text in out.splitlines() if text.startswith(dataset))
    assert row.split()[1:3] == ["3", "2"]

    code, out, err = await cli(capsys, "datasets", "delete", dataset)
    assert (code, out) == (0, f"deleted dataset {dataset}\n")
    code, out, err = await cli(capsys, "datasets", "show", dataset)
    assert code == 1 and err.startswith(f"agent-tui: no dataset '{dataset}'")


async def test_a_graph_without_messages_compared_by_a_state_key(
    agent_server_url: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    dataset = unique("topics")
    source = tmp_path / "topics.jsonl"
    source.write_text(
        json.dumps({"inputs": {"topic": "cats"}, "outputs": {"summary": "summary of cats"}})
        + "\n"
        + json.dumps({"inputs": {"topic": "dogs"}, "outputs": {"summary": "dogs"}})
        + "\n"
    )
    await cli(capsys, "datasets", "import", str(source), "--name", dataset)
    code, out, err = await cli(
        capsys, "experiments", "run", dataset, "--assistant", "pipeline",
        "--output-key", "summary", "--json", "--url", agent_server_url,
    )  # fmt: skip
    assert (code, err) == (0, ""), err
    result = json.loads(out)
    assert [o["output"] for o in result["outcomes"]] == ["summary of cats", "summary of dogs"]
    assert [o["passed"] for o in result["outcomes"]] == [True, False]
    assert result["summary"][0]["pass_rate"] == 0.5


async def test_an_older_version_runs_without_the_keys_a_later_one_added(
    client: AgentServerClient,
    agent_server_url: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    """The server merges a run's context over the assistant's current one: version 1 of a
    pirate bot must not shout because version 2 does. A key with no default in the
    graph's context schema cannot be kept out: that version is refused, saying why."""
    url = ["--url", agent_server_url]
    dataset = unique("hello")
    source = tmp_path / "hello.jsonl"
    source.write_text(line("hello", "Arr! You said: hello"))
    code, _out, err = await cli(capsys, "datasets", "import", str(source), "--name", dataset)
    assert code == 0, err
    name = unique("pirate")
    made = await client.assistants.create(
        "chat", {"style": "pirate", "token_delay_ms": 0}, name=name
    )
    await client.assistants.update(
        made.assistant_id, {"style": "pirate", "token_delay_ms": 0, "shout": True}
    )
    code, out, err = await cli(
        capsys, "experiments", "run", dataset,
        "--assistant", f"{name}@1", "--assistant", f"{name}@2", "--json", *url,
    )  # fmt: skip
    assert code == 1, err  # version 2 shouts: it fails what version 1 passes
    result = json.loads(out)
    by_label = {o["target"]: o["output"] for o in result["outcomes"]}
    assert by_label == {f"{name} v1": "Arr! You said: hello", f"{name} v2": "ARR! YOU SAID: HELLO"}
    # Sent with version 1's runs: the key version 2 added, at the graph's default.
    assert result["targets"][0]["context"] == {
        "style": "pirate",
        "token_delay_ms": 0,
        "shout": False,
    }

    echo = await client.assistants.create("echo", {"mode": "upper"}, name=unique("echo-note"))
    await client.assistants.update(echo.assistant_id, {"mode": "lower", "note": "mine"})
    code, out, err = await cli(
        capsys, "experiments", "run", dataset, "--assistant", f"{echo.assistant_id}@1", *url
    )
    assert (code, out) == (2, "")
    assert "version 1 of echo-note-" in err and "cannot run as itself" in err
    assert "its 'note' (not in version 1) has no default in graph echo's context schema" in err
