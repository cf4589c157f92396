"""A real self-hosted Aegra for the tests: PostgreSQL, Redis and two Aegra 0.11.0 instances.

`start_aegra_stack()` builds, in a fresh temporary folder (``agent-tui-aegra-*`` in the
system temporary folder, removed by `AegraStack.stop`, or by the next stack's start when
the test process died: a live stack holds a lock on a file in it):

1. **Aegra's environment**: Aegra needs Python >= 3.12, so it runs from a virtual
   environment of its own, cached across runs and built once (`tests.support.aegra_env`).
2. **PostgreSQL**: the machine's server binaries (``pg_config --bindir``, else the newest
   ``/usr/lib/postgresql/*/bin``; ``.ci/run`` installs Debian's ``postgresql`` when
   ``initdb`` is missing). ``initdb`` in ``pg/data`` (trust authentication, user
   ``postgres``), then ``postgres`` in the foreground on a free loopback port with its
   socket in ``pg/`` and durability off (``fsync=off``: a test database), then
   ``createdb aegra``. PostgreSQL refuses to run as root: as root, the folder is given to
   the ``postgres`` user and the binaries run as it.
3. **Redis**: Debian's ``redis-server`` in the foreground on a free loopback port, nothing
   saved to disk (``.ci/run`` installs it when it is missing).
4. **Aegra A, then Aegra B**: ``aegra serve`` from the environment, each on a free
   loopback port, both on the same database and the same Redis (``DATABASE_URL``,
   ``REDIS_URL``, ``REDIS_BROKER_ENABLED=true``: the job queue and the cross-instance
   stream pub/sub), no authentication. A starts first; B starts once A's log says the
   database migrations have run (or A answers ``GET /ready``), since two instances
   migrating one database at once would race; both are ready when ``GET /ready`` answers. Their ``aegra.json`` (written in the folder) serves the graphs of
   ``tests/graphs/langgraph.json`` as file paths, which Aegra requires: the demo's
   ``agent_tui.local.demo.X:graph`` becomes ``<repo>/src/agent_tui/local/demo/X.py:graph``
   and ``./x.py:graph`` becomes ``<repo>/tests/graphs/x.py:graph``; ``PYTHONPATH`` is the
   repository's ``src`` so the demo's own imports resolve.

Every process runs in a process group of its own, logs to a file in the folder (a start
failure raises with the tail of that log), is stopped with its group at teardown, and is
killed by a watchdog if the test process dies first (`tests.support.service_processes`).

`AegraStack.restart()` stops both instances (SIGTERM: Aegra's graceful shutdown) and
starts them again, together, on the same ports (the same URLs), with PostgreSQL and Redis
kept: what a user sees after restarting a deployment.

Parallel test workers (pytest-xdist, ``--dist loadfile``): the session fixture is per
worker, so each worker that runs an Aegra test starts a stack of its own (its own
database, Redis and ports; the environment is shared). Stacks are not shared across
workers on purpose: `restart()` in one worker would break a test running in another.
Keep the tests that use Aegra in few files (tests/functional/aegra/ and a file or two
elsewhere) so that at most one or two workers pay the start-up.
"""

from __future__ import annotations

import fcntl
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import httpx

from agent_tui.client.tls import loopback_tls_context
from tests.support.aegra_env import AegraSetupError, aegra_venv
from tests.support.service_processes import Service, Watchdog

REPO = Path(__file__).resolve().parents[2]
TEST_GRAPHS_CONFIG = REPO / "tests" / "graphs" / "langgraph.json"
FIRST_START_TIMEOUT = 180.0
"""Seconds for instance A's first answer: it runs the database migrations first."""
START_TIMEOUT = 120.0
_DEMO_PACKAGE = "agent_tui.local.demo."
_FOLDER_PREFIX = "agent-tui-aegra-"
_IN_USE = "in-use.lock"
_MIGRATED_LINES = ("database migrations completed", "already at migration head")


@dataclass
class AegraStack:
    """A running PostgreSQL, Redis and two Aegra instances on them (``url_a``, ``url_b``)."""

    folder: Path
    postgres: Service
    redis: Service
    instances: tuple[Service, Service]
    ports: tuple[int, int]
    watchdog: Watchdog
    database_url: str
    redis_url: str
    in_use: IO[str]
    stopped: bool = field(default=False)

    @property
    def url_a(self) -> str:
        return f"http://127.0.0.1:{self.ports[0]}"

    @property
    def url_b(self) -> str:
        return f"http://127.0.0.1:{self.ports[1]}"

    def restart(self) -> None:
        """Stop both instances (gracefully, as a deployment does), then start A and B again."""
        for instance in reversed(self.instances):
            instance.stop()
        # The database is migrated already: both start at once (half the wait).
        for instance in self.instances:
            instance.start()
        for instance, port in zip(self.instances, self.ports, strict=True):
            _wait_for_instance(instance, port, START_TIMEOUT)

    def stop(self) -> None:
        """Stop everything and remove the folder."""
        if self.stopped:
            return
        self.stopped = True
        try:
            for instance in reversed(self.instances):
                instance.stop()
            self.redis.stop()
            self.postgres.stop()
        finally:
            self.watchdog.close()
            shutil.rmtree(self.folder, ignore_errors=True)
            self.in_use.close()


