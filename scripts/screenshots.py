"""Regenerate `screenshots/*.svg` (and `.png` when Chromium is installed) from the real app.

Runs the app headless against an embedded agent server with the demo graphs, in a
throwaway AGENT_TUI_HOME, with a little demo data, and saves one picture per screen.

    uv run python scripts/screenshots.py
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "screenshots"
SIZE = (140, 40)

os.environ["AGENT_TUI_HOME"] = tempfile.mkdtemp(prefix="agent-tui-shots-")

from experiment_shots import EXPERIMENT_SHOTS  # noqa: E402
from shot_support import info_screen, stable_ports, to_png, until  # noqa: E402
from textual.pilot import Pilot  # noqa: E402

from agent_tui.client import AgentServerClient  # noqa: E402
from agent_tui.local import DEMO_CONFIG, EmbeddedAgentServer  # noqa: E402
from agent_tui.settings.target import LocalServer, RemoteServer  # noqa: E402
from agent_tui.tui.app import AgentTuiApp  # noqa: E402

Shot = Callable[[Pilot[None]], Awaitable[None]]


async def seed(url: str) -> None:
    """A few threads so the screens have something to show."""
    async with AgentServerClient(url) as client:
        for text in ("hello there", "weather in Paris", "deploy to staging", "please fail"):
            thread = await client.threads.create(metadata={"graph_id": "chat"})
            async with client.runs.stream(
                thread.thread_id,
                "chat",
                input={"messages": [{"role": "user", "content": text}]},
                context={"token_delay_ms": 0},
            ) as run:
                async for _event in run:
                    pass


async def pirate_bot(pilot: Pilot[None]) -> str:
    """A chat assistant with three versions (made once), for the assistants shots."""
    await info_screen(pilot)
    client: AgentServerClient = pilot.app.client  # type: ignore[attr-defined]
    found = await client.assistants.search(graph_id="chat", name="pirate-bot")
    if found:
        return found[0].assistant_id
    bot = await client.assistants.create(
        "chat",
        {"style": "pirate"},
        "pirate-bot",
        {"team": "demo"},
        description="Talks like a pirate.",
    )
    await client.assistants.update(bot.assistant_id, {"style": "pirate", "token_delay_ms": 0})
    await client.assistants.update(bot.assistant_id, {"style": "pirate", "shout": True})
    return bot.assistant_id


async def open_assistants(pilot: Pilot[None], graph: str = "") -> None:
    await pilot.press("colon", *f"assistants {graph}".strip(), "enter")
    await until(pilot, lambda: getattr(pilot.app.screen, "graph_filter", "") == (graph or None))
    await until(pilot, lambda: pilot.app.screen.table.loaded_count > 0)  # type: ignore[attr-defined]


async def assistants_screen(pilot: Pilot[None]) -> None:
    await pirate_bot(pilot)
    await open_assistants(pilot)


async def assistant_detail(pilot: Pilot[None]) -> None:
    """The pirate bot's detail, with the diff of an older version on show."""
    from agent_tui.tui.screens.assistants.detail import AssistantDetailScreen

    bot = await pirate_bot(pilot)
    await open_assistants(pilot, "chat")
    pilot.app.screen.table.move_to(bot)  # type: ignore[attr-defined]
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(pilot.app.screen, AssistantDetailScreen))
    await until(pilot, lambda: pilot.app.screen.active is not None)  # type: ignore[attr-defined]
    await pilot.press("down")


async def graph_view(pilot: Pilot[None]) -> None:
    """`v` on the chat graph's default assistant: the graph drawn as boxes and arrows."""
    from agent_tui.tui.screens.assistants.graph import AssistantGraphScreen

    await info_screen(pilot)  # home first: a key pressed on the start-up screen is lost
    await open_assistants(pilot, "chat")
    await pilot.press("v")
    await until(pilot, lambda: isinstance(pilot.app.screen, AssistantGraphScreen))
    await until(pilot, lambda: "agent" in pilot.app.export_screenshot())


async def threads_screen(pilot: Pilot[None]) -> None:
    await info_screen(pilot)
    await pilot.press("colon", *"threads", "enter")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "ThreadsScreen")
    await until(pilot, lambda: pilot.app.screen.table.loaded_count > 0)  # type: ignore[attr-defined]


