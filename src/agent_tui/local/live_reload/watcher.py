"""Live reload's eyes: a watcher that calls back once per burst of changes to a project.

`ProjectWatcher` watches a project's folders (the ``langgraph.json`` folder and its local
dependency folders) with watchfiles, in background threads, and calls back once per
burst of changes to the files a server loads: Python files, ``langgraph.json`` and the
extra files it is given (the ``.env`` file, dependency files). Virtual environments,
caches, version control and editor temp files are ignored; those right in a watched
folder are not even watched, so a big ``.venv`` costs no OS file watches. A burst (an
editor's write-then-rename, a ``git checkout``, a formatter run on save) ends after
``debounce_ms`` without a relevant change, and gives one call with every path in it.

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

__all__ = ["DEFAULT_DEBOUNCE_MS", "IGNORED_DIRS", "ProjectWatcher", "is_ignored"]

logger = logging.getLogger(__name__)

DEFAULT_DEBOUNCE_MS = 150
"""Quiet time that ends a burst, after watchfiles' own 50 ms: longer than an editor's save
(a write then a rename, microseconds apart) or a ``git checkout``'s stream of writes,
short enough to feel live (`langgraph dev`'s reloader waits only watchfiles' 50 ms)."""

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

    Everything below ``folders`` counts but the ignored folders. Each folder is watched
    on its own, and each of its subfolders but the ignored ones with all it holds, so a
    big ``.venv`` or ``node_modules`` there costs no inotify watches (it would cost
    thousands); a subfolder created or moved in later is added. ``extra_files`` also
    count when they change (inside a folder or not: the folder of an outside file is
    watched, not its subfolders). ``on_change`` runs on the watcher's own thread, one
    call at a time; changes made while it runs make the next call. It gets absolute
    paths, sorted. ``on_notice(paths)``, if given, is called as each change is seen,
    before the burst it belongs to can end (on a watching thread: it must be quick), so a
    caller may start work ahead and know whether more came after it started.
    """

    def __init__(
        self,
        folders: Sequence[Path],
        on_change: Callable[[list[Path]], None],
        *,
        debounce_ms: int = DEFAULT_DEBOUNCE_MS,
        extra_files: Iterable[Path] = (),
        on_notice: Callable[[list[Path]], None] | None = None,
    ) -> None:
        self._on_change = on_change
        self._on_notice = on_notice
        self._debounce = debounce_ms / 1000
        self._roots = _outermost([folder.expanduser().resolve() for folder in folders])
        # The parent is resolved, not the file: events name a symlinked .env by its link.
        self._extra = {_absolute(path) for path in extra_files}
        outside = {path.parent for path in self._extra if not self._covered(path)}
        self._top_paths = [*self._roots, *sorted(outside)]
        self._top: _Group | None = None
        """The folders and the outside files' folders, without their subfolders."""
        self._below: _Group | None = None
        """The folders' subfolders but the ignored ones, with all they hold."""
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._changed = threading.Condition()
        self._pending: set[Path] = set()
        self._last_change = 0.0
        self._threads: list[threading.Thread] = []
        self._since: float | None = None
        self.error: BaseException | None = None
        """Why watching stopped early, or a new folder is not watched (a folder removed, no
        more inotify watches)."""

    @property
    def folders(self) -> list[Path]:
        """The folders watched (nested ones dropped), with all they hold but ignored ones."""
        return list(self._roots)

    @property
    def running(self) -> bool:
        return any(thread.is_alive() for thread in self._threads)

    def start(self, *, changed_since: float | None = None) -> None:
        """Start watching; returns at once (see `wait_ready`). A watcher runs once.

        ``changed_since`` (a `time.time()`): the files that count and changed after it
        make a change once the watches are in place, as if seen (a save made while the
        server was starting, before it could be watched, is not lost).
        """
        if self._threads:
            return
        self._since = changed_since
        existing = [path for path in self._top_paths if path.is_dir()]
        if existing:
            self._top = _Group(existing, recursive=False, stopped=self._stop)
            self._launch(self._top)
        with self._lock:
            dispatcher = threading.Thread(
                target=self._dispatch, name="project-watcher-calls", daemon=True
            )
            self._threads.append(dispatcher)
            dispatcher.start()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until every folder is watched (a large tree takes a moment); True if so."""
        if self._top is not None and not self._top.ready.wait(timeout):
            return False
        return self.error is None

    def stop(self, timeout: float = 5.0) -> None:
        """Stop watching and wait (up to ``timeout`` s) for the threads; safe to repeat.

        Changes not yet reported are dropped. Called from ``on_change`` itself, it does
        not wait for that call to end.
        """
        with self._lock:  # so that no watch thread starts after this
            self._stop.set()
            threads = list(self._threads)
        with self._changed:
            self._changed.notify_all()
        current = threading.current_thread()
        deadline = time.monotonic() + timeout
        for thread in threads:
            if thread is not current and thread.is_alive():
                thread.join(max(0.0, deadline - time.monotonic()))

    def __enter__(self) -> ProjectWatcher:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- threads -------------------------------------------------------------------------

    def _launch(self, group: _Group) -> bool:
        """Start a thread watching ``group``; False once the watcher is stopping."""
        with self._lock:
            if self._stop.is_set():
                return False
            self._threads = [thread for thread in self._threads if thread.is_alive()]
            kind = "below" if group.recursive else "top"
            thread = threading.Thread(
                target=self._watch, args=(group,), name=f"project-watcher-{kind}", daemon=True
            )
            self._threads.append(thread)
            thread.start()
        return True

    def _watch(self, group: _Group) -> None:
        try:
            for changes in watchfiles.watch(
                *group.paths,
                watch_filter=None,  # filtered here, so quiet ticks still come back
                stop_event=group,
                rust_timeout=_TICK_MS,
                yield_on_timeout=True,
                recursive=group.recursive,
                raise_interrupt=False,
                ignore_permission_denied=True,
            ):
                paths = [(change, Path(name)) for change, name in changes]
                self._note([path for change, path in paths if self._relevant(change, path)])
                if group is self._top:
                    if not group.ready.is_set():
                        self._follow_folders(report=False)  # ready once they are watched
                        if self._since is not None:
                            self._note(self._modified_since(self._since))
                    elif any(path.parent in self._roots for _, path in paths):
                        self._follow_folders(report=True)
                group.ready.set()
        except Exception as exc:
            group.error = exc
            if group is self._top or group is self._below:  # else it was a replacement
                self.error = exc
                logger.warning("watching %s stopped: %s", ", ".join(map(str, group.paths)), exc)
        finally:
            group.ready.set()

    def _follow_folders(self, *, report: bool) -> None:
        """Watch the folders' subfolders as they are now, when that changed.

        A new group with all of them replaces the old one once its watches are in place,
        so nothing goes unseen meanwhile; the old one would name a folder moved within
        the project by its old path. Subfolders come and go rarely (a new package, a
        ``git checkout``), so watching them all again is cheap enough.
        """
        for _attempt in range(3):  # a folder can vanish between listing and watching it
            wanted = _subfolders(self._roots)
            before = self._below.paths if self._below is not None else []
            if wanted == before:
                return
            group = _Group(wanted, recursive=True, stopped=self._stop) if wanted else None
            if group is not None:
                if not self._launch(group):
                    return
                group.ready.wait()
                if self._stop.is_set():
                    return
                if isinstance(group.error, FileNotFoundError):
                    continue
                if group.error is not None:  # the old group keeps watching what it did
                    self.error = group.error
                    where = ", ".join(map(str, self._roots))
                    logger.warning("watching new folders in %s failed: %s", where, group.error)
                    return
            old, self._below = self._below, group
            if old is not None:
                old.retired.set()
            if report:
                # Its files gave no event before its watch was in place: the folder
                # stands for them (a package moved in arrives as one event anyway).
                self._note(
                    [folder for folder in wanted if folder not in before and _has_python(folder)]
                )
            return

    def _note(self, paths: list[Path]) -> None:
        if paths:
            if self._on_notice is not None:
                # Before the burst can end: the call that ends it comes after this one.
                try:
                    self._on_notice(sorted(paths))
                except Exception:
                    logger.exception("the project notice handler failed")
            with self._changed:
                self._pending.update(paths)
                self._last_change = time.monotonic()
                self._changed.notify_all()

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

    def _modified_since(self, since: float) -> list[Path]:
        """The files that count and were modified after ``since``."""
        found = [path for path in self._extra if _modified_after(path, since)]
        for root in self._roots:
            for folder, dirs, files in os.walk(root):
                dirs[:] = [name for name in dirs if not is_ignored(Path(name))]
                for name in files:
                    path = Path(folder, name)
                    if self._relevant(watchfiles.Change.modified, path) and _modified_after(
                        path, since
                    ):
                        found.append(path)
        return found

    # -- filtering -----------------------------------------------------------------------

    def _covered(self, file: Path) -> bool:
        """Whether the folders' watches see ``file`` (not in an ignored subfolder)."""
        root = next((root for root in self._roots if _under(file, root)), None)
        if root is None:
            return False
        parts = file.relative_to(root).parts
        return len(parts) <= 1 or not is_ignored(Path(parts[0]))

    def _relevant(self, change: watchfiles.Change, path: Path) -> bool:
        if path in self._extra:
            return True
        root = next((root for root in self._roots if _under(path, root)), None)
        if root is None or path == root or is_ignored(path.relative_to(root)):
            return False
        if path.name == "langgraph.json" or path.suffix == ".py":
            return True
        # A folder moved in arrives as one event for the folder, none for its files (one
        # right in a watched folder is reported once watched, by `_follow_folders`).
        return (
            change == watchfiles.Change.added
            and path.parent != root
            and path.is_dir()
            and _has_python(path)
        )


