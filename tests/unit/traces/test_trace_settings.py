"""When the local servers trace to agent-tui's collector: on by default; off by the
config, the environment or the flag; never over a project's own LangSmith settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.cli.main import build_parser
from agent_tui.local.trace_collector.wiring import (
    deployment_tracing,
    project_traces_itself,
    server_tracing,
    tracing_environment,
)
from agent_tui.settings.traces import ENABLED_ENV, MAX_MB_ENV, trace_settings


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, config_file: Path) -> None:
    monkeypatch.delenv(ENABLED_ENV, raising=False)
    monkeypatch.delenv(MAX_MB_ENV, raising=False)


def test_on_by_default_with_a_documented_size() -> None:
    settings = trace_settings()
    assert (settings.enabled, settings.max_size_mb) == (True, 256)
    assert settings.max_bytes == 256 * 1024 * 1024


def test_the_config_the_environment_and_the_flag_turn_it_off(
    config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_file.write_text("[traces]\nenabled = false\nmax_size_mb = 32\n")
    assert trace_settings() == type(trace_settings())(enabled=False, max_size_mb=32)

    config_file.write_text("")
    monkeypatch.setenv(ENABLED_ENV, "0")
    monkeypatch.setenv(MAX_MB_ENV, "64")
    assert (trace_settings().enabled, trace_settings().max_size_mb) == (False, 64)
    assert tracing_environment({}) == {}  # no collector is started for it

    monkeypatch.setenv(ENABLED_ENV, "1")
    assert trace_settings(no_traces=True).enabled is False
    assert build_parser().parse_args(["--no-traces", "serve"]).traces is False
    assert build_parser().parse_args(["serve", "--no-traces"]).traces is False


def test_a_project_that_traces_by_itself_keeps_its_settings() -> None:
    for name in (
        "LANGSMITH_TRACING",
        "LANGCHAIN_TRACING_V2",
        "LANGSMITH_ENDPOINT",
        "LANGSMITH_API_KEY",
    ):
        assert project_traces_itself({name: "x"}), name
        assert tracing_environment({name: "x"}) == {}
    assert not project_traces_itself({"LANGSMITH_PROJECT": "mine", "OPENAI_API_KEY": "k"})


def test_a_deployments_secrets_count_as_its_own_settings(tmp_path: Path) -> None:
    config = tmp_path / "langgraph.json"
    config.write_text('{"graphs": {"g": "./g.py:graph"}, "env": {"LANGSMITH_TRACING": "false"}}')
    assert deployment_tracing(config, {}) == {}  # the project's env says so

    config.write_text('{"graphs": {"g": "./g.py:graph"}, "env": {}}')
    assert deployment_tracing(config, {"LANGSMITH_API_KEY": "lsv2_pt_x"}) == {}  # a secret


def test_how_a_started_server_traces_is_known_to_its_starter() -> None:
    added = {"LANGSMITH_TRACING": "true", "LANGSMITH_ENDPOINT": "http://127.0.0.1:8124"}
    assert server_tracing(added, {}) == "traced"
    assert server_tracing({}, {"LANGSMITH_API_KEY": "lsv2_x"}) == "own-settings"
    assert server_tracing({}, {"OTHER": "1"}) == "tracing-off"
