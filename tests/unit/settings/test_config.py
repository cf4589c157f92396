"""The config file: what it accepts, what it says about bad files, and how contexts resolve."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from agent_tui.settings.config import (
    AgentTuiConfig,
    ConfigError,
    ContextConfig,
    config_path,
    load_config,
)
from agent_tui.settings.config_write import ContextChange, delete_context, set_context, use_context
from agent_tui.settings.contexts import (
    ContextError,
    env_readonly_reason,
    resolve_context,
    summarize_contexts,
    url_context,
)
from agent_tui.settings.secrets_store import KeyStore
from agent_tui.settings.target import LocalServer, RemoteServer

FULL = """\
# my contexts
current_context = "staging"

[contexts.staging]
agent_server_url = "staging.example.com:8123/"
control_plane_url = "https://api.example.com"
api_key_env = "STAGING_KEY"
workspace_id = "ws-1"
readonly = true

[contexts.dev]
agent_server_url = "http://127.0.0.1:2024"
api_key_stored = true

[keymap]
"app.quit" = "ctrl+q,f10"

[ui]
theme = "nord"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def error_lines(tmp_path: Path, text: str) -> list[str]:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.path == path
    prefix = f"{path}: "
    lines = str(info.value).splitlines()
    assert all(line.startswith(prefix) for line in lines)
    return [line.removeprefix(prefix) for line in lines]


def test_a_missing_file_is_the_default_config(tmp_path: Path) -> None:
    config = load_config(tmp_path / "nothing.toml")
    assert config == AgentTuiConfig()
    assert config.current_context == "local"
    assert config.context_names() == ["local"]
    assert (config.keymap, config.theme) == ({}, None)


def test_a_full_file_parses_and_normalizes_urls(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, FULL))
    assert config.current_context == "staging"
    assert config.context_names() == ["local", "staging", "dev"]
    assert config.contexts["staging"] == ContextConfig(
        agent_server_url="http://staging.example.com:8123",
        control_plane_url="https://api.example.com",
        api_key_env="STAGING_KEY",
        workspace_id="ws-1",
        readonly=True,
    )
    assert config.contexts["dev"].api_key_stored
    assert config.keymap == {"app.quit": "ctrl+q,f10"}
    assert config.theme == "nord"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("current_context = \n", ["line 1, column 19: not valid TOML: Invalid value"]),
        (
            "[contexts.prod]\nagent_server_url = 'ftp://x'\nreadonly = 'yes'\n",
            [
                "contexts.prod.agent_server_url: not an http(s) URL: 'ftp://x'",
                'contexts.prod.readonly: expected true or false, got "yes"',
            ],
        ),
        ("[contexts.prod]\nreadonly = true\n", ["contexts.prod.agent_server_url: is required"]),
        (
            "[contexts.prod]\nagent_server_url = 'http://x'\nagent_server_ur = 'http://y'\n",
            [
                "contexts.prod.agent_server_ur: unknown key (expected one of: agent_server_url, "
                "control_plane_url, api_key_env, api_key_stored, workspace_id, readonly, headers)"
            ],
        ),
        (
            "[contexts.prod]\nagent_server_url = 'http://x'\napi_key = 'lsv2_pt_secret'\n",
            [
                "contexts.prod.api_key: keys are never written in the config file: set "
                "api_key_env to the name of an environment variable, or store the key with "
                "`agent-tui config set-context NAME --store-api-key`"
            ],
        ),
        (
            "[contexts.prod]\nagent_server_url = 'http://x'\napi_key_env = 'K'\n"
            "api_key_stored = true\n",
            [
                "contexts.prod: api_key_env and api_key_stored = true are alternatives: "
                "keep one of them"
            ],
        ),
        (
            "[contexts.prod]\nagent_server_url = 'http://x'\napi_key_env = 'MY-KEY'\n",
            ["contexts.prod.api_key_env: 'MY-KEY' is not an environment variable name"],
        ),
        (
            "[contexts.local]\nagent_server_url = 'http://x'\n",
            [
                "contexts: 'local' is the built-in context of the embedded server; "
                "give this context another name"
            ],
        ),
        (
            "current_context = 'prod'\n",
            ["current_context names 'prod', which is not a context (known: local)"],
        ),
        (
            "colour = 'red'\n",
            [
                "colour: unknown key (expected one of: current_context, contexts, keymap, ui, traces)"
            ],
        ),
        ("[ui]\ntheme = 3\n", ["ui.theme: expected a string, got 3"]),
        ("contexts = 'prod'\n", ['contexts: expected a table, got "prod"']),
    ],
)
def test_bad_files_name_the_key_and_the_problem(
    tmp_path: Path, text: str, expected: list[str]
) -> None:
    lines = error_lines(tmp_path, text)
    assert lines == expected
    assert "lsv2_pt_secret" not in "\n".join(lines)


