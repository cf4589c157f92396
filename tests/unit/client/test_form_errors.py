"""A 422 sorted onto a form: messages under their fields, the rest listed, fields counted."""

from __future__ import annotations

from agent_tui.client.errors import FieldError
from agent_tui.client.form_errors import Loc, body_loc, sort_field_errors

FIELDS = {"name", "url"}


def field_of(loc: Loc) -> str | None:
    head = next(iter(body_loc(loc)), "")
    return head if head in FIELDS else None


def test_errors_land_under_their_fields_and_the_rest_is_listed() -> None:
    refused = sort_field_errors(
        [
            FieldError(("body", "name"), "too short"),
            FieldError(("body", "name"), "not ASCII"),
            FieldError(("body", "url", 0), "not a URL"),
            FieldError(("query", "limit"), "too big"),
        ],
        field_of,
    )
    assert refused.problems == {"name": "too short; not ASCII", "url": "not a URL"}
    assert refused.elsewhere == ["• query.limit: too big"]
    assert refused.summary("create the thing").splitlines() == [
        "Could not create the thing:",
        "The server refused 2 fields, marked above.",
        "• query.limit: too big",
    ]


def test_an_error_no_field_shows_is_still_said() -> None:
    refused = sort_field_errors([FieldError(("body",), "bad body")], field_of)
    assert refused.problems == {}
    assert refused.summary("save").splitlines() == ["Could not save:", "• body: bad body"]
    assert body_loc(("body", "secrets", 1, "value")) == ["secrets", "1", "value"]
