"""`ProjectWatcher` on real folders: one call per burst of edits to the code a server loads.

Each test writes a small project into a temporary folder, starts a watcher on it and
edits files. "Nothing else was reported" is shown without waiting for silence: after the
edits that must be ignored, one that counts is made, and the next call must hold only
that one (calls come in order, so an ignored edit that leaked would be in it or before).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.local.live_reload.watcher import ProjectWatcher

WAIT = 15.0
"""Generous deadline for a call to arrive (a loaded machine can be slow to notify)."""


class Calls:
    """Records ``on_change`` calls; tests wait for the n-th."""

    def __init__(self) -> None:
        self.calls: list[list[Path]] = []
        self._changed = threading.Condition()

    def __call__(self, paths: list[Path]) -> None:
        with self._changed:
            self.calls.append(paths)
            self._changed.notify_all()

    def wait_for(self, count: int) -> list[list[Path]]:
        with self._changed:
            arrived = self._changed.wait_for(lambda: len(self.calls) >= count, WAIT)
            assert arrived, f"expected {count} call(s), got {self.calls}"
            return list(self.calls)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "langgraph.json").write_text('{"graphs": {"agent": "./graph.py:graph"}}')
    (folder / "graph.py").write_text("graph = None\n")
    (folder / ".env").write_text("KEY=1\n")
    return folder


@pytest.fixture
def calls() -> Calls:
    return Calls()


Watch = Callable[..., ProjectWatcher]


@pytest.fixture
def watch(calls: Calls) -> Iterator[Watch]:
    """Starts a watcher on folders, reporting to ``calls``, ready; stops it after the test."""
    started: list[ProjectWatcher] = []

    def start(folders: list[Path], **options: Any) -> ProjectWatcher:
        watcher = ProjectWatcher(folders, calls, **options)
        started.append(watcher)
        watcher.start()
        assert watcher.wait_ready(WAIT), watcher.error
        return watcher

    yield start
    for watcher in started:
        watcher.stop()


def test_a_burst_of_saves_gives_one_call_with_the_file(
    project: Path, calls: Calls, watch: Watch
) -> None:
    watch([project], debounce_ms=1000)
    graph = project / "graph.py"
    # An editor's save: write a temporary file, then rename it over the original.
    for version in range(5):
        (project / "graph.py.tmp").write_text(f"graph = {version}\n")
        os.replace(project / "graph.py.tmp", graph)
    # A slower burst (a `git checkout`, a formatter on save): writes a tenth of a second
    # apart are still one burst with a one-second debounce.
    for version in range(3):
        time.sleep(0.1)  # spaces the writes out (what is tested); nothing is awaited
        graph.write_text(f"graph = {version}  # again\n")
    assert calls.wait_for(1) == [[graph]]

    (project / "tools.py").write_text("x = 1\n")
    assert calls.wait_for(2) == [[graph], [project / "tools.py"]]


def test_edits_in_virtual_environments_caches_and_editor_files_are_ignored(
    project: Path, calls: Calls, watch: Watch
) -> None:
    watch([project], debounce_ms=200)
    for relative in [
        ".venv/lib/python3.11/site-packages/pkg/mod.py",
        "venv/lib/mod.py",
        "__pycache__/graph.cpython-311.pyc",
        "pkg/__pycache__/mod.py",
        "node_modules/x/index.py",
        ".git/hooks/pre-commit.py",
        ".langgraph_api/store.py",
        ".mypy_cache/graph.py",
        ".#graph.py",
        ".graph.py.swp",
        "graph.py~",
        "README.md",
        "data.json",
    ]:
        path = project / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("ignored\n")

    (project / "graph.py").write_text("graph = 2\n")
    assert calls.wait_for(1) == [[project / "graph.py"]]


def test_langgraph_json_and_the_env_file_count(project: Path, calls: Calls, watch: Watch) -> None:
    watch([project], debounce_ms=200, extra_files=[project / ".env"])
    (project / "langgraph.json").write_text('{"graphs": {"agent": "./graph.py:other"}}')
    assert calls.wait_for(1) == [[project / "langgraph.json"]]

    (project / ".env").write_text("KEY=2\n")
    assert calls.wait_for(2)[1] == [project / ".env"]


def test_an_env_file_outside_the_project_and_a_dependency_folder_are_watched(
    tmp_path: Path, project: Path, calls: Calls, watch: Watch
) -> None:
    shared = tmp_path / "shared"
    library = tmp_path / "library" / "src"
    library.mkdir(parents=True)
    shared.mkdir()
    env_file = shared / "common.env"
    env_file.write_text("A=1\n")
    watch([project, library], debounce_ms=200, extra_files=[env_file])

    # Only the named file counts in an outside folder: not its other files.
    (shared / "notes.py").write_text("x = 1\n")
    env_file.write_text("A=2\n")
    assert calls.wait_for(1) == [[env_file]]

    (library / "helpers.py").write_text("def helper() -> int:\n    return 1\n")
    assert calls.wait_for(2)[1] == [library / "helpers.py"]


def test_a_package_folder_moved_into_the_project_counts(
    tmp_path: Path, project: Path, calls: Calls, watch: Watch
) -> None:
    outside = tmp_path / "tools"
    outside.mkdir()
    (outside / "__init__.py").write_text("TOOLS = []\n")
    watch([project], debounce_ms=200)

    os.rename(outside, project / "tools")
    (changed,) = calls.wait_for(1)
    assert changed and all(path.is_relative_to(project / "tools") for path in changed)


def inotify_watches() -> int:
    """How many inotify watches this process holds (Linux: one ``inotify wd:`` line each)."""
    count = 0
    for fd in Path("/proc/self/fd").iterdir():
        try:
            if os.readlink(fd) != "anon_inode:inotify":
                continue
            info = (Path("/proc/self/fdinfo") / fd.name).read_text()
        except OSError:  # closed meanwhile (the listing's own fd, another thread's)
            continue
        count += sum(line.startswith("inotify wd:") for line in info.splitlines())
    return count


@pytest.mark.skipif(not Path("/proc/self/fdinfo").is_dir(), reason="counts Linux inotify watches")
def test_ignored_folders_get_no_watches(project: Path, calls: Calls, watch: Watch) -> None:
    # A virtual environment's thousands of folders would use up the inotify watches.
    for index in range(200):
        (project / ".venv" / "lib" / f"package{index}" / "sub").mkdir(parents=True)
    (project / "node_modules" / "left-pad").mkdir(parents=True)
    (project / "pkg" / "sub").mkdir(parents=True)
    before = inotify_watches()
    watch([project], debounce_ms=200)
    # One each for the project, pkg and pkg/sub.
    assert inotify_watches() - before == 3

    (project / "pkg" / "sub" / "mod.py").write_text("x = 1\n")
    assert calls.wait_for(1) == [[project / "pkg" / "sub" / "mod.py"]]


def test_a_folder_made_after_the_start_is_watched(
    project: Path, calls: Calls, watch: Watch
) -> None:
    watch([project], debounce_ms=200)
    package = project / "agents"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (changed,) = calls.wait_for(1)
    assert changed and all(path.is_relative_to(package) for path in changed)

    (package / "tools.py").write_text("x = 1\n")
    assert calls.wait_for(2)[1] == [package / "tools.py"]


def test_a_folder_renamed_is_watched_by_its_new_name(
    project: Path, calls: Calls, watch: Watch
) -> None:
    (project / "tools").mkdir()
    (project / "tools" / "search.py").write_text("x = 1\n")
    watch([project], debounce_ms=200)

    os.rename(project / "tools", project / "helpers")
    assert calls.wait_for(1) == [[project / "helpers"]]
    # Not also as tools/search.py, a file that is not there.
    (project / "helpers" / "search.py").write_text("x = 2\n")
    assert calls.wait_for(2)[1] == [project / "helpers" / "search.py"]


def test_a_failing_callback_does_not_stop_the_watching(project: Path, calls: Calls) -> None:
    failed: list[list[Path]] = []
    first_failed = threading.Event()

    def on_change(paths: list[Path]) -> None:
        if not first_failed.is_set():
            failed.append(paths)
            first_failed.set()
            raise RuntimeError("reload broke")
        calls(paths)

    with ProjectWatcher([project], on_change, debounce_ms=200) as watcher:
        assert watcher.wait_ready(WAIT)
        (project / "graph.py").write_text("graph = 1\n")
        assert first_failed.wait(WAIT)
        assert failed == [[project / "graph.py"]]
        (project / "tools.py").write_text("x = 1\n")
        assert calls.wait_for(1) == [[project / "tools.py"]]


def test_stop_ends_the_threads_and_can_be_repeated(project: Path, calls: Calls) -> None:
    watcher = ProjectWatcher([project], calls, debounce_ms=200)
    watcher.start()
    assert watcher.wait_ready(WAIT)
    assert watcher.running
    watcher.stop()
    assert not watcher.running
    assert not [t for t in threading.enumerate() if t.name.startswith("project-watcher")]
    watcher.stop()  # a second stop is harmless
    assert not watcher.running


def test_stop_from_inside_the_callback(project: Path) -> None:
    stopped = threading.Event()
    watcher: ProjectWatcher

    def on_change(paths: list[Path]) -> None:
        watcher.stop()  # must not wait for its own thread
        stopped.set()

    watcher = ProjectWatcher([project], on_change, debounce_ms=200)
    watcher.start()
    assert watcher.wait_ready(WAIT)
    (project / "graph.py").write_text("graph = 3\n")
    assert stopped.wait(WAIT)
    watcher.stop(timeout=WAIT)
    assert not watcher.running


def test_importing_the_watcher_loads_neither_langgraph_nor_textual() -> None:
    # A fresh interpreter: in this one, other tests have imported both.
    code = (
        "import sys, agent_tui.local.live_reload.watcher; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'langgraph', 'textual'}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_an_edit_made_before_the_watches_are_in_place_is_reported_once_they_are(
    project: Path, calls: Calls
) -> None:
    # The server read the project at `since`; the user saved before it could be watched.
    (project / "pkg").mkdir()
    (project / "pkg" / "old.py").write_text("x = 1\n")
    (project / "graph.py").touch()
    since = time.time()
    os.utime(project / "pkg" / "old.py", (since - 60, since - 60))
    os.utime(project / "graph.py", (since - 60, since - 60))
    (project / "pkg" / "tools.py").write_text("x = 2\n")
    (project / "notes.txt").write_text("not code\n")
    os.utime(project / "pkg" / "tools.py", (since + 1, since + 1))
    os.utime(project / "notes.txt", (since + 1, since + 1))
    watcher = ProjectWatcher([project], calls)
    try:
        watcher.start(changed_since=since)
        assert watcher.wait_ready(WAIT), watcher.error
        assert calls.wait_for(1) == [[project / "pkg" / "tools.py"]]
    finally:
        watcher.stop()