def start_aegra_stack() -> AegraStack:
    """Build and start the whole stack; on any failure nothing is left running."""
    venv = aegra_venv()
    redis_server = shutil.which("redis-server")
    if redis_server is None:
        raise AegraSetupError(
            "redis-server is not installed (Debian: apt-get install redis-server)"
        )
    bindir = postgres_bindir()
    pg_user = "postgres" if os.geteuid() == 0 else None

    folder = Path(tempfile.mkdtemp(prefix=_FOLDER_PREFIX))
    in_use = _hold(folder)
    _remove_abandoned_folders()
    watchdog = Watchdog()
    started: list[Service] = []
    try:
        postgres, database_url = _start_postgres(folder, bindir, pg_user, watchdog, started)
        redis, redis_url = _start_redis(folder, redis_server, watchdog, started)
        config = _write_aegra_config(folder)
        ports = (_free_port(), _free_port())
        env = _aegra_env(database_url, redis_url)
        instances = tuple(
            Service(
                f"aegra-{name}",
                [
                    str(venv / "bin" / "aegra"),
                    "serve",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(port),
                    "-c",
                    str(config),
                ],
                log=folder / f"aegra-{name}.log",
                watchdog=watchdog,
                env=env,
                cwd=folder,
            )
            for name, port in zip("ab", ports, strict=True)
        )
        first, second = instances
        started.append(first)
        first.start()
        # B may start once A has migrated the database (two instances migrating at once
        # would race): A logs it seconds before it answers, B's slow imports overlap A's.
        first.wait_until(
            lambda: _migrated(first) or _answers(ports[0]),
            FIRST_START_TIMEOUT,
            "database migrations",
        )
        started.append(second)
        second.start()
        _wait_for_instance(first, ports[0], FIRST_START_TIMEOUT)
        _wait_for_instance(second, ports[1], START_TIMEOUT)
    except BaseException:
        for service in reversed(started):
            service.stop(timeout=5)
        watchdog.close()
        shutil.rmtree(folder, ignore_errors=True)
        in_use.close()
        raise
    return AegraStack(
        folder=folder,
        postgres=postgres,
        redis=redis,
        instances=(instances[0], instances[1]),
        ports=ports,
        watchdog=watchdog,
        database_url=database_url,
        redis_url=redis_url,
        in_use=in_use,
    )


def _hold(folder: Path) -> IO[str]:
    """Lock the stack's folder for as long as the returned file stays open."""
    handle = (folder / _IN_USE).open("w")
    fcntl.flock(handle, fcntl.LOCK_EX)
    return handle


def _remove_abandoned_folders() -> None:
    """Remove the folders of stacks whose test process died (nobody holds their lock)."""
    for other in Path(tempfile.gettempdir()).glob(_FOLDER_PREFIX + "*"):
        try:
            with (other / _IN_USE).open("r") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                shutil.rmtree(other, ignore_errors=True)
        except OSError:
            continue  # in use, or not locked yet (just made), or gone


def postgres_bindir() -> Path:
    """The folder of the PostgreSQL server binaries (``initdb``, ``postgres``)."""
    candidates: list[Path] = []
    if pg_config := shutil.which("pg_config"):
        done = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=False)
        if done.returncode == 0:
            candidates.append(Path(done.stdout.strip()))
    candidates += sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
        reverse=True,
    )
    for candidate in candidates:
        if (candidate / "initdb").is_file() and (candidate / "postgres").is_file():
            return candidate
    raise AegraSetupError(
        "PostgreSQL's server binaries (initdb, postgres) were not found "
        "(Debian: apt-get install postgresql)"
    )