async def thread_view(pilot: Pilot[None]) -> None:
    """The thread view of the thread waiting for approval: history, state, the interrupt."""
    await threads_screen(pilot)
    table = pilot.app.screen.table  # type: ignore[attr-defined]
    waiting = next(t for t in table.items if t.status == "interrupted")
    await pilot.app.run_command(f"thread {waiting.thread_id}")  # type: ignore[attr-defined]
    await until(
        pilot,
        lambda: (
            type(pilot.app.screen).__name__ == "ThreadViewScreen"
            and pilot.app.screen.checkpoint_view.state is not None
        ),  # type: ignore[attr-defined]
    )
    pilot.app.screen.action_state()  # type: ignore[attr-defined]  # `:thread` opens on Chat
    await pilot.pause(0.6)  # the tab underline slides over


async def chat(pilot: Pilot[None]) -> None:
    """The Chat tab of the weather thread, after a second question streamed in."""
    await threads_screen(pilot)
    client = pilot.app.client  # type: ignore[attr-defined]
    threads = [await client.threads.get(t.thread_id) for t in pilot.app.screen.table.items]  # type: ignore[attr-defined]
    weather = next(t for t in threads if "Paris" in str(t.values))
    await pilot.app.run_command(f"thread {weather.thread_id}")  # type: ignore[attr-defined]
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "ThreadViewScreen")
    pane = pilot.app.screen.chat  # type: ignore[attr-defined]
    await until(pilot, lambda: bool(pane.model.items) and pane.assistant is not None)
    pane.prompt.insert("calc 6*7")
    await pilot.press("enter")
    await until(pilot, lambda: not pane.running and pane.run_state == "done")
    await pilot.press("ctrl+b")  # the history pane hidden: the chat has the width


async def open_weather_chat(pilot: Pilot[None]) -> Any:
    await threads_screen(pilot)
    client = pilot.app.client  # type: ignore[attr-defined]
    threads = [await client.threads.get(t.thread_id) for t in pilot.app.screen.table.items]  # type: ignore[attr-defined]
    weather = next(t for t in threads if "Paris" in str(t.values))
    await pilot.app.run_command(f"thread {weather.thread_id}")  # type: ignore[attr-defined]
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "ThreadViewScreen")
    pane = pilot.app.screen.chat  # type: ignore[attr-defined]
    await until(pilot, lambda: bool(pane.model.items) and pane.assistant is not None)
    return pane


async def paused(pilot: Pilot[None]) -> None:
    """The chat paused before the `tools` node (a breakpoint set with `b`)."""
    pane = await open_weather_chat(pilot)
    pane.breakpoints.before.append("tools")
    pane.show_state()
    pane.prompt.insert("weather in Oslo")
    await pilot.press("enter")
    await until(
        pilot, lambda: not pane.running and "paused before" in str(pane.paused_bar.render())
    )
    await pilot.press("ctrl+b")


async def graph_pane(pilot: Pilot[None]) -> None:
    """`v` in the thread view: the weather chat's graph beside the chat, paused before
    `tools` (its breakpoint), the nodes that ran numbered."""
    pane = await open_weather_chat(pilot)
    pane.breakpoints.before.append("tools")
    pane.show_state()
    pane.prompt.insert("weather in Oslo")
    await pilot.press("enter")
    await until(
        pilot, lambda: not pane.running and "paused before" in str(pane.paused_bar.render())
    )
    screen = pilot.app.screen
    pane.transcript.focus()
    await pilot.press("v")
    view = screen.live_graph.pane.view  # type: ignore[attr-defined]
    await until(pilot, lambda: "┌●‖" in view.plain and "✓1" in view.plain)
    await until(pilot, lambda: view.selected == "agent")  # the cursor on the first box


async def timeline(pilot: Pilot[None]) -> None:
    """The Timeline tab of the weather thread: its supersteps as a waterfall."""
    await open_weather_chat(pilot)
    screen = pilot.app.screen
    # The prompt has the focus, and a focused widget brings its tab back: focus the
    # history first, as `tab` would.
    screen.query_one("#history").focus()
    await pilot.pause()
    screen.tabs.active = "tab-timeline"  # type: ignore[attr-defined]
    await until(pilot, lambda: bool(screen.query_one("#timeline").steps))
    await pilot.pause(0.6)  # the tab underline slides over


