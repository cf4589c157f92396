"""What a user reads when a request fails: one sentence with the server's own words."""

from agent_tui.client.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    ServerError,
    Unauthorized,
    UnexpectedStatus,
    ValidationFailed,
    error_from_response,
)

URL = "http://127.0.0.1:9/threads/x"


def build(status: int, body: object, reason: str = "", auth: str = "none") -> Exception:
    return error_from_response(
        status_code=status, reason=reason, body=body, method="GET", url=URL, auth_scheme=auth
    )


def test_fastapi_422_lists_each_field_and_message() -> None:
    body = {
        "detail": [
            {"loc": ["body", "limit"], "msg": "Input should be less than 100", "type": "less_than"},
            {
                "loc": ["path", "deployment_id"],
                "msg": "Input should be a valid UUID",
                "type": "uuid",
            },
        ]
    }
    error = build(422, body)
    assert isinstance(error, ValidationFailed)
    assert [(e.loc, e.msg, e.type) for e in error.errors] == [
        (("body", "limit"), "Input should be less than 100", "less_than"),
        (("path", "deployment_id"), "Input should be a valid UUID", "uuid"),
    ]
    text = str(error)
    assert "body.limit: Input should be less than 100" in text
    assert "path.deployment_id: Input should be a valid UUID" in text
    assert "GET http://127.0.0.1:9/threads/x" in text


def test_agent_server_422_with_plain_string_detail() -> None:
    error = build(422, {"detail": "Invalid thread ID: must be a UUID"})
    assert isinstance(error, ValidationFailed)
    assert error.errors == []
    assert str(error) == f"Invalid request: Invalid thread ID: must be a UUID (GET {URL})"


def test_named_errors_carry_the_servers_detail() -> None:
    cases = {400: BadRequest, 404: NotFound, 409: Conflict}
    for status, cls in cases.items():
        error = build(status, {"detail": f"detail for {status}"})
        assert type(error) is cls
        assert error.status_code == status
        assert f"detail for {status}" in str(error)


def test_401_and_403_name_the_auth_scheme_in_use() -> None:
    error = build(401, {"detail": "Invalid API key"}, auth="X-Api-Key header")
    assert isinstance(error, Unauthorized)
    assert "Invalid API key" in str(error)
    assert "X-Api-Key header" in str(error)
    forbidden = build(403, {"detail": "This API key requires workspace specification"}, auth="x")
    assert isinstance(forbidden, Forbidden)
    assert forbidden.needs_workspace
    assert "workspace (tenant) id" in str(forbidden)


def test_5xx_names_the_url_even_without_a_json_body() -> None:
    error = build(502, "<html>bad gateway</html>", reason="Bad Gateway")
    assert isinstance(error, ServerError)
    assert URL in str(error)
    assert "502" in str(error)


def test_other_statuses_and_empty_bodies_still_read_well() -> None:
    error = build(418, None, reason="I'm a teapot")
    assert isinstance(error, UnexpectedStatus)
    assert str(error) == f"Unexpected answer: 418 I'm a teapot (GET {URL})"
