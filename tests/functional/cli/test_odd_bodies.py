"""Property: whatever a server answers, a headless command ends with a line, never a
traceback.

Every subcommand that talks to a server (the table in `cli/commands.py`; a test below
checks that none is left out) runs in this process against `OddServer`, a loopback
server that answers as an agent server and a control plane would (`fake_api`), except
for one request of the command's, which gets a generated odd answer: a good body with
one value swapped for another shape, a lone surrogate, controls or 10,000-deep nesting;
an empty body, text that is not JSON, JSON cut short, the wrong content type, an error
status. A run's stream gets events with such data, or is cut mid-event.

The command must exit 0, 1 or 2 (3 for a run that waits), print no traceback and no
character a terminal acts on, and say what went wrong on one line. Examples are
derandomized and bounded: a few tens of seconds, the same every run.

(A lone surrogate is what JSON's `"\\ud800"` decodes to; no output can encode it, so each
print of one raised `UnicodeEncodeError`. The output streams here are strict UTF-8, as a
terminal's are.)
"""

from __future__ import annotations

import contextlib
import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.cli.commands import COMMANDS, Group
from agent_tui.cli.main import main
from tests.support.fake_api import (
    CRON_ID,
    DEPLOYMENT_ID,
    REVISION_ID,
    good_answer,
    run_stream,
    sse,
)
from tests.support.fixed_servers import ASSISTANTS, HISTORY, THREAD_ID
from tests.support.hostile_text import terminal_controls
from tests.support.odd_server import Answer, OddServer, Request

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

ASSISTANT_ID = ASSISTANTS[1]["assistant_id"]
DATASET = "odd-bodies"
OLDEST = HISTORY[-1]["checkpoint"]["checkpoint_id"]
LATEST = HISTORY[0]["checkpoint"]["checkpoint_id"]

# One argv (without the server's URL) per way of running each subcommand.
ARGV: dict[tuple[str, ...], list[list[str]]] = {
    ("threads", "list"): [["threads", "list"], ["threads", "list", "--json"]],
    ("history",): [["history", THREAD_ID], ["history", THREAD_ID, "--json"]],
    ("diff",): [["diff", THREAD_ID, OLDEST, LATEST], ["diff", THREAD_ID, OLDEST, LATEST, "--json"]],
    ("export",): [["export", THREAD_ID, "-o", "-"], ["export", THREAD_ID, "-o", "{file}"]],
    ("import",): [["import", "{export}"], ["import", "{export}", "--json", "--no-check"]],
    ("store", "ls"): [["store", "ls", "users"], ["store", "ls", "--json"]],
    ("store", "get"): [
        ["store", "get", "users.u1", "k1"],
        ["store", "get", "users.u1", "k1", "--json"],
    ],
    ("store", "put"): [["store", "put", "users.u1", "k1", "--value", '{"a": 1}']],
    ("store", "rm"): [["store", "rm", "users.u1", "k1"]],
    ("store", "search"): [["store", "search", "users"], ["store", "search", "users", "--json"]],
    ("crons", "list"): [["crons", "list"], ["crons", "list", "--json"]],
    ("crons", "create"): [
        ["crons", "create", "chat", "--schedule", "0 9 * * *", "--message", "hi"]
    ],
    ("crons", "rm"): [["crons", "rm", CRON_ID]],
    ("run",): [["run", "chat", "--message", "hi"], ["run", "chat", "--message", "hi", "--json"]],
    ("graph",): [
        ["graph", "chat"],
        ["graph", "chat", "--xray", "--ascii"],
        ["graph", "chat", "--mermaid"],
        ["graph", "chat", "--json"],
    ],
    ("assistants", "list"): [["assistants", "list"], ["assistants", "list", "--json"]],
    ("assistants", "show"): [
        ["assistants", "show", "pirate-bot"],
        ["assistants", "show", ASSISTANT_ID, "--schemas", "--json"],
    ],
    ("assistants", "versions"): [
        ["assistants", "versions", ASSISTANT_ID],
        ["assistants", "versions", "chat", "--json"],
    ],
    ("assistants", "set-version"): [["assistants", "set-version", ASSISTANT_ID, "2"]],
    ("assistants", "create"): [
        ["assistants", "create", "chat", "--context-json", '{"style": "pirate"}', "--json"]
    ],
    ("assistants", "update"): [
        ["assistants", "update", ASSISTANT_ID, "--context-json", '{"style": "plain"}', "--drop"]
    ],
    ("assistants", "delete"): [["assistants", "delete", ASSISTANT_ID]],
    ("assistants", "graph"): [["assistants", "graph", "pirate-bot"]],
    ("datasets", "add"): [["datasets", "add", "odd-turns", "--thread", THREAD_ID]],
    ("experiments", "run"): [
        ["experiments", "run", "{dataset}", "--assistant", "chat", "--assistant", "pirate-bot@2"],
        ["experiments", "run", "{dataset}", "--assistant", f"{ASSISTANT_ID}@1", "--json"],
    ],
    ("deployments", "list"): [["deployments", "list"], ["deployments", "list", "--json"]],
    ("deployments", "watch"): [["deployments", "watch", DEPLOYMENT_ID, "--interval", "0.01"]],
    ("deployments", "logs"): [
        ["deployments", "logs", DEPLOYMENT_ID, "--type", "build"],
        ["deployments", "logs", DEPLOYMENT_ID, "--json"],
    ],
    ("deployments", "revisions"): [
        ["deployments", "revisions", DEPLOYMENT_ID],
        ["deployments", "revisions", DEPLOYMENT_ID, "--json"],
    ],
    ("deployments", "delete"): [["deployments", "delete", DEPLOYMENT_ID, "--force"]],
    ("deployments", "redeploy"): [["deployments", "redeploy", DEPLOYMENT_ID, REVISION_ID]],
    ("deploy",): [
        ["deploy", "--config", "{project}", "--name", "demo", "--interval", "0.01"],
        ["deploy", "--config", "{project}", "--name", "new", "--no-wait", "--json"],
    ],
}
# Subcommands that ask no server anything, so no body can reach them.
ASK_NO_SERVER = {
    ("datasets", "list"),
    ("datasets", "show"),
    ("datasets", "import"),
    ("datasets", "export"),
    ("datasets", "delete"),
    ("experiments", "list"),
    ("experiments", "show"),
    # The trace store is this machine's; `traces serve` is a server, not a client.
    ("traces", "serve"),
    ("traces", "list"),
    ("traces", "show"),
    ("config", "path"),
    ("config", "contexts"),
    ("config", "set-context"),
    ("config", "use-context"),
    ("config", "delete-context"),
    ("config", "schema"),
    ("config", "keys"),
    ("serve",),  # a server itself (`test_serve_command.py`)
    ("control-plane", "serve"),  # a server itself (tests/functional/control_plane/)
}
CASES = [argv for argvs in ARGV.values() for argv in argvs]


