"""Headless pieces of live reload: a project watcher and the graph import check.

`ProjectWatcher` watches a project's folders (the ``langgraph.json`` folder and its local
dependency folders) with watchfiles, in background threads, and calls back once per
burst of changes to the files a server loads: Python files, ``langgraph.json`` and the
extra files it is given (the ``.env`` file, dependency files). Virtual environments,
caches, version control and editor temp files are ignored. A burst (an editor's
write-then-rename, a ``git checkout``, a formatter run on save) ends after
``debounce_ms`` without a relevant change, and gives one call with every path in it.

`check_graphs` (from `graph_check`) says whether the graphs import, and where not.

Nothing here imports LangGraph or Textual.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import watchfiles

from agent_tui.local.graph_check import (
    GraphCheck,
    GraphProblem,
    check_graphs,
    check_graphs_async,
)

__all__ = [
    "DEFAULT_DEBOUNCE_MS",
    "IGNORED_DIRS",
    "GraphCheck",
    "GraphProblem",
    "ProjectWatcher",
    "check_graphs",
    "check_graphs_async",
    "is_ignored",
]

logger = logging.getLogger(__name__)

DEFAULT_DEBOUNCE_MS = 300
"""Quiet time that ends a burst: longer than an editor's save, short enough to feel live."""

IGNORED_DIRS = frozenset(
    {
        ".venv",
        "venv",
        "__pycache__",
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".langgraph_api",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        ".idea",
    }
)
"""Folders whose contents never reload a server (at any depth below a watched folder)."""

# Vim swap files, backup files ending in "~", Emacs lock (".#x.py") and autosave
# ("#x.py#") files, and vim's write test file "4913".
_EDITOR_TEMP = re.compile(r"(\.sw[a-p]$|~$|^\.#|^#.*#$|^4913$)")

_TICK_MS = 200
"""How often the watch threads come back from watchfiles when nothing happens: the
first time tells that the watches are in place (`ProjectWatcher.wait_ready`)."""


def is_ignored(relative: Path) -> bool:
    """True for a path (relative to a watched folder) under an ignored folder or temp."""
    parts = relative.parts
    if any(part in IGNORED_DIRS or part.endswith(".egg-info") for part in parts):
        return True
    return bool(parts) and bool(_EDITOR_TEMP.search(parts[-1]))


