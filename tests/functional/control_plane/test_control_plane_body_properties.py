"""Property: no request body makes the local control plane fail, now or later.

Any JSON value (and JSON-like text no parser should accept: `NaN`, `1e400`, 5000-digit
integers, lone surrogates, raw invalid UTF-8, deep nesting) in any field of a POST or
PATCH `/v2/deployments` body gets an answer the spec allows (never a 500), and
`GET /v2/deployments` (and the deployment, and its revisions) keep answering as the
spec says afterwards: nothing stored can break a later read.

The app runs in this process (Starlette's test client, no server, no subprocess), its
deployer's pipeline stubbed: it would start a build process per example and is not what
is under test. Examples are derandomized and bounded, so a run takes a few seconds and
is the same every time.
"""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from agent_tui.local.control_plane.app import create_app
from tests.support.control_plane import validate
from tests.support.paths import CONTROL_PLANE_SPEC

KEY = f"property-{uuid.uuid4().hex}"
HEADERS = {"X-Api-Key": KEY, "Content-Type": "application/json"}
SETTINGS = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


class Raw(str):
    """JSON-like text put into a body as it is (not valid JSON, or not a JSON value)."""


RAW = [
    "NaN",
    "Infinity",
    "-Infinity",
    "1e400",
    "-1e400",
    "1" * 5000,
    "[" * 40 + "]" * 40,
    "[" * 5000,
    '"\\ud800"',
    '"a\\udc00b"',
    '"\\u0000"',
    '{"\\udfff": 1}',
]
SPECIAL_TEXT = ["\udc00", "\ud800x", "\x00", "=", "A=B", "/dev/zero", "/", "~", ".", "", " "]

texts = st.text(max_size=12) | st.sampled_from(SPECIAL_TEXT)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and infinities included: json.dumps writes them as such
    | texts
    | st.sampled_from(RAW).map(Raw)
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(texts, children, max_size=3),
    max_leaves=8,
)
# Half the examples put one of the known-bad values in the field itself: drawn only
# among any JSON, they are too rare for a bounded run to be sure to try each field with
# them, and a check that stopped refusing them must fail this test.
field_values = st.sampled_from(RAW).map(Raw) | st.sampled_from(SPECIAL_TEXT) | json_values

VALID_CREATE: dict[str, Any] = {
    "name": "property",
    "source": "internal_source",
    "source_config": {
        "deployment_type": "dev",
        "resource_spec": {
            "cpu": 1,
            "labels": {"team": "agents"},
            "sidecars": [{"name": "proxy", "image": "envoy", "env": [{"name": "A"}]}],
        },
        "listener_config": {"k8s_namespace": "agents"},
    },
    "source_revision_config": {"langgraph_config_path": "/nonexistent/langgraph.json"},
    "secrets": [{"name": "TOKEN", "value": "secret"}],
    "secret_references": [{"name": "A", "secret_name": "s", "secret_key": "k"}],
}
SCHEMAS = json.loads(CONTROL_PLANE_SPEC.read_text(encoding="utf-8"))["components"]["schemas"]
# Every field the spec's request bodies have (a field added there is fuzzed too), and
# some nested ones.
SHARED_PATHS: list[tuple[str | int, ...]] = [
    ("source_config",),
    *[("source_config", f) for f in SCHEMAS["SourceConfigRequest"]["properties"]],
    *[("source_revision_config", f) for f in SCHEMAS["SourceRevisionConfigRequest"]["properties"]],
    ("source_config", "resource_spec", "cpu"),
    ("source_config", "resource_spec", "labels"),
    ("source_config", "resource_spec", "labels", "team"),
    ("source_config", "resource_spec", "sidecars"),
    ("source_config", "resource_spec", "sidecars", 0),
    ("source_config", "resource_spec", "sidecars", 0, "env"),
    ("source_config", "resource_spec", "volumes"),
    ("source_config", "listener_config", "k8s_namespace"),
    ("source_revision_config",),
    ("secrets",),
    ("secrets", 0),
    ("secrets", 0, "name"),
    ("secrets", 0, "value"),
    ("secret_references",),
    ("secret_references", 0),
    ("secret_references", 0, "secret_key"),
]
CREATE_PATHS: list[tuple[str | int, ...]] = [
    (),
    *[(f,) for f in SCHEMAS["DeploymentCreateRequest"]["properties"]],
    *SHARED_PATHS,
]
PATCH_PATHS: list[tuple[str | int, ...]] = [
    (),
    *[(f,) for f in SCHEMAS["DeploymentPatchRequest"]["properties"]],
    *SHARED_PATHS,
]


