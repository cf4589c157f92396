"""The BUILDING step, run in a child process: read the config and import every graph.

``python -m agent_tui.local.control_plane.build_check CONFIG`` prints one line per graph
and exits 0, or prints the reason and exits 1. A child process keeps a graph's import
side effects (and crashes) out of the control plane. It reads CONFIG itself: it runs in
the project's interpreter, which the parent's `LangGraphConfig` cannot reach.

With ``--json`` it prints one JSON object per graph instead, for live reload to show
where a graph broke::

    {"graph": "chat", "ok": false, "ref": "/p/graph.py:graph", "file": "/p/graph.py",
     "line": 12, "message": "NameError: name 'x' is not defined"}

An unusable config gives one object with ``"graph": null``, each config warning one
``{"warning": "…"}`` object, and the end one ``{"imports": ["langchain_core.tools", …]}``:
the installed modules the graphs imported (not the project's own files), which live
reload's next standbys import ahead (`standby`). Anything the graphs print while importing goes to stderr, so
stdout holds only these objects. ``--timeout SECONDS`` bounds the time spent importing
(on POSIX): a graph still importing then fails with a ``TimeoutError`` at the line it was
stuck on. ``--standby`` makes a prewarmed check (see `standby`): it imports the slow
modules, then waits for ``go`` on stdin before it reads the config.
``--die-with-parent PID`` ties the check to the process that started it (see
`parent_watch`): the control plane passes it, with a pipe as stdin.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import signal
import sys
import time
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from agent_tui.local.langgraph_config import LangGraphConfigError, load_langgraph_config
from agent_tui.local.project_files import read_project_text

_JS_SUFFIXES = (".js", ".ts", ".mjs", ".tsx")
_THIS_FILE = Path(__file__).resolve()
_IMPORT_MACHINERY = Path(importlib.__file__).resolve().parent


_REF_FILE = "_agent_tui_ref_file"
"""Attribute set on the errors about a graph reference itself: the file to look at."""


def _ref_error(kind: type[Exception], message: str, file: Path | None) -> Exception:
    # The built-in exception types, so the build log reads as it always did.
    error = kind(message)
    setattr(error, _REF_FILE, file)
    return error


class _TimeLimit(BaseException):
    # A BaseException, so a graph's own ``except Exception`` cannot swallow it.
    pass


_loaded_files: dict[Path, Any] = {}
"""Graph files executed by this check: the graphs of one file are checked with one run of
it (langgraph-api runs it once per graph; a file that imports once imports again)."""


def _load(ref: str, config_path: Path | None = None) -> Any:
    location, _, name = ref.rpartition(":")
    if not location or not name:
        message = f"{ref!r} is not 'module:variable' or 'path/to/file.py:variable'"
        raise _ref_error(ValueError, message, config_path)
    if location.endswith(".py") or "/" in location:
        path = Path(location)
        if not path.is_file():
            raise _ref_error(FileNotFoundError, f"no such file: {path}", config_path)
        # The module name langgraph-api gives a graph file: a bare stem ("graph",
        # "utils") would shadow a module of that name that the project imports.
        module_name = location.replace("/", "__").replace(".py", "").replace(" ", "_")
        module = _loaded_files.get(path.resolve())
        if module is None:
            spec = importlib.util.spec_from_file_location(module_name.lstrip("."), path)
            if spec is None or spec.loader is None:
                raise _ref_error(ImportError, f"cannot load {path}", path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
            _loaded_files[path.resolve()] = module
    else:
        module = importlib.import_module(location)
    if not hasattr(module, name):
        module_file = getattr(module, "__file__", None)
        message = f"{location} has no attribute {name!r}"
        raise _ref_error(AttributeError, message, Path(module_file) if module_file else None)
    return getattr(module, name)


def _ref_of(spec: Any) -> str:
    return str(spec["path"] if isinstance(spec, dict) else spec)


def _is_javascript(ref: str) -> bool:
    return ref.endswith(_JS_SUFFIXES) or ".ts:" in ref or ".js:" in ref


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agent_tui.local.control_plane.build_check",
        description="Read a langgraph.json and import every graph in it.",
    )
    parser.add_argument("config", type=Path, help="the langgraph.json file")
    parser.add_argument("--json", action="store_true", help="one JSON object per graph")
    parser.add_argument("--timeout", type=float, help="seconds allowed for the imports")
    parser.add_argument(
        "--die-with-parent",
        type=int,
        metavar="PID",
        help="stop (with what the graphs started) when process PID is gone or stdin closes",
    )
    parser.add_argument(
        "--standby", action="store_true", help="import the slow modules, then wait for 'go'"
    )
    args = parser.parse_args(list(argv))
    baseline = set(sys.modules)  # what any check imports: not the project's
    if args.standby:
        from agent_tui.local.standby import wait_for_go

        wait_for_go()
    if args.die_with_parent is not None:
        from agent_tui.local.control_plane.parent_watch import die_with_parent

        die_with_parent(args.die_with_parent)
    if args.json:
        return _check_json(args.config, args.timeout, baseline)
    return _check_text(args.config, args.timeout)


# -- human output (the control plane's build log) ----------------------------------------


def _check_text(config_path: Path, timeout: float | None) -> int:
    try:
        config = load_langgraph_config(config_path)
    except LangGraphConfigError as exc:
        print(f"invalid langgraph.json: {exc}")
        return 1
    for warning in config.warnings:
        print(f"warning: {warning}")
    _prepare(config.env, [config.folder, *config.dependencies])
    failed = False
    deadline = _deadline(timeout)
    for graph_id, spec in config.graphs.items():
        ref = _ref_of(spec)
        if _is_javascript(ref):
            print(f"graph {graph_id}: JavaScript graphs are not supported locally ({ref})")
            failed = True
            continue
        try:
            with _time_limit(deadline, timeout):
                _load(ref, config.path)
        except (Exception, SystemExit, _TimeLimit) as exc:
            failed = True
            print(f"graph {graph_id}: cannot import {ref}: {_describe(exc, short=False)}")
            lines = traceback.format_exception(exc)
            print("".join(lines[-6:]).rstrip())
        else:
            print(f"graph {graph_id}: ok ({ref})")
    return 1 if failed else 0


# -- JSON output (live reload) -----------------------------------------------------------


def _check_json(config_path: Path, timeout: float | None, baseline: set[str]) -> int:
    out = _take_stdout()
    try:
        config = load_langgraph_config(config_path)
    except LangGraphConfigError as exc:
        path = config_path.expanduser().resolve()
        message = str(exc).removeprefix(f"{path}: ")
        _emit(out, _record(None, None, path, _json_error_line(path), message))
        return 1
    for warning in config.warnings:
        _emit(out, {"warning": warning})
    roots = [config.folder, *config.dependencies]
    _prepare(config.env, roots)
    failed = False
    deadline = _deadline(timeout)
    for graph_id, spec in config.graphs.items():
        ref = _ref_of(spec)
        if _is_javascript(ref):
            failed = True
            message = f"JavaScript graphs are not supported locally ({ref})"
            _emit(out, _record(graph_id, ref, config.path, None, message))
            continue
        try:
            with _time_limit(deadline, timeout):
                _load(ref, config.path)
        except (Exception, SystemExit, _TimeLimit) as exc:
            failed = True
            file, line = _location(exc, roots, config.path)
            _emit(out, _record(graph_id, ref, file, line, _describe(exc)))
        else:
            _emit(out, {**_record(graph_id, ref, None, None, "ok"), "ok": True})
    _emit(out, {"imports": _installed_imports(baseline, roots)})
    return 1 if failed else 0


def _installed_imports(baseline: set[str], roots: Sequence[Path]) -> list[str]:
    """The modules imported since ``baseline`` (the check's own) from installed packages
    (files outside the project's folders): the graphs' and, in a standby, those it
    imported ahead (so the list grows with the project's needs, and shrinks at a check
    without a standby); none when langgraph-api itself was among them (it reads its
    settings at import: a standby must not import what imports it)."""
    found = []
    for name in sorted(set(sys.modules) - baseline):
        if name.startswith("langgraph_api"):
            return []
        file = getattr(sys.modules.get(name), "__file__", None)
        if file and not name.startswith("__") and not _in_project(Path(file), roots):
            found.append(name)
    return found


def _take_stdout() -> TextIO:
    """A private copy of stdout for the JSON lines; fd 1 then goes to stderr.

    At the file descriptor level, so output from C extensions and child processes that a
    graph starts cannot land between (or inside) the JSON lines either.
    """
    sys.stdout.flush()
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return out


def _emit(out: TextIO, record: dict[str, Any]) -> None:
    # One line each, flushed: a crash on a later graph keeps the earlier results.
    out.write(json.dumps(record) + "\n")
    out.flush()


def _record(
    graph_id: str | None, ref: str | None, file: Path | None, line: int | None, message: str
) -> dict[str, Any]:
    return {
        "graph": graph_id,
        "ok": False,
        "ref": ref,
        "file": str(file) if file is not None else None,
        "line": line,
        "message": message,
    }


def _json_error_line(path: Path) -> int | None:
    """The line of a JSON syntax error in the config (the config error only has text)."""
    try:
        json.loads(read_project_text(path))
    except json.JSONDecodeError as exc:
        return exc.lineno
    except (OSError, ValueError, RecursionError):
        return None
    return None


def _describe(exc: BaseException, *, short: bool = True) -> str:
    """``ExcType: message``; ``short`` leaves out a syntax error's place (given apart)."""
    if isinstance(exc, _TimeLimit):
        return f"TimeoutError: {exc}"
    if short and isinstance(exc, SyntaxError) and exc.msg:
        return f"{type(exc).__name__}: {exc.msg}"
    if isinstance(exc, SystemExit):
        return f"SystemExit: the module called sys.exit({exc.code!r}) while importing"
    return f"{type(exc).__name__}: {exc}"


def _location(
    exc: BaseException, roots: Sequence[Path], config_path: Path
) -> tuple[Path | None, int | None]:
    """Where to look: the file and line in the project closest to the error.

    A syntax error names its own place. Otherwise the innermost traceback frame in the
    project (its folder or a local dependency folder, outside any site-packages), so a
    ``ValueError`` raised inside LangGraph points at the graph's line that called it.
    With no frame outside this check (a ``"package.module:graph"`` that is not there),
    the reference in the config is what is wrong.
    """
    if hasattr(exc, _REF_FILE):
        return getattr(exc, _REF_FILE), None
    if isinstance(exc, SyntaxError) and exc.filename and Path(exc.filename).is_file():
        return Path(exc.filename), exc.lineno
    frames = [
        (Path(frame.filename), frame.lineno)
        for frame in traceback.extract_tb(exc.__traceback__)
        if _shown_frame(frame.filename)
    ]
    for file, line in reversed(frames):
        if _in_project(file, roots):
            return file, line
    if isinstance(exc, _TimeLimit):
        return None, None  # out of time before this graph's import began
    if frames:
        return frames[-1]
    return config_path, None


def _shown_frame(filename: str) -> bool:
    """Not this check's own code, nor the import system's (frozen or ``importlib``)."""
    if filename.startswith("<"):
        return False
    path = Path(filename).resolve()
    return path != _THIS_FILE and not path.is_relative_to(_IMPORT_MACHINERY)


def _in_project(file: Path, roots: Sequence[Path]) -> bool:
    parts = file.parts
    if "site-packages" in parts or "dist-packages" in parts:
        return False  # a virtual environment inside the project folder is not its code
    resolved = file.resolve()
    return any(resolved.is_relative_to(root) for root in roots)


# -- shared ------------------------------------------------------------------------------


def _prepare(env: dict[str, str], folders: Sequence[Path]) -> None:
    os.environ.update({k: v for k, v in env.items() if k not in os.environ})
    # As the server process does (and `langgraph dev` with its working folder): the
    # project folder and its local dependency folders are importable.
    for folder in folders:
        if str(folder) not in sys.path:
            sys.path.append(str(folder))


def _deadline(timeout: float | None) -> float | None:
    return time.monotonic() + timeout if timeout is not None else None


@contextmanager
def _time_limit(deadline: float | None, timeout: float | None) -> Iterator[None]:
    """Interrupt the import when the deadline passes (POSIX main thread only).

    The alarm's exception is raised where the import is stuck, so its traceback points
    at the line that hangs (a ``time.sleep``, a network call).
    """
    if deadline is None or not hasattr(signal, "setitimer"):
        yield
        return
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise _TimeLimit(f"not imported: the {timeout:g} s for importing the graphs ran out")

    def alarm(signum: int, frame: FrameType | None) -> None:
        raise _TimeLimit(f"importing took over {timeout:g} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, remaining)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    # Without waiting for threads a graph started at import: the answer is given, and a
    # non-daemon thread would otherwise keep the check running until it is killed.
    os._exit(code)
