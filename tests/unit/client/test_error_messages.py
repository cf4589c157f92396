"""`describe_error`: each kind of failure becomes a message that says what to do."""

from __future__ import annotations

from agent_tui.client.error_text import describe_error
from agent_tui.client.errors import (
    ConnectionFailed,
    FieldError,
    Forbidden,
    NotFound,
    RequestTimedOut,
    ServerError,
    Unauthorized,
    ValidationFailed,
    error_from_response,
)


def test_422_lists_each_field_and_message() -> None:
    error = error_from_response(
        status_code=422,
        reason="Unprocessable Entity",
        body={
            "detail": [
                {"loc": ["body", "limit"], "msg": "must be at most 100", "type": "le"},
                {"loc": ["body", "status"], "msg": "must be one of idle, busy", "type": "enum"},
            ]
        },
        method="POST",
        url="http://agent.test/threads/search",
    )
    title, body = describe_error(error)
    assert title == "Invalid request"
    assert body.splitlines() == [
        "• body.limit: must be at most 100",
        "• body.status: must be one of idle, busy",
    ]


def test_422_with_a_plain_detail_shows_it() -> None:
    error = ValidationFailed("Invalid thread ID: must be a UUID", url="http://a/threads/x")
    assert describe_error(error) == ("Invalid request", "Invalid thread ID: must be a UUID")


def test_404_names_what_is_missing() -> None:
    error = NotFound("Thread with ID 1234 not found", method="GET", url="http://a:9/threads/1234")
    title, body = describe_error(error, "open the thread")
    assert title == "Could not open the thread: not found"
    assert "Thread with ID 1234 not found" in body
    assert "/threads/1234" in body


def test_401_and_403_name_the_auth_scheme() -> None:
    title, body = describe_error(Unauthorized("Invalid API key", auth_scheme="X-Api-Key header"))
    assert title == "Not authorised"
    assert "Sent: X-Api-Key header" in body
    _, body = describe_error(Unauthorized("Missing credentials", auth_scheme="none"))
    assert "No API key was sent" in body and "LANGSMITH_API_KEY" in body
    title, body = describe_error(
        Forbidden(
            "This API key requires workspace specification",
            auth_scheme="X-Api-Key header",
        )
    )
    assert title == "Forbidden"
    assert "Sent: X-Api-Key header" in body and "LANGSMITH_WORKSPACE_ID" in body


def test_connection_failure_names_the_url() -> None:
    error = ConnectionFailed(
        "http://127.0.0.1:9: connection refused", method="GET", url="http://127.0.0.1:9/info"
    )
    title, body = describe_error(error)
    assert title == "Cannot reach the server"
    assert "Could not connect to http://127.0.0.1:9" in body
    title, body = describe_error(RequestTimedOut("slow", url="http://h:1/threads/search"))
    assert "http://h:1" in body


def test_server_errors_and_unexpected_exceptions() -> None:
    title, body = describe_error(ServerError("500 Internal", method="GET", url="http://a/x"))
    assert title == "Server error" and "GET http://a/x" in body
    title, body = describe_error(KeyError("oops"))
    assert title == "Something went wrong" and body == "KeyError: 'oops'"


def test_text_from_the_server_is_cleaned() -> None:
    error = ValidationFailed(
        "bad", errors=[FieldError(loc=("body", "x\x1b[2J"), msg="no\x1b]0;title\x07 way")]
    )
    _, body = describe_error(error)
    assert body == "• body.x: no way"