class ProjectWatcher:
    """Calls ``on_change(paths)`` once per burst of changes to a project's code.

    ``folders`` are watched recursively; ``extra_files`` also count when they change
    (inside a folder or not: the folder of an outside file is watched, not its
    subfolders). ``on_change`` runs on the watcher's own thread, one call at a time;
    changes made while it runs make the next call. It gets absolute paths, sorted.
    """

    def __init__(
        self,
        folders: Sequence[Path],
        on_change: Callable[[list[Path]], None],
        *,
        debounce_ms: int = DEFAULT_DEBOUNCE_MS,
        extra_files: Iterable[Path] = (),
    ) -> None:
        self._on_change = on_change
        self._debounce = debounce_ms / 1000
        self._roots = _outermost([folder.expanduser().resolve() for folder in folders])
        # The parent is resolved, not the file: events name a symlinked .env by its link.
        self._extra = {_absolute(path) for path in extra_files}
        outside = {
            path.parent for path in self._extra if not any(_under(path, r) for r in self._roots)
        }
        self._groups: list[tuple[list[Path], bool]] = []
        if self._roots:
            self._groups.append((self._roots, True))
        if outside:
            self._groups.append((sorted(outside), False))
        self._stop = threading.Event()
        self._changed = threading.Condition()
        self._pending: set[Path] = set()
        self._last_change = 0.0
        self._threads: list[threading.Thread] = []
        self._ready: list[threading.Event] = []
        self.error: BaseException | None = None
        """Why watching stopped early (a folder removed, no more inotify watches)."""

    @property
    def folders(self) -> list[Path]:
        """The folders watched recursively (nested ones dropped)."""
        return list(self._roots)

    @property
    def running(self) -> bool:
        return any(thread.is_alive() for thread in self._threads)

    def start(self) -> None:
        """Start watching; returns at once (see `wait_ready`). A watcher runs once."""
        if self._threads:
            return
        for index, (paths, recursive) in enumerate(self._groups):
            existing = [path for path in paths if path.is_dir()]
            if not existing:
                continue
            ready = threading.Event()
            self._ready.append(ready)
            self._threads.append(
                threading.Thread(
                    target=self._watch,
                    args=(existing, recursive, ready),
                    name=f"project-watcher-{index}",
                    daemon=True,
                )
            )
        self._threads.append(
            threading.Thread(target=self._dispatch, name="project-watcher-calls", daemon=True)
        )
        for thread in self._threads:
            thread.start()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until every folder is watched (a large tree takes a moment); True if so."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for ready in self._ready:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not ready.wait(left):
                return False
        return self.error is None

    def stop(self, timeout: float = 5.0) -> None:
        """Stop watching and wait (up to ``timeout`` s) for the threads; safe to repeat.

        Changes not yet reported are dropped. Called from ``on_change`` itself, it does
        not wait for that call to end.
        """
        self._stop.set()
        with self._changed:
            self._changed.notify_all()
        current = threading.current_thread()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            if thread is not current and thread.is_alive():
                thread.join(max(0.0, deadline - time.monotonic()))

    def __enter__(self) -> ProjectWatcher:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- threads -------------------------------------------------------------------------

    def _watch(self, paths: list[Path], recursive: bool, ready: threading.Event) -> None:
        try:
            for changes in watchfiles.watch(
                *paths,
                watch_filter=None,  # filtered here, so quiet ticks still come back
                stop_event=self._stop,
                rust_timeout=_TICK_MS,
                yield_on_timeout=True,
                recursive=recursive,
                raise_interrupt=False,
                ignore_permission_denied=True,
            ):
                ready.set()
                relevant = {
                    Path(name) for change, name in changes if self._relevant(change, Path(name))
                }
                if relevant:
                    with self._changed:
                        self._pending |= relevant
                        self._last_change = time.monotonic()
                        self._changed.notify_all()
        except Exception as exc:
            self.error = exc
            logger.warning("watching %s stopped: %s", ", ".join(map(str, paths)), exc)
        finally:
            ready.set()

    def _dispatch(self) -> None:
        while True:
            with self._changed:
                while not self._stop.is_set():
                    if self._pending:
                        quiet_for = time.monotonic() - self._last_change
                        if quiet_for >= self._debounce:
                            break
                        self._changed.wait(self._debounce - quiet_for)
                    else:
                        self._changed.wait()
                if self._stop.is_set():
                    return
                paths = sorted(self._pending)
                self._pending.clear()
            try:
                self._on_change(paths)
            except Exception:  # a failed reload must not end the watching
                logger.exception("the project change handler failed")

    # -- filtering -----------------------------------------------------------------------

    def _relevant(self, change: watchfiles.Change, path: Path) -> bool:
        if path in self._extra:
            return True
        root = next((root for root in self._roots if _under(path, root)), None)
        if root is None or path == root or is_ignored(path.relative_to(root)):
            return False
        if path.name == "langgraph.json" or path.suffix == ".py":
            return True
        # A folder moved in arrives as one event for the folder, none for its files.
        return change == watchfiles.Change.added and path.is_dir() and _has_python(path)


def _absolute(path: Path) -> Path:
    path = path.expanduser()
    return path.parent.resolve() / path.name


def _under(path: Path, folder: Path) -> bool:
    return path == folder or path.is_relative_to(folder)


def _outermost(folders: list[Path]) -> list[Path]:
    """The folders without those inside another (a dependency ``"."`` or ``"./src"``)."""
    unique = sorted(set(folders), key=lambda folder: len(folder.parts))
    kept: list[Path] = []
    for folder in unique:
        if not any(_under(folder, outer) for outer in kept):
            kept.append(folder)
    return kept


def _has_python(folder: Path) -> bool:
    for _, dirs, files in os.walk(folder):
        dirs[:] = [name for name in dirs if not is_ignored(Path(name))]
        if any(name.endswith(".py") for name in files):
            return True
    return False
