"""How the deployments screens look, over a real local control plane, stable run to run.

The module deploys once, for real: `demo` (the bundled demo graphs, deployed, then patched with one more secret,
so it has an active and a replaced revision) and `broken` (a JavaScript graph: it ends
in BUILD_FAILED without a traceback, whose lines would differ between Pythons). The
screens then read that control plane through `StableView`, an httpx transport that
hands every request to the real server and, in its answers, swaps what changes from run
to run (ids, timestamps, ports, folders) for fixed stand-ins. No deploy per snapshot.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input

import agent_tui.local
from agent_tui.client import ControlPlaneClient, RetryPolicy
from agent_tui.client.tls import loopback_tls_context
from agent_tui.deployments.spec import FIELD_CONFIG_PATH, FIELD_NAME
from agent_tui.local.control_plane import LocalControlPlane
from agent_tui.tui.screens.deployments.detail import DeploymentDetailScreen
from agent_tui.tui.screens.deployments.form import DeploymentFormScreen
from agent_tui.tui.screens.deployments.list import DeploymentsScreen
from agent_tui.tui.screens.deployments.revision_diff import RevisionDiffScreen
from agent_tui.tui.screens.deployments.revision_progress import RevisionProgressScreen
from tests.support.deployment_forms import POLL, FormsApp
from tests.support.deployments import create_deployment, wait_terminal
from tests.support.snapshots import showing, shown, steady_cursors
from tests.support.waiting import WaitFor

pytestmark = pytest.mark.timeout(120)

# The bundled demo graphs: two, so the whole build log fits in the progress view's box.
DEMO_CONFIG = Path(agent_tui.local.__file__).parent / "demo" / "langgraph.json"
FIXED_BASE = "http://control-plane.test"
FIXED_SERVER = "http://127.0.0.1:2024"
FIXED_GRAPHS = "/srv/agents"
FIXED_BROKEN = "/srv/broken"
FIRST_TIME = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)
LOCAL_URL = re.compile(r"http://127\.0\.0\.1:\d+")
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:\d\d|Z)")
MILLIS = re.compile(r'"timestamp":\s*(\d+)')
SECRET_VALUES = ("demo-secret-value-3b9e", "extra-secret-value-c41d")  # never on screen


def _millis(iso: str) -> int:
    return int(datetime.fromisoformat(iso).timestamp() * 1000)


def fixed_deployment_id(n: int) -> str:
    return f"de{n:06x}-0000-4000-8000-{n:012x}"


def fixed_revision_id(n: int) -> str:
    return f"7e{n:06x}-0000-4000-8000-{n:012x}"


class StableView(httpx.AsyncBaseTransport):
    """The real control plane, with its volatile values replaced by fixed ones."""

    def __init__(self, real_url: str, swaps: dict[str, str], times: dict[str, str]) -> None:
        self.real = httpx.URL(real_url)
        self.swaps = dict(sorted(swaps.items(), key=lambda kv: -len(kv[0])))  # longest first
        self.back = {fixed: real for real, fixed in swaps.items() if fixed != real}
        self.times = times
        self.inner = httpx.AsyncHTTPTransport(verify=loopback_tls_context())

    def fixed(self, text: str) -> str:
        for real, fixed in self.swaps.items():
            text = text.replace(real, fixed)
        last = FIRST_TIME + timedelta(hours=3)  # a time the module did not see (none should)
        text = TIMESTAMP.sub(lambda m: self.times.get(m.group(0), last.isoformat()), text)
        # The `/v1` log entries carry their time in epoch milliseconds.
        millis = {_millis(real): _millis(fixed) for real, fixed in self.times.items()}
        return MILLIS.sub(
            lambda m: f'"timestamp": {millis.get(int(m.group(1)), _millis(last.isoformat()))}',
            text,
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        for fixed, real in self.back.items():
            path = path.replace(fixed, real)
        url = request.url.copy_with(
            scheme=self.real.scheme, host=self.real.host, port=self.real.port, path=path
        )
        headers = [(k, v) for k, v in request.headers.items() if k.lower() != "host"]
        answer = await self.inner.handle_async_request(
            httpx.Request(request.method, url, headers=headers, content=request.content)
        )
        body = self.fixed((await answer.aread()).decode())
        await answer.aclose()
        kept = [
            (k, v)
            for k, v in answer.headers.items()
            if k.lower() not in {"content-length", "content-encoding", "transfer-encoding"}
        ]
        return httpx.Response(answer.status_code, headers=kept, content=body.encode())

    async def aclose(self) -> None:
        await self.inner.aclose()


class Deployed:
    """What the module deployed, and how to show it stably."""

    def __init__(self, plane: LocalControlPlane, swaps: dict[str, str], times: dict[str, str]):
        self.plane = plane
        self.swaps = swaps
        self.times = times

    def fixed_id(self, real: str) -> str:
        return self.swaps[real]

    def client(self) -> ControlPlaneClient:
        view = StableView(self.plane.url, self.swaps, self.times)
        return ControlPlaneClient(
            FIXED_BASE,
            api_key=self.plane.api_key,
            retry=RetryPolicy(attempts=1),
            http_transport=view,
        )


@pytest.fixture(scope="module")
def deployed() -> Iterator[Deployed]:
    data_dir = Path(tempfile.mkdtemp(prefix="agent-tui-cp-snap-"))
    broken_dir = data_dir / "broken"
    broken_dir.mkdir()
    (broken_dir / "langgraph.json").write_text(
        json.dumps({"graphs": {"agent": "./agent.ts:graph"}})
    )
    plane = LocalControlPlane(data_dir / "plane")
    plane.start()
    try:
        yield _deploy(plane, broken_dir)
    finally:
        plane.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


def _deploy(plane: LocalControlPlane, broken_dir: Path) -> Deployed:
    headers = {"X-Api-Key": plane.api_key}
    with httpx.Client(base_url=plane.url, headers=headers, trust_env=False, timeout=30) as http:
        demo_token = {"name": "DEMO_TOKEN", "value": SECRET_VALUES[0]}
        demo = create_deployment(http, "demo", str(DEMO_CONFIG), [demo_token])
        broken = create_deployment(http, "broken", str(broken_dir / "langgraph.json"))
        assert wait_terminal(http, broken["id"], broken["latest_revision_id"]) == "BUILD_FAILED"
        assert wait_terminal(http, demo["id"], demo["latest_revision_id"]) == "DEPLOYED"
        extra = {"name": "EXTRA_TOKEN", "value": SECRET_VALUES[1]}
        patched = http.patch(f"/v2/deployments/{demo['id']}", json={"secrets": [demo_token, extra]})
        assert patched.status_code == 200, patched.text
        newest = patched.json()["latest_revision_id"]
        assert wait_terminal(http, demo["id"], newest) == "DEPLOYED"
        return _stable_names(http, plane, broken_dir)


def _stable_names(http: httpx.Client, plane: LocalControlPlane, broken_dir: Path) -> Deployed:
    """Fixed stand-ins for everything that differs between runs, in a fixed order."""
    swaps = {
        str(broken_dir): FIXED_BROKEN,
        str(DEMO_CONFIG.parent): FIXED_GRAPHS,
        plane.url.rstrip("/"): FIXED_BASE,
    }
    times: dict[str, str] = {}

    def stamp(*values: str) -> None:
        # In the order the module made them, per deployment: the same on every run
        # (the two deployments' real times may interleave differently).
        for value in values:
            fixed = (FIRST_TIME + timedelta(minutes=len(times))).isoformat()
            times.setdefault(value, fixed)

    deployments = sorted(http.get("/v2/deployments").json()["resources"], key=lambda d: d["name"])
    revision_number = 0
    for number, deployment in enumerate(deployments, start=1):
        swaps[deployment["id"]] = fixed_deployment_id(number)
        url = deployment["source_config"].get("custom_url")
        if url:
            swaps[url.rstrip("/")] = FIXED_SERVER
        stamp(deployment["created_at"])
        path = f"/v2/deployments/{deployment['id']}"
        revisions = http.get(f"{path}/revisions").json()["resources"]
        for revision in reversed(revisions):  # oldest first
            revision_number += 1
            swaps[revision["id"]] = fixed_revision_id(revision_number)
            logs = http.get(f"{path}/revisions/{revision['id']}/logs").text
            # A redeploy keeps the port when it can; a log may name an older one.
            swaps.update((url, FIXED_SERVER) for url in LOCAL_URL.findall(logs))
            stamp(revision["created_at"], *TIMESTAMP.findall(logs), revision["updated_at"])
        stamp(deployment["updated_at"])
    return Deployed(plane, swaps, times)


class SnapshotApp(FormsApp):
    """The shell on context `local`, with one screen over the home screen's place."""

    TITLE = "agent-tui"

    def __init__(self, client: ControlPlaneClient, first: Callable[[Any], Screen[Any]]):
        super().__init__(client)
        self._startup_theme = "textual-dark"  # not whatever another test saved
        self.first = first

    def on_mount(self) -> None:
        super().on_mount()
        self.selection.update(context="local")
        self.push_screen(Screen())
        self.push_screen(self.first(self))

    async def on_unmount(self) -> None:
        await self.control_plane.aclose()