def test_config_path_follows_agent_tui_config(tmp_path: Path) -> None:
    assert config_path({"AGENT_TUI_CONFIG": str(tmp_path / "x.toml")}) == tmp_path / "x.toml"
    assert config_path({}).name == "config.toml"


# -- resolving a context: flags > AGENT_TUI_* > the context > ecosystem env > defaults ---


@pytest.fixture
def config(tmp_path: Path) -> AgentTuiConfig:
    return load_config(write(tmp_path, FULL))


@pytest.fixture
def keystore(tmp_path: Path) -> KeyStore:
    store = KeyStore(tmp_path / "keys.json")
    store.set("dev", "stored-dev-key")
    return store


def test_the_current_context_of_the_file_is_used_by_default(
    config: AgentTuiConfig, keystore: KeyStore
) -> None:
    env = {"STAGING_KEY": "staging-key", "LANGSMITH_API_KEY": "ecosystem-key"}
    context = resolve_context(config, environ=env, keystore=keystore)
    assert context.name == "staging"
    # The context's own key source wins over the ecosystem variable.
    assert context.target == RemoteServer(
        "http://staging.example.com:8123", api_key="staging-key", workspace_id="ws-1"
    )
    assert context.key_source == "environment variable STAGING_KEY"
    assert context.control_plane_url == "https://api.example.com"
    assert context.readonly_reason == "the context 'staging' is read-only"
    assert "staging-key" not in repr(context)


def test_flag_beats_environment_beats_file(config: AgentTuiConfig, keystore: KeyStore) -> None:
    env = {"AGENT_TUI_CONTEXT": "dev"}
    assert resolve_context(config, environ=env, keystore=keystore).name == "dev"
    assert resolve_context(config, "local", environ=env, keystore=keystore).name == "local"


def test_stored_key_and_ecosystem_workspace(config: AgentTuiConfig, keystore: KeyStore) -> None:
    env = {"LANGSMITH_TENANT_ID": "t-2", "LANGSMITH_API_KEY": "ecosystem-key"}
    context = resolve_context(config, "dev", environ=env, keystore=keystore)
    assert context.target == RemoteServer(
        "http://127.0.0.1:2024", api_key="stored-dev-key", workspace_id="t-2"
    )
    assert (context.key_source, context.readonly) == ("stored key", False)
    flagged = resolve_context(config, "dev", api_key="flag-key", environ=env, keystore=keystore)
    assert flagged.target.api_key == "flag-key"
    assert flagged.key_source == "--api-key flag"


def test_local_is_the_embedded_server_without_a_key(
    config: AgentTuiConfig, keystore: KeyStore
) -> None:
    context = resolve_context(
        config, "local", environ={"LANGSMITH_API_KEY": "k"}, keystore=keystore
    )
    assert context.target == LocalServer()
    assert context.is_local and not context.readonly
    with pytest.raises(ContextError, match="--api-key needs --url"):
        resolve_context(config, "local", api_key="k", environ={}, keystore=keystore)


def test_a_context_without_key_source_falls_back_to_the_ecosystem_variables(
    tmp_path: Path, keystore: KeyStore
) -> None:
    config = load_config(write(tmp_path, "[contexts.p]\nagent_server_url = 'http://p'\n"))
    env = {"LANGGRAPH_API_KEY": "g", "LANGCHAIN_API_KEY": "c", "LANGSMITH_WORKSPACE_ID": "w"}
    context = resolve_context(config, "p", environ=env, keystore=keystore)
    assert context.target == RemoteServer("http://p", api_key="g", workspace_id="w")
    assert context.key_source == "environment variable LANGGRAPH_API_KEY"
    assert resolve_context(config, "p", environ={}, keystore=keystore).key_source == "none"