async def deploy_progress(pilot: Pilot[None]) -> None:
    """A deployment of the demo graphs on the local control plane, followed to DEPLOYED."""
    from agent_tui.tui.screens.deployments.revision_progress import RevisionProgressScreen

    app = pilot.app
    await until(pilot, lambda: type(app.screen).__name__ == "ServerInfoScreen")
    control_plane = await app.get_control_plane()  # type: ignore[attr-defined]
    deployment = await control_plane.deployments.create(
        "demo",
        source="internal_source",
        source_revision_config={"langgraph_config_path": str(DEMO_CONFIG)},
        secrets=[{"name": "OPENAI_API_KEY", "value": "sk-not-a-real-key"}],
    )
    screen = RevisionProgressScreen(
        control_plane, deployment.id, deployment.latest_revision_id or ""
    )
    await app.push_screen(screen)
    await until(pilot, lambda: screen.status == "DEPLOYED", timeout=120)


async def deployments(pilot: Pilot[None]) -> None:
    """The deployments table (the demo deployment, back up after the app restarted)."""
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "ServerInfoScreen")
    await pilot.press("d")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "DeploymentsScreen")
    table = pilot.app.screen.table  # type: ignore[attr-defined]
    await until(pilot, lambda: table.row_count > 0, timeout=120)


async def deployment_logs(pilot: Pilot[None]) -> None:
    """The demo deployment's log: the agent server's lines (t), followed (f)."""
    app = pilot.app
    await until(pilot, lambda: type(app.screen).__name__ == "ServerInfoScreen")
    control_plane = await app.get_control_plane()  # type: ignore[attr-defined]
    deadline = time.monotonic() + 120
    while True:  # back up after the app restarted: its server serves again
        page = await control_plane.deployments.list(name_contains="demo")
        if page.resources and page.resources[0].status == "READY":
            break
        if time.monotonic() > deadline:
            raise TimeoutError("the demo deployment did not come back up")
        await pilot.pause(0.5)
    await deployments(pilot)
    await pilot.press("enter")
    await until(pilot, lambda: type(app.screen).__name__ == "DeploymentDetailScreen")
    await until(pilot, lambda: app.screen.table.row_count > 0)  # type: ignore[attr-defined]
    await pilot.press("l")
    await until(pilot, lambda: type(app.screen).__name__ == "RevisionLogsScreen")
    await until(pilot, lambda: "agent server ready" in app.screen.text)  # type: ignore[attr-defined]
    await pilot.press("t")
    await until(pilot, lambda: "Uvicorn running" in app.screen.text)  # type: ignore[attr-defined]
    await pilot.press("f")  # following: its worker goes on, so no `until` from here
    deadline = time.monotonic() + 30
    while "● following" not in app.screen.text:  # type: ignore[attr-defined]
        if time.monotonic() > deadline:
            raise TimeoutError("the log did not follow")
        await pilot.pause(0.1)
    await pilot.pause(1.0)


async def crons(pilot: Pilot[None]) -> None:
    """Two cron jobs of the demo chat graph: a weekday briefing on one thread (in Paris
    time) and a stateless weekly summary."""
    from agent_tui.crons.draft import message_input

    await until(pilot, lambda: type(pilot.app.screen).__name__ == "ServerInfoScreen")
    client: AgentServerClient = pilot.app.client  # type: ignore[attr-defined]
    if not await client.crons.search(limit=1):
        [chat] = await client.assistants.search(graph_id="chat", name="chat")
        [thread] = await client.threads.search(limit=1)
        await client.crons.create_for_thread(
            thread.thread_id,
            chat.assistant_id,
            "0 9 * * 1-5",
            input=message_input("What is on today?"),
            timezone="Europe/Paris",
        )
        await client.crons.create(
            chat.assistant_id, "0 18 * * 5", input=message_input("Summarise the week")
        )
    await pilot.press("colon", *"crons", "enter")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "CronsScreen")
    table = pilot.app.screen.table  # type: ignore[attr-defined]
    await until(pilot, lambda: table.row_count == 2)


async def cron_form(pilot: Pilot[None]) -> None:
    """The new-cron form, a schedule typed: its next three runs in UTC (Paris time)."""
    from textual.widgets import Input, Select, TextArea

    await crons(pilot)
    await pilot.press("n")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "CronFormScreen")
    form = pilot.app.screen
    await pilot.app.workers.wait_for_complete()
    select = form.query_one("#assistant", Select)
    select.value = next(value for label, value in select._options if "graph chat" in str(label))
    form.query_one("#input", TextArea).text = "Any news on the Paris deploy?"
    form.query_one("#schedule", Input).value = "30 8 * * 1-5"
    form.query_one("#timezone", Input).value = "Europe/Paris"