def test_every_subcommand_that_asks_a_server_is_driven_here() -> None:
    def paths(commands: Any, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
        for command in commands:
            if isinstance(command, Group):
                yield from paths(command.commands, (*prefix, command.name))
            else:
                yield (*prefix, command.name)

    assert set(paths(COMMANDS)) == set(ARGV) | ASK_NO_SERVER


# ----------------------------------------------------------------- odd answers

SURROGATES = ["\ud800", "\udfff", "a\udc00b"]
ODD_TEXT = [*SURROGATES, "\x1b]52;c;cHduZWQ=\x07", "\x9b2J", "\u202e", "\x00", ""]
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | st.sampled_from(ODD_TEXT)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(max_size=6) | st.sampled_from(ODD_TEXT), children, max_size=3)
    ),
    max_leaves=8,
)


class Deep:
    """A value nested `depth` lists deep, written as JSON text (json.dumps would recurse)."""

    def __init__(self, depth: int) -> None:
        self.depth = depth


odd_values = json_values | st.sampled_from([10, 900, 10_000]).map(Deep)


def dumps(value: Any) -> str:
    if isinstance(value, Deep):
        return "[" * value.depth + "]" * value.depth
    # ensure_ascii: a lone surrogate goes out as the escape a server would send.
    return json.dumps(value)


def swapped(body: Any, where: int, value: Any) -> str:
    """`body` as JSON with its `where`-th value (depth first, mod their count) swapped for
    `value`: the shape the API describes everywhere but in one place."""
    places: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        children = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in list(children):
            places.append((node, key))
            if isinstance(child, dict | list):
                walk(child)

    if isinstance(body, dict | list):
        walk(body)
    if not places:
        return dumps(value)
    node, key = places[where % len(places)]
    marker = "\x00swapped\x00"
    node[key] = marker
    return json.dumps(body).replace(json.dumps(marker), dumps(value))


@st.composite
def odd_json_answers(draw: st.DrawFn) -> Any:
    """A function of the good answer: the odd one to send instead."""
    kind = draw(
        st.sampled_from(["swap", "swap", "swap", "whole", "empty", "text", "cut", "status"])
    )
    where = draw(st.integers(min_value=0, max_value=200))
    value = draw(odd_values)
    status = draw(st.sampled_from([200, 200, 201, 204, 404, 409, 422, 500]))
    content_type = draw(st.sampled_from(["application/json", "text/html", "", "text/plain"]))
    text = draw(st.binary(max_size=20))

    def odd(good: Answer) -> Answer:
        body = json.loads(good.body) if good.body else None
        if kind == "swap":
            return Answer(swapped(body, where, value).encode(), content_type=content_type)
        if kind == "whole":
            return Answer(dumps(value).encode(), status=status, content_type=content_type)
        if kind == "empty":
            return Answer(b"", status=status)
        if kind == "text":
            return Answer(b"<html>" + text, status=status, content_type=content_type)
        if kind == "cut":
            return Answer(good.body[: where % (len(good.body) or 1)], cut=True)
        return Answer(f'{{"detail": {dumps(value)}}}'.encode(), status=status)

    return odd