@pytest.mark.parametrize(
    ("name", "env", "message"),
    [
        ("nope", {}, "no context named 'nope' (known: local, staging, dev)"),
        (
            None,
            {"AGENT_TUI_CONTEXT": "nope"},
            "AGENT_TUI_CONTEXT: no context named 'nope' (known: local, staging, dev)",
        ),
        (
            "staging",
            {},
            "the context 'staging' takes its API key from the environment variable "
            "STAGING_KEY, which is not set",
        ),
        (
            "local",
            {"AGENT_TUI_READONLY": "maybe"},
            "AGENT_TUI_READONLY must be one of 1, true, yes, on (read-only) or 0, false, no, "
            "off; it is 'maybe'",
        ),
    ],
)
def test_unusable_contexts_say_why(
    config: AgentTuiConfig, keystore: KeyStore, name: str | None, env: dict[str, str], message: str
) -> None:
    with pytest.raises(ContextError) as info:
        resolve_context(config, name, environ=env, keystore=keystore)
    assert str(info.value) == message


def test_a_missing_stored_key_says_how_to_store_one(config: AgentTuiConfig, tmp_path: Path) -> None:
    empty = KeyStore(tmp_path / "none.json")
    with pytest.raises(ContextError, match="agent-tui config set-context dev --store-api-key"):
        resolve_context(config, "dev", environ={}, keystore=empty)


def test_readonly_environment_variable(config: AgentTuiConfig, keystore: KeyStore) -> None:
    assert env_readonly_reason({"AGENT_TUI_READONLY": "1"}) == "AGENT_TUI_READONLY is set"
    assert env_readonly_reason({"AGENT_TUI_READONLY": "off"}) is None
    local = resolve_context(config, "local", environ={"AGENT_TUI_READONLY": "true"})
    assert local.readonly_reason == "AGENT_TUI_READONLY is set"
    # A writable setting in the environment never unlocks a read-only context.
    env = {"AGENT_TUI_READONLY": "0", "STAGING_KEY": "k"}
    staging = resolve_context(config, "staging", environ=env, keystore=keystore)
    assert staging.readonly


def test_url_context_takes_flag_then_environment() -> None:
    env = {"LANGCHAIN_API_KEY": "c", "LANGSMITH_WORKSPACE_ID": "w"}
    context = url_context("http://x:1", environ=env)
    assert context.target == RemoteServer("http://x:1", api_key="c", workspace_id="w")
    assert context.key_source == "environment variable LANGCHAIN_API_KEY"
    assert url_context("http://x:1", "k", environ=env).key_source == "--api-key flag"


def test_summaries_never_hold_a_key(config: AgentTuiConfig, keystore: KeyStore) -> None:
    rows = summarize_contexts(config, environ={"STAGING_KEY": "secret-1"}, keystore=keystore)
    assert [(r.name, r.current, r.key_source, r.key_available) for r in rows] == [
        ("local", False, "none", True),
        ("staging", True, "env STAGING_KEY", True),
        ("dev", False, "stored", True),
    ]
    text = repr(rows) + repr([r.as_json() for r in rows])
    assert "secret-1" not in text and "stored-dev-key" not in text
    rows = summarize_contexts(config, current="dev", environ={}, keystore=KeyStore(Path("/none")))
    assert [(r.key_source, r.current) for r in rows[1:]] == [
        ("env STAGING_KEY (not set)", False),
        ("stored (missing)", True),
    ]


# -- writing: comments and other contexts survive, atomically, mode 0600 ------------------


def test_set_context_keeps_comments_and_other_contexts(tmp_path: Path) -> None:
    path = write(tmp_path, FULL)
    config = set_context(path, "prod", ContextChange(agent_server_url="prod.example.com"))
    assert config.context_names() == ["local", "staging", "dev", "prod"]
    text = path.read_text()
    assert text.startswith("# my contexts\n")
    assert '[contexts.prod]\nagent_server_url = "http://prod.example.com"' in text
    assert load_config(path) == config
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]  # no temporary file left


