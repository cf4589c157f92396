"""Fitting a value on one line (the home screen's summary): paths cut in the middle so
the file name stays, notes given up first, nothing wider than asked."""

from __future__ import annotations

import pytest

from agent_tui.text.fit import cut_end, cut_middle, fit_value

PROJECT = "/home/alice/work/clients/acme-corporation/customer-support-agent/langgraph.json"


def test_a_value_that_fits_is_whole() -> None:
    assert fit_value("langgraph-api 0.16.7", 40) == "langgraph-api 0.16.7"
    assert fit_value(PROJECT, len(PROJECT)) == PROJECT


def test_a_path_keeps_its_start_and_its_file_name() -> None:
    shown = fit_value(PROJECT, 50)
    assert len(shown) == 50
    assert shown.startswith("/home/alice/") and shown.endswith("-support-agent/langgraph.json")
    assert shown.count("…") == 1


def test_a_note_is_cut_before_the_value_and_left_out_when_there_is_no_room() -> None:
    server = "http://127.0.0.1:43111  (local: started by agent-tui, stops when it exits)"
    assert (
        fit_value(server, 64) == "http://127.0.0.1:43111  (local: started by agent-tui, stops wh…)"
    )
    data = f"{PROJECT}  (threads and assistants persist here)"
    assert fit_value(data, 60) == fit_value(PROJECT, 60)  # the path needs the room
    assert fit_value(data, 60).endswith("langgraph.json")


def test_other_text_is_cut_at_its_end() -> None:
    features = "assistants, crons, langsmith_tracing_replicas, langsmith_tracing_session_on_runs"
    assert fit_value(features, 40) == features[:39] + "…"


@pytest.mark.parametrize("width", range(0, 90))
def test_nothing_is_ever_wider_than_asked(width: int) -> None:
    for value in (PROJECT, f"{PROJECT}  (note)", "x  (a long note about x)", "plain words"):
        assert len(fit_value(value, width)) <= width
    assert len(cut_middle(PROJECT, width)) <= width and len(cut_end(PROJECT, width)) <= width