async def store_screen(pilot: Pilot[None]) -> None:
    """The Store: a few memories by user and by assistant, as the tree and the items."""
    await info_screen(pilot)
    client: AgentServerClient = pilot.app.client  # type: ignore[attr-defined]
    memories = [
        (("users", "ann", "memories"), "paris", {"city": "Paris", "asked": 3}),
        (("users", "ann", "memories"), "rome", {"city": "Rome", "asked": 1}),
        (("users", "ann", "profile"), "name", {"first": "Ann", "language": "en"}),
        (("users", "bob", "memories"), "oslo", {"city": "Oslo", "asked": 2}),
        (("assistants", "chat", "style"), "tone", {"tone": "brief", "emoji": False}),
    ]
    for namespace, key, value in memories:
        await client.store.put_item(namespace, key, value)
    await pilot.press("colon", *"store", "enter")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "StoreScreen")
    await until(
        pilot,
        lambda: (
            pilot.app.screen.namespaces_loaded  # type: ignore[attr-defined]
            and pilot.app.screen.table.loaded_count > 0
        ),  # type: ignore[attr-defined]
    )


SHOTS: dict[str, Shot] = {
    "server-info": info_screen,
    "assistants": assistants_screen,
    "assistant-detail": assistant_detail,
    "graph-view": graph_view,
    "threads": threads_screen,
    "thread-view": thread_view,
    "chat": chat,
    "paused": paused,
    "graph-pane": graph_pane,
    "timeline": timeline,
    "deploy-progress": deploy_progress,
    "deployments": deployments,
    "deployment-logs": deployment_logs,
    "store": store_screen,
    "crons": crons,
    "cron-form": cron_form,
    **EXPERIMENT_SHOTS,
}


async def project_reload(folder: Path) -> str:
    """The app on a project of its own (tests/projects/weather, copied to `folder`), after
    an edit that broke an import: the reload failure with its file and line on top of the
    home screen of the server still running the code it had."""
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(ROOT / "tests" / "projects" / "weather", folder)
    config = folder / "langgraph.json"
    app = AgentTuiApp(LocalServer(config_path=config), reload=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await until(pilot, lambda: type(app.screen).__name__ == "ServerInfoScreen", timeout=120)
        agent = folder / "agent.py"
        agent.write_text(agent.read_text().replace("import forecast", "import forcast"))

        def failed() -> bool:
            return any("Reload failed" in str(n.title) for n in app._notifications)

        await until(pilot, failed, timeout=90)
        await pilot.pause(0.5)
        text = app.export_screenshot(title="agent-tui — project-reload")
    server = app.local_server
    return stable_ports(text, server.url) if server and server.port else text


PROJECT_SHOTS = {"project-reload": project_reload}


async def main(names: list[str]) -> None:
    OUT.mkdir(exist_ok=True)
    for name, project_shot in PROJECT_SHOTS.items():
        if names and name not in names:
            continue
        svg = OUT / f"{name}.svg"
        # Short, fixed folders: the paths on the screen are real and the same every run.
        home, os.environ["AGENT_TUI_HOME"] = os.environ["AGENT_TUI_HOME"], "/tmp/agent-tui"
        shutil.rmtree("/tmp/agent-tui", ignore_errors=True)
        try:
            svg.write_text(await project_shot(Path("/tmp/my-agent")))
        finally:
            os.environ["AGENT_TUI_HOME"] = home
        to_png(svg, SIZE)
        print(f"wrote {svg.relative_to(ROOT)}")
    if names and not set(names) & set(SHOTS):
        return
    data = Path(os.environ["AGENT_TUI_HOME"]) / "server"
    async with EmbeddedAgentServer(DEMO_CONFIG, data_dir=data) as server:
        await seed(server.url)
        for name, shot in SHOTS.items():
            if names and name not in names:
                continue
            app = AgentTuiApp(RemoteServer(server.url))
            async with app.run_test(size=SIZE) as pilot:
                await shot(pilot)
                await pilot.pause()
                svg = OUT / f"{name}.svg"
                # The port changes run to run; the picture should not.
                text = app.export_screenshot(title=f"agent-tui — {name}")
                svg.write_text(stable_ports(text, server.url))
            to_png(svg, SIZE)
            print(f"wrote {svg.relative_to(ROOT)}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