def _start_postgres(
    folder: Path, bindir: Path, user: str | None, watchdog: Watchdog, started: list[Service]
) -> tuple[Service, str]:
    pg = folder / "pg"
    pg.mkdir()
    if user is not None:
        account = pwd.getpwnam(user)
        folder.chmod(0o711)  # the postgres user passes through to its own folder
        os.chown(pg, account.pw_uid, account.pw_gid)
    data = pg / "data"
    init = subprocess.run(
        [str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
         "--encoding=UTF8", "--locale=C", "--no-sync"],
        capture_output=True, text=True, cwd=pg, user=user, group=user,
        extra_groups=[] if user else None, check=False,
    )  # fmt: skip
    if init.returncode != 0:
        raise AegraSetupError(f"initdb failed:\n{init.stdout[-2000:]}\n{init.stderr[-2000:]}")
    port = _free_port()
    postgres = Service(
        "postgres",
        [str(bindir / "postgres"), "-D", str(data), "-p", str(port), "-k", str(pg),
         "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300",
         "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
        log=folder / "postgres.log", watchdog=watchdog, cwd=pg, user=user,
        stop_signal=signal.SIGINT,  # PostgreSQL's "fast" shutdown
    )  # fmt: skip
    started.append(postgres)
    postgres.start()
    address = ["-h", "127.0.0.1", "-p", str(port), "-U", "postgres"]

    def accepting() -> bool:
        ready = subprocess.run([str(bindir / "pg_isready"), "-q", *address], check=False)
        return ready.returncode == 0

    postgres.wait_until(accepting, START_TIMEOUT, "connections accepted")
    create = subprocess.run(
        [str(bindir / "createdb"), *address, "aegra"], capture_output=True, text=True, check=False
    )
    if create.returncode != 0:
        raise postgres.start_error(f"createdb aegra failed: {create.stderr.strip()}")
    return postgres, f"postgresql://postgres@127.0.0.1:{port}/aegra"


def _start_redis(
    folder: Path, redis_server: str, watchdog: Watchdog, started: list[Service]
) -> tuple[Service, str]:
    port = _free_port()
    redis = Service(
        "redis",
        [redis_server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(folder)],
        log=folder / "redis.log", watchdog=watchdog, cwd=folder,
    )  # fmt: skip
    started.append(redis)
    redis.start()
    redis.wait_until(lambda: _redis_answers(port), START_TIMEOUT, "PONG")
    return redis, f"redis://127.0.0.1:{port}/0"


def _redis_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False


# Test graphs built on packages Aegra's environment does not hold (langchain,
# langgraph-swarm, langgraph-supervisor): a graph that cannot be imported stops Aegra's
# start. The multi-agent tests run on langgraph-api.
NOT_ON_AEGRA = ("./multi_agent.py",)


def aegra_graphs() -> dict[str, str]:
    """The test server's graphs as Aegra needs them: absolute file paths."""
    graphs: dict[str, str] = json.loads(TEST_GRAPHS_CONFIG.read_text())["graphs"]
    mapped = {}
    for name, target in graphs.items():
        module, _, variable = target.rpartition(":")
        if module in NOT_ON_AEGRA:
            continue
        if module.startswith(_DEMO_PACKAGE):
            path = REPO / "src" / Path(*module.split(".")).with_suffix(".py")
        else:
            path = (TEST_GRAPHS_CONFIG.parent / module).resolve()
        mapped[name] = f"{path}:{variable}"
    return mapped


def _write_aegra_config(folder: Path) -> Path:
    config = folder / "aegra.json"
    config.write_text(json.dumps({"graphs": aegra_graphs()}, indent=2))
    return config


def _aegra_env(database_url: str, redis_url: str) -> dict[str, str]:
    inherited = {
        key: value
        for key, value in os.environ.items()
        if key not in ("VIRTUAL_ENV", "PYTHONHOME", "PYTHONPATH", "HOST", "PORT", "AEGRA_CONFIG")
        and not key.startswith(("POSTGRES_", "REDIS_", "AUTH_", "LANGGRAPH_", "LANGSMITH_"))
    }
    return inherited | {
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "REDIS_BROKER_ENABLED": "true",
        "AUTH_TYPE": "noop",
        "PYTHONPATH": str(REPO / "src"),
        "NO_COLOR": "1",
        "LOG_EXCLUDE_PATHS": "/ready",  # the readiness polls: no noise in the logs
    }


def _wait_for_instance(instance: Service, port: int, timeout: float) -> None:
    instance.wait_until(lambda: _answers(port), timeout, "answer to GET /ready")


def _answers(port: int) -> bool:
    try:
        return (
            httpx.get(
                f"http://127.0.0.1:{port}/ready", timeout=5, verify=loopback_tls_context()
            ).status_code
            == 200
        )
    except httpx.HTTPError:
        return False


def _migrated(instance: Service) -> bool:
    """Whether the instance's log says its database is at the latest migration."""
    try:
        log = instance.log.read_text(errors="replace")
    except OSError:
        return False
    return any(line in log for line in _MIGRATED_LINES)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