def deployments_app(deployed: Deployed) -> SnapshotApp:
    return SnapshotApp(deployed.client(), lambda app: DeploymentsScreen(app.control_plane))


async def settle(pilot: Pilot[None], wait_for: WaitFor, shown: Callable[[], bool]) -> None:
    """Until the screen shows what `shown` checks, then the last paint."""
    await wait_for(pilot, shown, what="the screen's content")
    # The footer recomposes once more after focus settles (same text, but its cells
    # split differently in the SVG): let it finish before the picture.
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def listing_loaded(pilot: Pilot[None]) -> bool:
    screen = pilot.app.screen
    return (
        isinstance(screen, DeploymentsScreen)
        and screen.table.row_count == 2
        and not screen.table.loading
    )


async def open_demo(pilot: Pilot[None], wait_for: WaitFor) -> DeploymentDetailScreen:
    await settle(pilot, wait_for, lambda: listing_loaded(pilot))
    listing = pilot.app.screen
    assert isinstance(listing, DeploymentsScreen)
    listing.table.move_to(fixed_deployment_id(2))  # demo (broken is the first by name)
    await pilot.press("enter")
    revisions = [fixed_revision_id(3), fixed_revision_id(2)]

    def revisions_shown() -> bool:
        screen = pilot.app.screen
        return (
            isinstance(screen, DeploymentDetailScreen)
            and [r.id for r in screen.table.items] == revisions
        )

    await settle(pilot, wait_for, revisions_shown)
    detail = pilot.app.screen
    assert isinstance(detail, DeploymentDetailScreen)
    return detail


