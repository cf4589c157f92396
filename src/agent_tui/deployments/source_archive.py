"""The gzipped tarball of a project folder that `agent-tui deploy` uploads.

What git would leave out is left out: each folder's `.gitignore` applies to what is
under it (and the packed folder's `.dockerignore`, read as the official CLI reads it: the
same rules, before its `.gitignore`). The patterns are git's, compiled and matched by
`pathspec` (the library the official CLI uses) with its `GitIgnoreSpec`; the last
matching line wins, a deeper `.gitignore`'s after the outer ones, and a folder left out
is not entered (as in git, nothing under it can be taken back). Never packed, whatever
`.gitignore` says: `.git`, `.venv`, `venv`, `node_modules`, `.tox`, `.mypy_cache`,
`__pycache__` (what the official CLI always leaves out), the local agent server's
`.langgraph_api` data folder, agent-tui's own folders when they lie inside the project
(`never` folders), symlinks and anything that is not a plain file (the official CLI
leaves links out too).
"""

from __future__ import annotations

import io
import os
import re
import tarfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath

from pathspec import GitIgnoreSpec
from pathspec.patterns.gitignore import GitIgnorePatternError
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

ALWAYS_LEFT_OUT = frozenset(
    {
        ".git",
        ".venv",
        "venv",
        "node_modules",
        ".tox",
        ".mypy_cache",
        "__pycache__",
        ".langgraph_api",
    }
)
"""The official CLI's own list (`_ignore.py`), and the local agent server's data folder."""
MAX_ARCHIVE = 200 << 20
"""Largest tarball the service takes (the official CLI's limit, 200 MB)."""


class ArchiveError(Exception):
    """The folder cannot be packed (too big, unreadable); the message says why."""


_GLOB_CHARACTERS = re.compile(r"[\\*?\[]")


def _without_trailing_spaces(line: str) -> str:
    """As git: trailing spaces are dropped, but one escaped with a backslash is kept."""
    kept = line.rstrip(" ")
    if kept != line and (len(kept) - len(kept.rstrip("\\"))) % 2:
        kept += " "
    return kept


def _patterns(text: str, folder: PurePosixPath) -> list[str]:
    """The patterns of an ignore file in ``folder`` (relative to the packed folder),
    without comments, blank lines and trailing spaces, rewritten to match paths relative
    to the packed folder."""
    patterns: list[str] = []
    for raw in text.splitlines():
        line = _without_trailing_spaces(raw)
        negation = "!" if line.startswith("!") else ""
        body = line.removeprefix(negation)
        if line.startswith("#") or not body.strip("/"):  # `/` alone matches nothing
            continue
        if folder.parts:
            base = _GLOB_CHARACTERS.sub(r"\\\g<0>", folder.as_posix())
            # A leading or inner `/` anchors the pattern to its folder; else it matches
            # at any depth under it.
            anchored = "/" in body.rstrip("/")
            body = f"/{base}/{body.removeprefix('/')}" if anchored else f"/{base}/**/{body}"
        patterns.append(negation + body)
    return patterns


def _compiled(patterns: Iterable[str]) -> list[GitIgnoreSpecPattern]:
    """``patterns`` compiled one by one (`from_lines` fails on the first invalid one)."""
    compiled: list[GitIgnoreSpecPattern] = []
    for pattern in patterns:
        try:
            compiled += GitIgnoreSpec.from_lines([pattern]).patterns
        except GitIgnorePatternError:  # a trailing `\`: git skips the line too
            continue
    return compiled


_ONLY_THE_PATH_ITSELF = _compiled(["!*/"])
"""Last in each spec. `GitIgnoreSpec` goes by the last pattern that matches the path
itself and, only when none does, by the last one that matches it through a folder above
(`b/` matches `b/c.txt`): this one, which takes the path back. So, as in git, only the
path's own patterns count; the folders above are the walk's, which enters only those
left in."""