EVENTS = ["values", "updates", "messages", "custom", "error", "metadata", "tasks|sub:1", "odd"]


@st.composite
def odd_streams(draw: st.DrawFn) -> Answer:
    """A run's stream with odd events in it, or cut short, or not a stream at all."""
    good = run_stream()
    kind = draw(st.sampled_from(["event", "event", "cut", "short", "type"]))
    at = draw(st.integers(min_value=0, max_value=len(good)))
    if kind == "cut":
        return Answer(good[:at], content_type="text/event-stream", cut=True)
    if kind == "short":
        return Answer(good[:at], content_type="text/event-stream", short_by=50)
    if kind == "type":
        return Answer(good, content_type=draw(st.sampled_from(["text/html", "application/json"])))
    events = draw(st.lists(st.tuples(st.sampled_from(EVENTS), odd_values), min_size=1, max_size=3))
    odd = b"".join(
        f"event: {name}\r\ndata: {dumps(value)}\r\n\r\n".encode() for name, value in events
    )
    spoiled = [good, odd, sse("values", {"messages": []})]
    return Answer(b"".join(spoiled), content_type="text/event-stream", cut=True)


class OneOddAnswer:
    """Good answers, but the `target`-th request (streams apart) gets an odd one, and the
    first run stream an odd stream."""

    def __init__(self, target: int, odd: Any, stream: Answer | None) -> None:
        self.target = target
        self.odd = odd
        self.stream = stream
        self.seen = 0
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Answer:
        good = good_answer(request)
        with self._lock:
            if request.path.endswith("/stream"):
                stream, self.stream = self.stream, None
                return stream or good
            self.seen += 1
            if self.seen - 1 != self.target:
                return good
        odd: Answer = self.odd(good)
        return odd


# ----------------------------------------------------------------- the property


@pytest.fixture(scope="module")
def server() -> Iterator[OddServer]:
    with OddServer() as odd:
        yield odd


@pytest.fixture(scope="module")
def export_file(server: OddServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("export") / "thread.json"
    server.answer = good_answer
    assert run_cli(["export", THREAD_ID, "-o", str(path), "--url", server.url])[0] == 0
    return path


@pytest.fixture(scope="module", autouse=True)
def dataset() -> None:
    """The dataset the experiments run (in the session's user data folder)."""
    from agent_tui.datasets.model import Example
    from agent_tui.datasets.store import DatasetStore

    DatasetStore().add_examples(
        DATASET,
        [
            Example({"messages": [{"role": "user", "content": "hi"}]}, {"answer": "hello"}),
            Example({"messages": [{"role": "user", "content": "no reference"}]}),
        ],
    )


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """`main(argv)` with stdout and stderr as strict UTF-8 streams, as a terminal's are."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exited:
            code = int(exited.code or 0)
        out.flush()
        err.flush()
    return code, out.buffer.getvalue().decode(), err.buffer.getvalue().decode()


def with_server(argv: list[str], url: str, export: Path, tmp: Path) -> list[str]:
    project = tmp / "project"
    if "{project}" in argv and not project.exists():
        project.mkdir()
        (project / "langgraph.json").write_text('{"graphs": {"agent": "./agent.py:graph"}}')
    files = {
        "{file}": str(tmp / "out.json"),
        "{export}": str(export),
        "{project}": str(project / "langgraph.json"),
        "{dataset}": DATASET,
    }
    argv = [files.get(part, part) for part in argv]
    if argv[0] in ("deployments", "deploy"):
        return [*argv, "--control-plane", url, "--control-plane-key", "k", "--tenant-id", "t"]
    return [*argv, "--url", url]


def error_lines(err: str) -> list[str]:
    """What stderr says went wrong: its lines but for a run's notes on rejoining."""
    notes = ("agent-tui: the connection dropped", "agent-tui: Connection lost; rejoined")
    return [line for line in err.splitlines() if not line.startswith(notes)]


@SETTINGS
@given(
    argv=st.sampled_from(CASES),
    target=st.integers(min_value=0, max_value=5),
    odd=odd_json_answers(),
    stream=st.none() | odd_streams(),
)
def test_no_answer_makes_a_command_print_a_traceback(
    server: OddServer,
    export_file: Path,
    tmp_path: Path,
    argv: list[str],
    target: int,
    odd: Any,
    stream: Answer | None,
) -> None:
    server.answer = OneOddAnswer(target, odd, stream)
    code, out, err = run_cli(with_server(argv, server.url, export_file, tmp_path))

    assert "Traceback" not in err, err
    assert code in ((0, 1, 2, 3) if argv[0] == "run" else (0, 1, 2)), (code, err)
    assert terminal_controls(out) == [], out
    assert terminal_controls(err) == [], err
    said = error_lines(err)
    if code in (1, 2):
        assert said and said[0].startswith("agent-tui: "), err
    # One line says what went wrong (a 422's fields follow it, one a line, indented).
    assert len([line for line in said if not line.startswith("  ")]) <= 1, err