def no_secret_value(app: Any) -> None:
    shown = app.export_screenshot()
    assert not any(value in shown for value in SECRET_VALUES)


def test_deployments_table_snapshot(
    deployed: Deployed, snap_compare: Any, wait_for: WaitFor
) -> None:
    async def loaded(pilot: Pilot[None]) -> None:
        await settle(pilot, wait_for, lambda: listing_loaded(pilot))
        # The table has the focus once loaded, so its keys (not the screen's) are the footer's.
        assert isinstance(pilot.app.screen, DeploymentsScreen)
        assert pilot.app.focused is pilot.app.screen.table

    assert snap_compare(deployments_app(deployed), terminal_size=(120, 10), run_before=loaded)


def test_deployment_detail_snapshot(
    deployed: Deployed, snap_compare: Any, wait_for: WaitFor
) -> None:
    async def detail(pilot: Pilot[None]) -> None:
        await open_demo(pilot, wait_for)
        no_secret_value(pilot.app)

    assert snap_compare(deployments_app(deployed), terminal_size=(120, 10), run_before=detail)


def test_revision_diff_snapshot(deployed: Deployed, snap_compare: Any, wait_for: WaitFor) -> None:
    async def diff(pilot: Pilot[None]) -> None:
        await open_demo(pilot, wait_for)
        await pilot.press("d")  # the newest against the one before it

        def diff_shown() -> bool:
            screen = pilot.app.screen
            return isinstance(screen, RevisionDiffScreen) and "EXTRA_TOKEN" in screen.text

        await settle(pilot, wait_for, diff_shown)
        no_secret_value(pilot.app)

    assert snap_compare(deployments_app(deployed), terminal_size=(100, 26), run_before=diff)


