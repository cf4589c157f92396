"""How the start-up screen turns server log lines into a status and a cause."""

from __future__ import annotations

from agent_tui.tui.screens.startup import latest_status, probable_cause, status_from_log_line

STRUCTLOG = (
    "2026-11-21T16:06:04.124311Z [info     ] Application started up in 2.278s "
    "[langgraph_api.timing.timer] api_variant=local_dev elapsed=2.27"
)


def test_status_keeps_the_event_text_of_a_structlog_line() -> None:
    assert status_from_log_line(STRUCTLOG) == "Application started up in 2.278s"


def test_status_of_stdlib_and_plain_lines() -> None:
    assert status_from_log_line("INFO:langgraph_api.cli:Starting server") == "Starting server"
    assert status_from_log_line("- 🚀 API: http://127.0.0.1:1") == "- 🚀 API: http://127.0.0.1:1"


def test_latest_status_skips_lines_with_nothing_to_say() -> None:
    assert latest_status([STRUCTLOG, "INFO:langgraph_api.cli:", "   "]) == (
        "Application started up in 2.278s"
    )
    assert latest_status([]) == ""


def test_probable_cause_is_the_last_exception_line() -> None:
    lines = [
        "ValueError: an earlier one",
        "Traceback (most recent call last):",
        '  File "x.py", line 1, in <module>',
        "langgraph_api.utils.errors.GraphLoadError: Failed to load graph 'g'",
        "2026-11-21T16:12:01Z [error    ] Application startup failed. Exiting.",
        "Fatal Python error: _enter_buffered_busy: could not acquire lock",
    ]
    assert (
        probable_cause(lines)
        == "langgraph_api.utils.errors.GraphLoadError: Failed to load graph 'g'"
    )
    assert probable_cause(["all good"]) is None
