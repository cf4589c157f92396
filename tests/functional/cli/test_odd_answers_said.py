"""What the probe of issue 21 found, each case as a user meets it: a headless command
against a server that answers oddly says so on one line, naming the request and the
problem; lone surrogates print; `agent-tui run --json … | head` ends quietly; a stream
cut mid-event says so, and that the server is up; a failed export leaves the file it was
to replace as it was.

The server is `OddServer` (tests/support/odd_server.py) answering as `fake_api` does,
but for the request a test spoils: these are answers a real server does not give on
demand. `test_odd_bodies.py` drives every subcommand against generated answers.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# `dataset`: the module's dataset the experiments run (an autouse fixture, brought in).
from tests.functional.cli.test_odd_bodies import ARGV, dataset, run_cli, with_server  # noqa: F401
from tests.support.fake_api import IDLE_THREAD, good_answer, run_stream, sse
from tests.support.fixed_servers import THREAD_ID
from tests.support.hostile_text import terminal_controls
from tests.support.odd_server import Answer, OddServer, Request


@pytest.fixture
def server() -> Iterator[OddServer]:
    with OddServer() as odd:
        odd.answer = good_answer
        yield odd


def spoiling(path: str, answer: Answer) -> Any:
    """Good answers, but `answer` for every request to `path`."""
    return lambda request: answer if request.path == path else good_answer(request)


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        (Answer(b'{"threads": []}'), "expected a list, got an object"),
        (Answer(b""), "the body is empty"),
        (Answer(b"[" * 10_000 + b"]" * 10_000), "JSON nested deeper than can be read"),
        (Answer(b"<html>sign in</html>", content_type="text/html"), "expected JSON, got text/html"),
        # Said to be JSON and not: where it stops being JSON, not "expected JSON, got JSON".
        (
            Answer(b'[{"thread_id": "a"},'),
            "application/json that is not valid JSON: Expecting value at line 1 column 21",
        ),
        (Answer(b'["\xff"]'), "application/json that is not valid UTF-8 text"),
        (Answer(b'[{"thread_id": 7}]'), "0.thread_id: expected a string, got a number"),
    ],
)
def test_an_odd_body_is_one_line_naming_the_request_and_the_problem(
    server: OddServer, answer: Answer, problem: str
) -> None:
    server.answer = spoiling("/threads/search", answer)
    code, out, err = run_cli(["threads", "list", "--url", server.url])
    assert (code, out) == (1, "")
    assert err == (
        "agent-tui: POST /threads/search answered a body that is not what the API describes "
        f"({problem})\n"
    )


# Keys whose values a command acts on (times, states, ids it puts in the next URL): a
# surrogate there is another test's business (`test_odd_bodies.py`).
_KEPT = (
    *("status", "type", "schedule", "namespace", "source", "format", "version"),
    # The upload URL a deploy PUTs to, the path it names back and the headers it sends.
    *("upload_url", "object_path", "Content-Type"),
    # How an assistant is named on the command line: by its name, or as its graph's
    # default (the one the system made).
    *("name", "created_by"),
)


# Objects whose keys are a graph's or a user's own: one more key, holding a surrogate
# (pydantic could not write such a key as JSON).
_FREE_FORM = ("metadata", "values", "value", "context", "configurable")


def with_surrogates(value: Any, key: str = "") -> Any:
    """`value` with a lone surrogate after every string a command only shows, and in a
    key of each free-form object."""
    if isinstance(value, dict):
        odd = {"odd\udfff": "x"} if key in _FREE_FORM else {}
        return {**{k: with_surrogates(v, k) for k, v in value.items()}, **odd}
    if isinstance(value, list):
        return [with_surrogates(item, key) for item in value]
    kept = key in _KEPT or key.endswith(("id", "_at", "_date", "_time"))
    return value + "\ud800" if isinstance(value, str) and not kept else value


def surrogates_everywhere(request: Request) -> Answer:
    good = good_answer(request)
    if request.path.endswith("/stream"):
        token = {"type": "AIMessageChunk", "id": "m9", "content": "\ud800"}
        extra = sse("messages", [token, {"langgraph_node": "agent\udfff"}])
        return Answer(run_stream() + extra + sse("custom", {"\udfff": "\ud800"}), **_stream)
    if not good.body:
        return good
    return Answer(json.dumps(with_surrogates(json.loads(good.body))).encode())


_stream: dict[str, Any] = {"content_type": "text/event-stream", "cut": True}


@pytest.mark.parametrize("argv", [argv for argvs in ARGV.values() for argv in argvs], ids=" ".join)
def test_lone_surrogates_in_any_answer_print_as_replacement_characters(
    server: OddServer, tmp_path: Path, argv: list[str]
) -> None:
    export = tmp_path / "thread.json"
    assert run_cli(["export", THREAD_ID, "-o", str(export), "--url", server.url])[0] == 0
    server.answer = surrogates_everywhere
    code, out, err = run_cli(with_server(argv, server.url, export, tmp_path))
    assert code == 0, err
    assert terminal_controls(out + err) == []
    if "--json" in argv or "-" in argv:
        # JSON (lines, for a run) that gives each value back exactly: the escape the
        # server sent is written out again.
        for line in out.splitlines() if argv[0] == "run" else [out]:
            json.loads(line)


def test_a_run_streamed_as_json_into_head_ends_quietly(server: OddServer) -> None:
    # More than a pipe holds, so the writes fail while the stream is still being read.
    events = b"".join(sse("custom", {"n": n, "pad": "x" * 200}) for n in range(3000))
    server.answer = spoiling(
        f"/threads/{THREAD_ID}/runs/stream",
        Answer(run_stream() + events, content_type="text/event-stream", cut=True),
    )
    argv = ["run", "chat", "--message", "hi", "--json", "--url", server.url]
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_tui", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    assert json.loads(process.stdout.readline())["event"] == "metadata"
    process.stdout.close()  # `head -1`
    err = process.stderr.read().decode()
    assert process.wait(timeout=60) == 141  # 128 + SIGPIPE, as a shell reports for `cat`
    assert err == ""


@pytest.mark.parametrize(
    "cut",
    [
        Answer(run_stream()[:-30], content_type="text/event-stream", short_by=30),
        Answer(run_stream()[:-30], content_type="text/event-stream", cut=True),
    ],
    ids=["connection broken", "closed"],
)
def test_a_run_whose_stream_is_cut_mid_event_says_so_and_that_the_server_is_up(
    server: OddServer, cut: Answer
) -> None:
    server.answer = spoiling(f"/threads/{THREAD_ID}/runs/stream", cut)
    code, out, err = run_cli(["run", "chat", "--message", "hi", "--url", server.url])
    assert code == 0
    assert err.splitlines() == [
        "agent-tui: the connection dropped (the stream was cut mid-event; the server is up): "
        "rejoining the run…",
        "agent-tui: Connection lost; rejoined the run after 1 attempt.",
    ]
    assert "Cannot reach the server" not in err
    # The rejoin replays the whole run (fake_api's join answers it all again).
    assert "ai (agent): hello" in out


def test_a_failed_export_leaves_the_file_it_was_to_replace(
    server: OddServer, tmp_path: Path
) -> None:
    good = tmp_path / "good.json"
    argv = ["export", THREAD_ID, "-o", str(good), "--url", server.url]
    assert run_cli(argv)[0] == 0
    before = good.read_bytes()
    server.answer = spoiling(f"/threads/{THREAD_ID}/history", Answer(b'{"odd": "shape"}'))
    code, out, err = run_cli(argv)
    assert out == ""
    assert code == 1
    assert err == (
        f"agent-tui: POST /threads/{THREAD_ID}/history answered a body that is not what "
        "the API describes (expected a list, got an object)\n"
    )
    assert good.read_bytes() == before
    assert [path.name for path in tmp_path.iterdir()] == ["good.json"]  # no temporary left


def test_an_export_of_a_thread_holding_a_lone_surrogate_keeps_it_exactly(
    server: OddServer, tmp_path: Path
) -> None:
    # It used to stop halfway through writing, leaving an empty file where the old was.
    good = tmp_path / "good.json"
    argv = ["export", THREAD_ID, "-o", str(good), "--url", server.url]
    assert run_cli(argv)[0] == 0
    odd = {**IDLE_THREAD, "metadata": {"graph_id": "chat", "note": "\ud800"}}
    server.answer = spoiling(f"/threads/{THREAD_ID}", Answer(json.dumps(odd).encode()))
    code, _, err = run_cli(argv)
    assert (code, err) == (0, f"exported 4 checkpoints of {THREAD_ID} to {good}\n")
    assert json.loads(good.read_text("utf-8"))["thread"]["metadata"]["note"] == "\ud800"