@dataclass(frozen=True)
class _IgnoreRules:
    """The patterns of the ignore files read on the way down to a folder, rooted at the
    packed folder, the outer files' first: the last match wins.

    Folders are matched apart, with each folder-only pattern (`logs/`) read without its
    `/`, against their path without one: `GitIgnoreSpec` is made for files, and would
    let a `*` outrank a later `!*/` on `pkg/` (a match of the path itself outranks a
    folder pattern's) and `out/**` match `out` itself; in git, neither does.
    """

    files: tuple[GitIgnoreSpecPattern, ...] = ()
    folders: tuple[GitIgnoreSpecPattern, ...] = ()

    def then(self, ignore_file: Path, folder: PurePosixPath) -> _IgnoreRules:
        """These rules, then those of ``ignore_file`` (in ``folder``)."""
        text = ignore_file.read_text(encoding="utf-8", errors="replace")
        patterns = _patterns(text, folder)
        return _IgnoreRules(
            (*self.files, *_compiled(patterns)),
            (*self.folders, *_compiled(p.rstrip("/") for p in patterns)),
        )

    @cached_property
    def _specs(self) -> tuple[GitIgnoreSpec, GitIgnoreSpec]:
        # The plain `re` matcher: the re2 and hyperscan ones (the default when either is
        # installed) let a later pattern leaving out a folder above outrank the path's
        # own match.
        return (
            GitIgnoreSpec([*self.files, *_ONLY_THE_PATH_ITSELF], backend="simple"),
            GitIgnoreSpec([*self.folders, *_ONLY_THE_PATH_ITSELF], backend="simple"),
        )

    def leave_out(self, path: PurePosixPath, is_folder: bool) -> bool:
        """Whether ``path``, whose folders are left in, is left out."""
        files, folders = self._specs
        return (folders if is_folder else files).check_file(path.as_posix()).include is True


def project_files(root: Path, never: Iterable[Path] = ()) -> Iterator[PurePosixPath]:
    """The files of ``root`` to pack, as paths relative to it, in a stable order."""
    root = root.resolve()
    left_out = {p.resolve() for p in never}

    def walk(folder: Path, relative: PurePosixPath, rules: _IgnoreRules) -> Iterator[PurePosixPath]:
        gitignore = folder / ".gitignore"
        if gitignore.is_file() and not gitignore.is_symlink():
            rules = rules.then(gitignore, relative)
        with os.scandir(folder) as found:
            entries = sorted(found, key=lambda e: e.name)
        for entry in entries:
            path = relative / entry.name
            if entry.is_symlink():
                continue
            if entry.is_dir():
                if entry.name in ALWAYS_LEFT_OUT or Path(entry.path).resolve() in left_out:
                    continue
                if not rules.leave_out(path, is_folder=True):
                    yield from walk(Path(entry.path), path, rules)
            elif entry.is_file() and not rules.leave_out(path, is_folder=False):
                yield path

    # The official CLI reads the packed folder's `.dockerignore` too, with the same rules.
    dockerignore = root / ".dockerignore"
    rules = _IgnoreRules()
    if dockerignore.is_file() and not dockerignore.is_symlink():
        rules = rules.then(dockerignore, PurePosixPath())
    yield from walk(root, PurePosixPath(), rules)


def pack_folder(root: Path, never: Iterable[Path] = (), limit: int = MAX_ARCHIVE) -> bytes:
    """The gzipped tarball of ``root``'s files (see the module); `ArchiveError` past ``limit``."""
    return pack_paths(root, [root], [], never, limit)


def pack_paths(
    root: Path,
    folders: Iterable[Path],
    files: Iterable[Path] = (),
    never: Iterable[Path] = (),
    limit: int = MAX_ARCHIVE,
) -> bytes:
    """The gzipped tarball of ``folders`` (their files as the module says) and ``files``
    (taken as they are), each under its path relative to ``root``, which holds them all."""
    root = root.resolve()
    chosen: list[PurePosixPath] = []
    for folder in folders:
        prefix = PurePosixPath(folder.resolve().relative_to(root).as_posix())
        chosen += [prefix / relative for relative in project_files(folder, never)]
    chosen += [PurePosixPath(f.resolve().relative_to(root).as_posix()) for f in files]
    buffer = io.BytesIO()
    try:
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            for relative in dict.fromkeys(chosen):
                path = root / Path(relative)
                info = tar.gettarinfo(str(path), arcname=relative.as_posix())
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                with open(path, "rb") as file:
                    tar.addfile(info, file)
                if buffer.tell() > limit:
                    raise ArchiveError(
                        f"the project is larger than {limit >> 20} MB packed; "
                        "leave big files out with .gitignore"
                    )
    except OSError as error:
        raise ArchiveError(f"cannot pack {root}: {error}") from None
    data = buffer.getvalue()
    if len(data) > limit:
        raise ArchiveError(f"the project is larger than {limit >> 20} MB packed")
    return data
