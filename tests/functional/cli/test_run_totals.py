"""`agent-tui run` ends with the run's totals when the run was traced here (calls,
tokens, model time against wall time, cost when the config prices the model), also as
`totals` in the `--json` outcome; from the streamed calls with `--stream-mode events`
on a server that traces nowhere; and says nothing of them otherwise."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.local.trace_collector import TraceCollector, default_folder
from tests.support.cli import cli
from tests.support.openai_standin import MODEL
from tests.support.traces import traced_agent_server, untraced_agent_server

ASK = ("run", "weather", "--message", "Weather in Paris?")


@pytest.fixture(scope="module")
def traced_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data_dir = tmp_path_factory.mktemp("cli-traced-server")
    with (
        TraceCollector(default_folder()) as collector,
        traced_agent_server(collector, data_dir) as url,
    ):
        yield url


@pytest.fixture(scope="module")
def untraced_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with untraced_agent_server(tmp_path_factory.mktemp("cli-untraced-server")) as url:
        yield url


@pytest.fixture
def priced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A config pricing the stand-in's model at $1 / $2 per million tokens."""
    path = tmp_path / "config.toml"
    path.write_text(
        f'[traces.prices."{MODEL}"]\ninput_per_million = 1.0\noutput_per_million = 2.0\n'
    )
    monkeypatch.setenv("AGENT_TUI_CONFIG", str(path))


def outcome(out: str) -> dict[str, Any]:
    records = [json.loads(line) for line in out.splitlines()]
    assert records[-1]["event"] == "outcome"
    data: dict[str, Any] = records[-1]["data"]
    return data


async def test_a_traced_run_ends_with_its_totals(
    traced_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = await cli(capsys, *ASK, "--url", traced_url)
    assert (code, err) == (0, "")
    last = out.splitlines()[-1]
    assert last.startswith("totals: 2 model calls, 1 tool call, tokens 55→16, model time ")
    assert " of " in last and "cost" not in last  # no price configured


async def test_json_has_the_totals_and_their_cost(
    traced_url: str, priced: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = await cli(capsys, *ASK, "--url", traced_url, "--json")
    assert code == 0
    totals = outcome(out)["totals"]
    assert {k: totals[k] for k in ("model_calls", "tool_calls", "input_tokens")} == {
        "model_calls": 2,
        "tool_calls": 1,
        "input_tokens": 55,
    }
    assert totals["output_tokens"] == 16 and totals["unpriced_calls"] == 0
    assert totals["cost_usd"] == pytest.approx((55 * 1.0 + 16 * 2.0) / 1_000_000)
    assert 0 < totals["model_seconds"] <= totals["wall_seconds"]


async def test_an_untraced_run_has_no_totals_unless_it_streamed_its_calls(
    untraced_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = await cli(capsys, *ASK, "--url", untraced_url, "--json")
    assert code == 0 and outcome(out)["totals"] is None
    code, out, _ = await cli(capsys, *ASK, "--url", untraced_url)
    assert code == 0 and "totals" not in out

    streamed = ("--stream-mode", "updates,messages-tuple,events")
    code, out, _ = await cli(capsys, *ASK, *streamed, "--url", untraced_url, "--json")
    totals = outcome(out)["totals"]
    assert (totals["model_calls"], totals["tool_calls"], totals["input_tokens"]) == (2, 1, 55)


async def test_tokens_the_model_did_not_report_are_said_so_not_zero(
    traced_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    demo = ("run", "chat", "--message", "hello", "--url", traced_url)  # agent-tui's demo
    code, out, _ = await cli(capsys, *demo)
    assert code == 0
    last = out.splitlines()[-1]
    assert last.startswith("totals: 1 model call, 0 tool calls, tokens not reported, model")

    code, out, _ = await cli(capsys, *demo, "--json")
    totals = outcome(out)["totals"]
    assert (totals["input_tokens"], totals["output_tokens"]) == (None, None)
    assert totals["calls_without_tokens"] == 1