def test_set_context_changes_only_what_is_given(tmp_path: Path) -> None:
    path = write(tmp_path, FULL)
    config = set_context(path, "staging", ContextChange(readonly=False, api_key_stored=True))
    assert config.contexts["staging"] == ContextConfig(
        agent_server_url="http://staging.example.com:8123",
        control_plane_url="https://api.example.com",
        api_key_stored=True,  # replaced api_key_env
        workspace_id="ws-1",
        readonly=False,
    )
    config = set_context(path, "staging", ContextChange(api_key_env="OTHER"))
    assert (config.contexts["staging"].api_key_env, config.contexts["staging"].api_key_stored) == (
        "OTHER",
        False,
    )


def test_an_invalid_change_writes_nothing(tmp_path: Path) -> None:
    path = write(tmp_path, FULL)
    with pytest.raises(ConfigError, match=r"contexts.dev.agent_server_url: not an http\(s\) URL"):
        set_context(path, "dev", ContextChange(agent_server_url="ftp://x"))
    with pytest.raises(ConfigError, match="'bad name' is not a valid context name"):
        set_context(path, "bad name", ContextChange(agent_server_url="http://x"))
    with pytest.raises(ConfigError, match="'local' is the built-in context"):
        set_context(path, "local", ContextChange(agent_server_url="http://x"))
    assert path.read_text() == FULL


def test_a_broken_file_is_never_overwritten(tmp_path: Path) -> None:
    path = write(tmp_path, "current_context = \n# keep me\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        set_context(path, "p", ContextChange(agent_server_url="http://p"))
    assert path.read_text() == "current_context = \n# keep me\n"


def test_use_and_delete_context(tmp_path: Path) -> None:
    path = write(tmp_path, FULL)
    assert use_context(path, "dev").current_context == "dev"
    with pytest.raises(
        ConfigError, match=r"no context named 'nope' \(known: local, staging, dev\)"
    ):
        use_context(path, "nope")
    config = delete_context(path, "dev")
    assert config.current_context == "local"  # the deleted one was current
    assert config.context_names() == ["local", "staging"]
    with pytest.raises(ConfigError, match="'local' is the built-in context"):
        delete_context(path, "local")
    assert use_context(path, "local").current_context == "local"


def test_writing_a_new_file_creates_a_private_folder(tmp_path: Path) -> None:
    path = tmp_path / "new" / "config.toml"
    set_context(path, "p", ContextChange(agent_server_url="http://p"))
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert load_config(path).context_names() == ["local", "p"]


# -- the JSON schema for editors ------------------------------------------------------------


def test_the_json_schema_file_is_up_to_date() -> None:
    from agent_tui.settings.config_schema import SCHEMA_FILE, render_schema

    assert SCHEMA_FILE.read_text() == render_schema(), (
        "config.schema.json is stale: run `uv run python -m agent_tui.settings.config_schema`"
    )


def test_the_json_schema_agrees_with_the_loader() -> None:
    import tomllib

    import jsonschema

    from agent_tui.settings.config_schema import config_json_schema

    validator = jsonschema.Draft202012Validator(config_json_schema())
    assert list(validator.iter_errors(tomllib.loads(FULL))) == []
    for bad in (
        "[contexts.p]\nagent_server_url = 'http://p'\nreadonly = 'yes'\n",
        "[contexts.p]\nagent_server_url = 'http://p'\napi_key = 'k'\n",
        "[contexts.local]\nagent_server_url = 'http://p'\n",
        "[contexts.'bad name']\nagent_server_url = 'http://p'\n",
        "[contexts.p]\nreadonly = true\n",
        "[ui]\ntheme = 3\n",
    ):
        assert list(validator.iter_errors(tomllib.loads(bad))), bad


async def test_the_workspace_reaches_the_server_as_x_tenant_id() -> None:
    import httpx

    from agent_tui.client import AgentServerClient

    seen: dict[str, str] = {}

    def answer(request: httpx.Request) -> httpx.Response:
        seen.update(request.headers)
        return httpx.Response(200, json={"version": "x"})

    context = url_context("http://x:1", "k", environ={"LANGSMITH_WORKSPACE_ID": "ws-9"})
    target = context.target
    assert isinstance(target, RemoteServer)
    client = AgentServerClient(
        target.url,
        api_key=target.api_key,
        tenant_id=target.workspace_id,
        http_transport=httpx.MockTransport(answer),
    )
    async with client:
        await client.info()
    assert (seen["x-api-key"], seen["x-tenant-id"]) == ("k", "ws-9")
