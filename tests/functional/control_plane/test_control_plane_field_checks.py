"""What a local deployment must not be given, refused over HTTP with an error per field
(answers checked against the spec), and nothing stored or changed.

Names with control characters or 200 KB of text; secret names that are not environment
variable names, that are given twice, or that would change how the server process runs
(``LD_PRELOAD``, ``PATH``, ``PYTHONPATH``, ``NODE_OPTIONS``, ``UV_INDEX_URL``, the
control plane's own key: the allow rule of `env_names`), while ordinary names pass; a
``langgraph_config_path`` that is no project's ``.json`` file (``/etc/shadow`` was
opened by the build).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_tui.local.control_plane import LocalControlPlane
from tests.support.control_plane import checked_http

MISSING_CONFIG = "/nonexistent/langgraph.json"


@pytest.fixture(scope="module")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalControlPlane]:
    with LocalControlPlane(tmp_path_factory.mktemp("cp-fields")) as plane:
        yield plane


@pytest.fixture
async def http(control_plane: LocalControlPlane) -> AsyncIterator[httpx.AsyncClient]:
    async with checked_http(control_plane.url, control_plane.api_key) as client:
        yield client


def body(name: str, secrets: list[dict[str, str]], config: str = MISSING_CONFIG) -> dict[str, Any]:
    return {
        "name": name,
        "source": "internal_source",
        "source_config": {},
        "source_revision_config": {"langgraph_config_path": config},
        "secrets": secrets,
    }


async def names(http: httpx.AsyncClient) -> list[str]:
    listed = await http.get("/v2/deployments", params={"limit": 100})
    assert listed.status_code == 200
    return [d["name"] for d in listed.json()["resources"]]


def errors(response: httpx.Response) -> dict[tuple[str | int, ...], str]:
    assert response.status_code == 422, response.text
    return {tuple(e["loc"]): e["msg"] for e in response.json()["detail"]}


BAD_NAMES = {
    "an escape sequence": "x\x1b]0;pwned\x07y",
    "a NUL": "x\x00y",
    "a C1 control": "x\x9b2Jy",
    "a bidi override": "x\u202ey",
    "a newline": "x\ny",
    "200 KB": "x" * 200_000,
}


@pytest.mark.parametrize("case", list(BAD_NAMES))
async def test_a_name_with_control_characters_or_too_long_is_refused(
    http: httpx.AsyncClient, case: str
) -> None:
    name = BAD_NAMES[case]
    found = errors(await http.post("/v2/deployments", json=body(name, [])))
    assert list(found) == [("body", "name")]
    assert ("control characters" if case != "200 KB" else "longer than 256") in found[
        ("body", "name")
    ]
    assert name not in await names(http)


async def test_a_name_in_any_script_is_kept(http: httpx.AsyncClient) -> None:
    name = f"Café 東京 🚀 {uuid.uuid4().hex[:6]}"
    created = await http.post("/v2/deployments", json=body(name, []))
    assert created.status_code == 201, created.text
    assert name in await names(http)


BAD_SECRET_NAMES = {
    "LD_PRELOAD": "reserved",
    "DYLD_INSERT_LIBRARIES": "reserved",
    "PATH": "reserved",
    "HOME": "reserved",
    "PYTHONPATH": "reserved",
    "PYTHONSTARTUP": "reserved",
    "BASH_ENV": "reserved",
    "1TOKEN": "not one",
    "MY-TOKEN": "not one",
    "MY TOKEN": "not one",
    "TÖKEN": "not one",
    "A\x1bB": "control characters",
    "T" * 300: "longer than 256",
}


@pytest.mark.parametrize("secret", list(BAD_SECRET_NAMES), ids=lambda s: repr(s[:20]))
async def test_a_secret_name_that_is_no_plain_variable_name_is_refused(
    http: httpx.AsyncClient, secret: str
) -> None:
    name = f"secret-{uuid.uuid4().hex[:8]}"
    secrets = [{"name": "OPENAI_API_KEY", "value": "ok"}, {"name": secret, "value": "v"}]
    found = errors(await http.post("/v2/deployments", json=body(name, secrets)))
    assert list(found) == [("body", "secrets", 1, "name")]
    assert BAD_SECRET_NAMES[secret] in found[("body", "secrets", 1, "name")]
    assert name not in await names(http)

    # The same in a PATCH: refused, the deployment unchanged.
    before = (await http.post("/v2/deployments", json=body(f"{name}-ok", secrets[:1]))).json()
    found = errors(await http.patch(f"/v2/deployments/{before['id']}", json={"secrets": secrets}))
    assert list(found) == [("body", "secrets", 1, "name")]
    after = (await http.get(f"/v2/deployments/{before['id']}")).json()
    assert after["secrets"] == before["secrets"]
    assert after["latest_revision_id"] == before["latest_revision_id"]


PROBED_NAMES = [
    "NODE_OPTIONS",
    "GCONV_PATH",
    "SSL_CERT_FILE",
    "UV_INDEX_URL",
    "AGENT_TUI_CONTROL_PLANE_KEY",
    "GLIBC_TUNABLES",
    "REQUESTS_CA_BUNDLE",
    "PIP_INDEX_URL",
    "LANGGRAPH_NO_VERSION_CHECK",
    "PORT",
    "ld_audit",
]


@pytest.mark.parametrize("secret", PROBED_NAMES)
async def test_a_secret_name_outside_the_allow_rule_is_refused_naming_it_and_the_rule(
    http: httpx.AsyncClient, secret: str
) -> None:
    name = f"allow-{uuid.uuid4().hex[:8]}"
    found = errors(
        await http.post("/v2/deployments", json=body(name, [{"name": secret, "value": "v"}]))
    )
    message = found[("body", "secrets", 0, "name")]
    assert f"named {secret}: it is reserved" in message
    assert "Allowed: environment variable names ([A-Za-z_][A-Za-z0-9_]*)" in message
    assert name not in await names(http)


async def test_ordinary_secret_names_are_taken(http: httpx.AsyncClient) -> None:
    allowed = [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "TAVILY_API_KEY",
        "LANGSMITH_API_KEY",
        "LANGSMITH_TRACING",
        "LANGSMITH_PROJECT",
        "WEATHER_GREETING",
        "HTTPS_PROXY",
        "my_token",
    ]
    name = f"ordinary-{uuid.uuid4().hex[:8]}"
    secrets = [{"name": secret, "value": "v"} for secret in allowed]
    created = await http.post("/v2/deployments", json=body(name, secrets))
    assert created.status_code == 201, created.text
    assert [s["name"] for s in created.json()["secrets"]] == allowed


async def test_each_bad_field_gets_its_own_error_and_duplicates_are_refused(
    http: httpx.AsyncClient,
) -> None:
    secrets = [
        {"name": "TOKEN", "value": "a"},
        {"name": "LD_PRELOAD", "value": "/tmp/evil.so"},
        {"name": "TOKEN", "value": "b"},
    ]
    found = errors(await http.post("/v2/deployments", json=body("bad\x07name", secrets)))
    assert list(found) == [
        ("body", "name"),
        ("body", "secrets", 1, "name"),
        ("body", "secrets", 2, "name"),
    ]
    assert "more than once" in found[("body", "secrets", 2, "name")]


def _config_paths(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    linked = tmp_path / "linked" / "langgraph.json"
    linked.parent.mkdir()
    linked.symlink_to("/etc/passwd")
    yaml = tmp_path / "langgraph.yaml"
    yaml.write_text('{"graphs": {}}')
    return {
        "/etc/shadow": (Path("/etc/shadow"), "not a .json file"),
        "a .json file in /etc": (Path("/etc/agent-tui-nothing.json"), "system folder"),
        "/proc/self/environ": (Path("/proc/self/environ"), "not a .json file"),
        "a langgraph.json linked to /etc/passwd": (linked, "not a .json file"),
        "a file that is not .json": (yaml, "not a .json file"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "/etc/shadow",
        "a .json file in /etc",
        "/proc/self/environ",
        "a langgraph.json linked to /etc/passwd",
        "a file that is not .json",
    ],
)
async def test_a_config_path_that_is_no_project_file_is_refused(
    http: httpx.AsyncClient, tmp_path: Path, case: str
) -> None:
    path, words = _config_paths(tmp_path)[case]
    name = f"path-{uuid.uuid4().hex[:8]}"
    found = errors(await http.post("/v2/deployments", json=body(name, [], str(path))))
    loc = ("body", "source_revision_config", "langgraph_config_path")
    assert list(found) == [loc] and words in found[loc]
    assert name not in await names(http)

    before = (await http.post("/v2/deployments", json=body(f"{name}-ok", []))).json()
    patch = {"source_revision_config": {"langgraph_config_path": str(path)}}
    found = errors(await http.patch(f"/v2/deployments/{before['id']}", json=patch))
    assert list(found) == [loc]
    after = (await http.get(f"/v2/deployments/{before['id']}")).json()
    assert after["source_revision_config"] == before["source_revision_config"]
