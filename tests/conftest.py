"""Session-wide test setup: isolated user folders and one real agent server for all tests.

- ``AGENT_TUI_HOME`` points at a temporary folder from the moment pytest configures, so
  no test reads or writes the real user config, data or log folders.
- ``agent_server`` is the real embedded langgraph-api server, started once per session
  (about 3 s) on a free port, serving ``tests/graphs/langgraph.json``: the demo graphs
  (``chat``, ``demo_counter``) and the test graphs (``counter``, ``ticker``, ``loop``,
  ``nested``, ``questions``, ``failing``, ``pipeline``, ``memory``, ``echo`` (its answer
  depends on the assistant's context: two versions answer differently), and the multi-agent
  ``swarm``, ``supervisor`` and ``deep``). Its data lives in a pytest temporary folder.
- ``aegra`` is a self-hosted Aegra stack (PostgreSQL, Redis, two Aegra 0.11.0 instances
  serving the same graphs; ``.url_a``, ``.url_b``, ``.restart()``), started once per worker
  when a test first asks for it (25-50 s): see `tests.support.aegra`. ``aegra_client``
  is a client of instance A.
- ``client`` is a client of it (for every test folder); ``config_file`` a
  config file of the test's own, with no context or read-only setting leaking in.
"""

from __future__ import annotations

import gc
import os
import shutil
import socket
import sys
import tempfile
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from agent_tui.client import AgentServerClient
from agent_tui.local import EmbeddedAgentServer
from agent_tui.local.supervisor import forked
from tests.support import gc_pauses
from tests.support.aegra import AegraStack, start_aegra_stack
from tests.support.environment import environment_restored, signals_restored

TEST_GRAPHS_CONFIG = Path(__file__).parent / "graphs" / "langgraph.json"

_HOME_KEY = "AGENT_TUI_HOME"
_saved_home: list[str | None] = []


def pytest_configure(config: pytest.Config) -> None:
    # Python's bytecode cache on, as on a user's machine: where it is turned off
    # (PYTHONDONTWRITEBYTECODE), every server and command a test starts compiles all it
    # imports from source again (0.5 s and more a process: langgraph-api, agent-tui).
    # Set here, so the workers and every process they start inherit it.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    # The stop signals as an interactive shell gives them: a suite started in the
    # background (`nohup`, `&` in a script, some CI runners) has SIGINT and SIGHUP
    # ignored, and every process a test starts inherits that (a `logs --follow` that
    # ctrl+c could not stop; it passed only after a UI test had reset SIGINT).
    signals_restored()
    # Before any test module is imported, so even import-time path lookups are isolated.
    _saved_home.append(os.environ.get(_HOME_KEY))
    os.environ[_HOME_KEY] = tempfile.mkdtemp(prefix="agent-tui-tests-")
    gc_pauses.install()
    # The agent servers the tests start in this process (hundreds in a run) are forked
    # from one that did the slow imports once: ~0.6 s of CPU a start instead of ~2.4
    # (`agent_tui.local.supervisor.forked`). The commands, apps and benchmarks the tests
    # run as processes start theirs as a user's do.
    # `AGENT_TUI_TESTS_START_SERVERS=1` starts them as the app does, for comparison.
    if os.environ.get("AGENT_TUI_TESTS_START_SERVERS") != "1":
        forked.fork_servers()


def pytest_collection_finish(session: pytest.Session) -> None:
    # What is alive once the tests are collected (modules, classes, functions: most of
    # the objects of a test process) lives to the end: frozen, every later full garbage
    # collection skips it. Without it each took 0.3-1 s of a loaded machine's time, a
    # pause of everything in the process (a connect's timeout ran out meanwhile).
    gc.collect()
    gc.freeze()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    gc_pauses.current_test[0] = item.nodeid


def pytest_unconfigure(config: pytest.Config) -> None:
    home = os.environ.get(_HOME_KEY)
    if home:
        shutil.rmtree(home, ignore_errors=True)
    previous = _saved_home.pop() if _saved_home else None
    if previous is None:
        os.environ.pop(_HOME_KEY, None)
    else:
        os.environ[_HOME_KEY] = previous


@pytest.fixture(autouse=True)
def _environment_restored() -> Iterator[None]:
    # What a test, or the CLI's `main` run in this worker, sets in the environment is
    # gone before the next test (tests/support/environment.py).
    with environment_restored():
        yield


@pytest.fixture(autouse=True)
def _signals_restored(request: pytest.FixtureRequest) -> Iterator[None]:
    # A stop signal the test left ignored or blocked in this worker would be ignored or
    # blocked in every process started after it: put back, and said where it happened.
    yield
    if changed := signals_restored():
        warnings.warn(f"{request.node.nodeid} left {', '.join(changed)}", stacklevel=1)


@pytest.fixture(scope="session")
def agent_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedAgentServer]:
    """The shared real agent server (``.url``); tests must not stop it."""
    data_dir = tmp_path_factory.mktemp("agent-server")
    server = EmbeddedAgentServer(
        TEST_GRAPHS_CONFIG, data_dir=data_dir, log_file=data_dir / "server.log"
    )
    with server:
        yield server


@pytest.fixture(scope="session")
def agent_server_url(agent_server: EmbeddedAgentServer) -> str:
    return agent_server.url


@pytest.fixture(scope="session")
def aegra() -> Iterator[AegraStack]:
    """The shared Aegra stack; tests may `restart()` it, never `stop()` it."""
    stack = start_aegra_stack()
    try:
        yield stack
    finally:
        stack.stop()


@pytest.fixture
async def aegra_client(aegra: AegraStack) -> AsyncIterator[AgentServerClient]:
    async with AgentServerClient(aegra.url_a) as client:
        yield client


@pytest.fixture
def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (at the time of the call)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
async def client(agent_server_url: str) -> AsyncIterator[AgentServerClient]:
    async with AgentServerClient(agent_server_url) as client:
        yield client


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config.toml"
    monkeypatch.setenv("AGENT_TUI_CONFIG", str(path))
    monkeypatch.delenv("AGENT_TUI_READONLY", raising=False)
    monkeypatch.delenv("AGENT_TUI_CONTEXT", raising=False)
    return path