def with_value(body: dict[str, Any], path: tuple[str | int, ...], value: Any) -> Any:
    if not path:
        return value
    changed = copy.deepcopy(body)
    target: Any = changed
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return changed


def to_json(value: Any, ensure_ascii: bool) -> str:
    """JSON text with `Raw` pieces spliced in as they are."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        items = (
            f"{json.dumps(k, ensure_ascii=ensure_ascii)}: {to_json(v, ensure_ascii)}"
            for k, v in value.items()
        )
        return "{" + ", ".join(items) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(to_json(v, ensure_ascii) for v in value) + "]"
    return json.dumps(value, ensure_ascii=ensure_ascii)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    app = create_app(tmp_path_factory.mktemp("cp-property"), KEY)
    app.state.deployer.submit = lambda deployment_id, revision_id: None
    with TestClient(app, headers=HEADERS) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def deployment_id(client: TestClient) -> str:
    response = client.post("/v2/deployments", json=VALID_CREATE)
    assert response.status_code == 201
    return str(response.json()["id"])


def send(client: TestClient, method: str, path: str, text: str) -> Any:
    # ensure_ascii=False text may hold lone surrogates: sent as the bytes a broken
    # client would send (invalid UTF-8).
    content = text.encode("utf-8", "surrogatepass")
    response = client.request(method, path, content=content)
    assert response.status_code < 500
    validate(method, path, response.status_code, response.content)
    return response


def assert_reads_work(client: TestClient, deployment_id: str | None) -> None:
    for path in ["/v2/deployments?limit=100"] + (
        [f"/v2/deployments/{deployment_id}", f"/v2/deployments/{deployment_id}/revisions"]
        if deployment_id
        else []
    ):
        response = client.get(path)
        assert response.status_code == 200, response.text
        validate("GET", path.split("?")[0], 200, response.content)


@SETTINGS
@given(path=st.sampled_from(CREATE_PATHS), value=field_values, ensure_ascii=st.booleans())
def test_any_create_body_is_answered_and_leaves_the_list_readable(
    client: TestClient, path: tuple[str | int, ...], value: Any, ensure_ascii: bool
) -> None:
    text = to_json(with_value(VALID_CREATE, path, value), ensure_ascii)
    response = send(client, "POST", "/v2/deployments", text)
    assert response.status_code in (201, 400, 413, 422)
    assert_reads_work(client, response.json()["id"] if response.status_code == 201 else None)


@SETTINGS
@given(path=st.sampled_from(PATCH_PATHS), value=field_values, ensure_ascii=st.booleans())
def test_any_patch_body_is_answered_and_leaves_the_deployment_readable(
    client: TestClient,
    deployment_id: str,
    path: tuple[str | int, ...],
    value: Any,
    ensure_ascii: bool,
) -> None:
    valid_patch = {k: v for k, v in VALID_CREATE.items() if k not in ("name", "source")}
    text = to_json(with_value(valid_patch, path, value), ensure_ascii)
    response = send(client, "PATCH", f"/v2/deployments/{deployment_id}", text)
    assert response.status_code in (200, 400, 413, 422)
    assert_reads_work(client, deployment_id)