def test_new_deployment_form_snapshot(
    deployed: Deployed, snap_compare: Any, wait_for: WaitFor
) -> None:
    def form(app: Any) -> Screen[Any]:
        return DeploymentFormScreen(app.control_plane, cwd=Path("/nonexistent"))

    async def with_a_problem(pilot: Pilot[None]) -> None:
        await settle(pilot, wait_for, lambda: isinstance(pilot.app.screen, DeploymentFormScreen))
        screen = pilot.app.screen
        assert isinstance(screen, DeploymentFormScreen)
        screen.query_one(f"#{FIELD_NAME}", Input).value = "my-agent"
        path = screen.query_one(f"#{FIELD_CONFIG_PATH}", Input)
        path.value = "agent/langgraph.json"  # no such file under /nonexistent
        await pilot.press("ctrl+n")
        await pilot.press(*"OPENAI_API_KEY", "tab", *"sk-typed-value")
        await pilot.press("ctrl+s")
        await settle(pilot, wait_for, lambda: screen.error is not None)
        assert screen.error is not None and "Nothing was sent" in screen.error
        steady_cursors(pilot.app)
        await pilot.pause()
        assert "sk-typed-value" not in pilot.app.export_screenshot()

    app = SnapshotApp(deployed.client(), form)
    assert snap_compare(app, terminal_size=(100, 54), run_before=with_a_problem)


@pytest.mark.parametrize(
    ("deployment", "revision", "outcome"),
    [(2, 3, "DEPLOYED"), (1, 1, "BUILD_FAILED")],
    ids=["deployed", "build_failed"],
)
def test_revision_progress_snapshot(
    deployed: Deployed,
    snap_compare: Any,
    wait_for: WaitFor,
    deployment: int,
    revision: int,
    outcome: str,
) -> None:
    def progress(app: Any) -> Screen[Any]:
        return RevisionProgressScreen(
            app.control_plane,
            fixed_deployment_id(deployment),
            fixed_revision_id(revision),
            interval=POLL,
        )

    async def finished(pilot: Pilot[None]) -> None:
        def outcome_shown() -> bool:
            # The outcome, and the log's last read after it (with the failure's reason).
            screen = pilot.app.screen
            return (
                isinstance(screen, RevisionProgressScreen)
                and screen.status == outcome
                and not any(
                    w.node is screen and w.group == "revision-logs" and w.is_running
                    for w in screen.workers
                )
            )

        await settle(pilot, wait_for, outcome_shown)

    app = SnapshotApp(deployed.client(), progress)
    assert snap_compare(app, terminal_size=(100, 28), run_before=finished)


def test_revision_logs_snapshot(
    deployed: Deployed,
    snap_compare: Callable[..., bool],
    wait_for: WaitFor,
) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await open_demo(pilot, wait_for)
        await pilot.press("l")  # the log of the revision under the cursor (the newest)

        def logged() -> bool:
            logs: Any = pilot.app.screen
            return showing(pilot, "RevisionLogsScreen") and "status " in logs.text

        await shown(pilot, wait_for, logged, "the log")

    app = deployments_app(deployed)
    assert snap_compare(app, terminal_size=(120, 30), run_before=run_before)
