"""What the app shows of its local server's life, whichever screen is open:

- live reloads (`local.live_reload`), of the server the app started or of the one it is
  attached to (its owner, a second agent-tui or `agent-tui serve`, records them:
  `local.reload_record`): the header says ``reloading`` or ``reload failed (file:line)``
  until the next reload works, a notification says what happened, and the home screen
  loads the graphs again after a reload;
- after a failed start, what the project watch (`local.broken_start`) finds: on the
  start-up screen, the line under the failure says the project is watched and what a
  save did, and a save that fixes it starts the server again (``retry``);
- the server's data that cannot be saved (a full disk: its writes are refused with 507),
  in the header and a notification, until it is saved again;
- where the server comes from, as the home screen lists it (`server_about`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from textual.notifications import Notification, Notify

from agent_tui.settings.target import LocalServer
from agent_tui.text.sanitize import clean_text

if TYPE_CHECKING:
    from agent_tui.local.live_reload.broken_start import FixEvent
    from agent_tui.local.live_reload.reloader import ReloadEvent
    from agent_tui.local.session import LocalSession
    from agent_tui.settings.contexts import Context
    from agent_tui.tui.screens.startup import StartupScreen
    from agent_tui.tui.shell import ShellApp


def server_about(context: Context, session: LocalSession, url: str) -> list[tuple[str, str]]:
    """What the info screen says about where the server comes from."""
    rows = [("Context", context.name)]
    if isinstance(context.target, LocalServer):
        return [*rows, *session.about(url)]
    rows += [("Server", f"{url}  (remote)"), ("API key", context.key_source)]
    if context.workspace_id:
        rows.append(("Workspace", f"{context.workspace_id}  (X-Tenant-Id)"))
    if context.header_sources:
        rows.append(("Headers", ", ".join(context.header_sources)))
    return rows


def show_disk_problem(app: ShellApp, problem: str | None, session: LocalSession) -> None:
    """The app's local server cannot save its data (``problem``: the server's words,
    `local.disk_problem.disk_news`), or can again (None)."""
    server = session.server
    url = server.url if server is not None and server.port is not None else ""
    app.connection_status = connected_status(session, url)
    if problem is not None:
        app.notify(clean_text(problem), severity="error", timeout=30, markup=False)
    else:
        app.notify("The local server saves its data again.", timeout=8)


def connected_status(session: LocalSession, url: str) -> str:
    """The header once connected to ``url``: a save problem of the app's local server
    (told while it started, too) stays there until it is saved again."""
    if session.disk_problem:
        return f"⚠ {session.disk_problem}"
    return f"connected · {url}" if url else "connected"


# The toast of each app's latest failed reload: the next reload that works removes it.
_failure_toasts: WeakKeyDictionary[ShellApp, Notification] = WeakKeyDictionary()


def show_reload(app: ShellApp, event: ReloadEvent, url: str, *, owner: str = "") -> None:
    """A live reload of the local server at ``url``, as it happens; ``owner`` names the
    process that reloads it when it is not this app's own server."""
    from agent_tui.tui.screens.server_info import ServerInfoScreen

    title = f"Live reload{f' ({owner})' if owner else ''}"
    if event.kind == "reloading":
        app.connection_status = f"reloading · {url}"
        app.notify(clean_text(event.message), title=title, timeout=4, markup=False)
        return
    if event.kind == "reloaded":
        app.connection_status = f"connected · {url}"
        failure = _failure_toasts.pop(app, None)
        if failure is not None and not failure.has_expired:
            # Its words are wrong now, and it would cover the screen (the chat's input)
            # for long. Textual removes no single toast publicly: the ones shown go.
            app.clear_notifications()
        app.notify(
            clean_text(f"{event.message}; graphs refreshed"), title=title, timeout=4, markup=False
        )
        for screen in app.screen_stack:
            if isinstance(screen, ServerInfoScreen):
                screen.load()
        app.graphs_changed.publish(None)
        return
    problems = [str(problem) for problem in event.problems] or [event.message]
    details = event.details[-5:] if not event.problems else []
    first = event.problems[0] if event.problems else None
    where = f"{first.file.name}:{first.line}" if first and first.file and first.line else ""
    # Stays in the header, on every screen, until a reload works again.
    app.connection_status = f"reload failed{f' ({where})' if where else ''} · {url}"
    failure = Notification(
        clean_text("\n".join([*problems[:5], *details])),
        title="Reload failed: the server keeps running the previous code"
        + (f" ({owner})" if owner else ""),
        severity="error",
        timeout=30,
        markup=False,
    )
    _failure_toasts[app] = failure
    app.post_message(Notify(failure))  # as `App.notify` does, keeping the toast to remove


def watching_line(project: Path, *, graphs: bool) -> str:
    """Under a failed start: what the project watch will do."""
    what = "a save that fixes the graphs" if graphs else "a save"
    return f"Watching {project}: {what} starts the server again"


def show_fix(
    startup: StartupScreen, event: FixEvent, log_file: Path | None, retry: Callable[[], object]
) -> None:
    """What a save did to a project whose server did not start; ``retry`` starts it."""
    if not startup.failed:
        return  # a new attempt is under way already (`r`)
    if event.kind == "checking":
        startup.show_watch(event.message)
    elif event.kind == "broken":
        startup.still_broken(event.problems or [event.message], log_file)
        names = ", ".join(str(path) for path in event.files[:3]) or "the project"
        startup.show_watch(f"Still broken after {names} changed; watching for the next save")
    else:
        startup.show_watch(event.message)
        retry()
