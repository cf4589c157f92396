"""The gzipped tarball of a project folder that `agent-tui deploy` uploads.

What git would leave out is left out: each folder's `.gitignore` applies to what is
under it (and the packed folder's `.dockerignore`, read as the official CLI reads it: the
same rules, before its `.gitignore`), with the rules most people write (`#` comments,
`!` to take a file back, a trailing `/` for folders only, a leading or inner `/` to anchor the pattern to the
`.gitignore`'s folder, `*`, `?`, `[…]` and `**`); the last matching line wins, and a
folder left out is not entered (as in git, nothing under it can be taken back). Never
packed, whatever `.gitignore` says: `.git`, `.venv`, `venv`, `node_modules`, `.tox`,
`.mypy_cache`, `__pycache__` (what the official CLI always leaves out), the local agent
server's `.langgraph_api` data folder, agent-tui's own folders when they lie inside
the project (`never` folders), symlinks and anything that is not a plain file (the
official CLI leaves links out too).
"""

from __future__ import annotations

import io
import os
import re
import tarfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

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


@dataclass(frozen=True)
class IgnoreRule:
    regex: re.Pattern[str]
    negated: bool
    folders_only: bool


def _glob_regex(pattern: str) -> str:
    """A gitignore glob as a regex over a `/`-separated path."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("/.*")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = pattern[i + 1 : end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end
        elif char == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def parse_gitignore(text: str) -> list[IgnoreRule]:
    """The rules of one `.gitignore`, in order; paths they match are relative to its folder."""
    rules: list[IgnoreRule] = []
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        if not line.strip() or line.startswith("#"):
            continue
        if not line.endswith("\\ "):
            line = line.rstrip(" ")
        negated = line.startswith("!")
        if negated or line.startswith(("\\!", "\\#")):
            line = line[1:]
        folders_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        body = _glob_regex(line)
        prefix = "" if anchored else "(?:.*/)?"
        rules.append(IgnoreRule(re.compile(f"^{prefix}{body}$"), negated, folders_only))
    return rules


@dataclass
class _Scope:
    base: PurePosixPath  # the `.gitignore`'s folder, relative to the project
    rules: list[IgnoreRule] = field(default_factory=list)


def _ignored(scopes: Iterable[_Scope], path: PurePosixPath, is_folder: bool) -> bool:
    verdict = False
    for scope in scopes:  # outer first: a deeper `.gitignore` has the last word
        relative = path.relative_to(scope.base).as_posix()
        for rule in scope.rules:
            if rule.folders_only and not is_folder:
                continue
            if rule.regex.match(relative):
                verdict = not rule.negated
    return verdict


def project_files(root: Path, never: Iterable[Path] = ()) -> Iterator[PurePosixPath]:
    """The files of ``root`` to pack, as paths relative to it, in a stable order."""
    root = root.resolve()
    left_out = {p.resolve() for p in never}

    def walk(
        folder: Path, relative: PurePosixPath, scopes: list[_Scope]
    ) -> Iterator[PurePosixPath]:
        gitignore = folder / ".gitignore"
        if gitignore.is_file() and not gitignore.is_symlink():
            text = gitignore.read_text(encoding="utf-8", errors="replace")
            scopes = [*scopes, _Scope(relative, parse_gitignore(text))]
        with os.scandir(folder) as found:
            entries = sorted(found, key=lambda e: e.name)
        for entry in entries:
            path = relative / entry.name
            if entry.is_symlink():
                continue
            if entry.is_dir():
                if entry.name in ALWAYS_LEFT_OUT or Path(entry.path).resolve() in left_out:
                    continue
                if not _ignored(scopes, path, True):
                    yield from walk(Path(entry.path), path, scopes)
            elif entry.is_file() and not _ignored(scopes, path, False):
                yield path

    # The official CLI reads the packed folder's `.dockerignore` too, with the same rules.
    dockerignore = root / ".dockerignore"
    first: list[_Scope] = []
    if dockerignore.is_file() and not dockerignore.is_symlink():
        text = dockerignore.read_text(encoding="utf-8", errors="replace")
        first.append(_Scope(PurePosixPath(), parse_gitignore(text)))
    yield from walk(root, PurePosixPath(), first)


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