class _Group:
    """Folders one watch thread watches; its ``is_set`` tells watchfiles to end it."""

    def __init__(self, paths: list[Path], *, recursive: bool, stopped: threading.Event) -> None:
        self.paths = paths
        self.recursive = recursive
        self.ready = threading.Event()
        """Set once the watches are in place, or the thread ended."""
        self.retired = threading.Event()
        """Set when another group replaces this one."""
        self.error: BaseException | None = None
        self._stopped = stopped

    def is_set(self) -> bool:
        return self._stopped.is_set() or self.retired.is_set()


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


def _subfolders(roots: list[Path]) -> list[Path]:
    """The folders right in ``roots`` that are not ignored, sorted."""
    found: list[Path] = []
    for root in roots:
        try:
            entries = list(os.scandir(root))
        except OSError:  # gone or unreadable: its own watch says so
            continue
        found += [
            Path(entry.path)
            for entry in entries
            if entry.is_dir() and not is_ignored(Path(entry.name))
        ]
    return sorted(found)


def _modified_after(path: Path, since: float) -> bool:
    try:
        return path.stat().st_mtime > since
    except OSError:  # gone meanwhile: its removal is an event of its own
        return False


def _has_python(folder: Path) -> bool:
    for _, dirs, files in os.walk(folder):
        dirs[:] = [name for name in dirs if not is_ignored(Path(name))]
        if any(name.endswith(".py") for name in files):
            return True
    return False
