"""Saving the event inspector's events as JSON Lines (`ctrl+s` while it shows): the pane
asks where (`ask_where`), then saves in a worker of its own (`save_events`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from agent_tui.text.time_text import now_utc, utc_file_stamp
from agent_tui.tui.chat.thread_inputs import PathScreen

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel

    from agent_tui.tui.chat.event_inspector import EventInspector


class ExportHost(Protocol):
    """What saving needs of the chat pane (`ChatPane`), so that it does not import it."""

    @property
    def inspector(self) -> EventInspector: ...

    def screen_report(self, error: BaseException, doing: str) -> None: ...
    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...


def ask_where(app: App[object], thread_id: str, save: Callable[[str], object]) -> None:
    """Ask for the file (a new one in the data folder by default), then `save` to it."""
    from agent_tui.settings import paths

    stamp = utc_file_stamp(now_utc())
    default = paths.data_dir() / "events" / f"thread-{thread_id[:8]}-{stamp}.jsonl"

    def chosen(path: str | None) -> None:
        if path:
            save(path)

    app.push_screen(
        PathScreen(
            str(default),
            title="Save the raw events as JSON Lines",
            hint="enter writes the file · esc cancels",
        ),
        chosen,
    )


async def save_events(pane: ExportHost, path: str) -> None:
    """Write the inspector's events to `path` and say how many (or why not)."""
    dropped = pane.inspector.dropped
    try:
        target, count = await asyncio.to_thread(_save, pane.inspector, path)
    except OSError as error:
        pane.screen_report(error, f"save the events to {path}")
        return
    text = f"{count} events saved to {target}"
    if dropped:
        text += f" (the {dropped:,} before them were no longer kept)"
    pane.notify(text, title="Events saved", markup=False)


def _save(inspector: EventInspector, path: str) -> tuple[Path, int]:
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    return target, inspector.save(target)
