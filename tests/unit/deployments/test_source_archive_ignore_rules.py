"""What `agent-tui deploy` leaves out of the tarball as git reads `.gitignore`: each case is
a real folder, packed, then listed (the expected lists are what `git ls-files --others
--exclude-standard` lists for the same folder)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from agent_tui.deployments.source_archive import pack_folder


def tree(root: Path, *files: str, **ignore_files: str) -> Path:
    """Files under ``root`` holding their own names; ``ignore_files`` maps a path with
    `__` for `/` (`pkg__gitignore` is `pkg/.gitignore`) to the file's text."""
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(name)
    for key, text in ignore_files.items():
        *folders, name = key.split("__")
        path = root.joinpath(*folders, f".{name}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def archived(root: Path) -> list[str]:
    """The names in the tarball `agent-tui deploy` would upload for ``root``."""
    with tarfile.open(fileobj=io.BytesIO(pack_folder(root)), mode="r:gz") as tar:
        return sorted(tar.getnames())


def test_a_negation_takes_back_what_an_earlier_pattern_left_out(tmp_path: Path) -> None:
    root = tree(
        tmp_path / "p",
        "agent.py",
        "a.txt",
        "keep.txt",
        "sub/b.txt",
        "sub/keep.txt",
        gitignore="*.txt\n!keep.txt\n",
    )
    assert archived(root) == [".gitignore", "agent.py", "keep.txt", "sub/keep.txt"]
    # The last matching line wins: a negation before the pattern takes nothing back.
    root = tree(tmp_path / "q", "agent.py", "keep.txt", gitignore="!keep.txt\n*.txt\n")
    assert archived(root) == [".gitignore", "agent.py"]


def test_a_leading_or_inner_slash_anchors_a_pattern_to_its_folder(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        "build/x",
        "build.py",
        "sub/build/y",
        "out/z",
        "sub/out/w",
        "s2/out",
        "doc/frotz",
        "a/doc/frotz",
        gitignore="/build\nout\ndoc/frotz\n",
    )
    assert archived(root) == [".gitignore", "a/doc/frotz", "build.py", "sub/build/y"]


def test_double_star_forms(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        "cache/1",
        "x/cache/2",
        "x/y/cache",
        "out/o",
        "out/p/q",
        "out/keep.txt",
        "a/b",
        "a/x/b",
        "a/x/y/b/c",
        "ab",
        "tmp/t.log",
        "q/tmp/t.log",
        "q/tmp/t.txt",
        "q/tmp/z/t.log",
        "docs/a.md",
        "docs/x/b.md",
        "keep.py",
        gitignore=(
            "**/cache\n"  # at any depth, the top too
            "out/**\n!out/keep.txt\n"  # what is inside `out`, not `out`: a file comes back
            "a/**/b\n"  # zero or more folders between
            "**/tmp/*.log\n"
            "docs/**.md\n"  # `**` not between slashes is a plain `*`
        ),
    )
    assert archived(root) == [
        ".gitignore",
        "ab",
        "docs/x/b.md",
        "keep.py",
        "out/keep.txt",
        "q/tmp/t.txt",
        "q/tmp/z/t.log",
    ]


def test_a_double_star_folder_pattern_leaves_out_the_folders_below_not_the_files(
    tmp_path: Path,
) -> None:
    root = tree(
        tmp_path,
        "out/top.txt",
        "out/sub/x",
        "pkg/m.py",
        "pkg/sub/y",
        "z/w",
        gitignore="out/**/\n",
        pkg__gitignore="**/\n",
    )
    assert archived(root) == [".gitignore", "out/top.txt", "pkg/.gitignore", "pkg/m.py", "z/w"]


def test_a_folder_only_pattern_leaves_files_of_that_name_in(tmp_path: Path) -> None:
    root = tree(tmp_path, "logs", "logs.txt", "other/logs", "sub/logs/a", gitignore="logs/\n")
    assert archived(root) == [".gitignore", "logs", "logs.txt", "other/logs"]


def test_escaped_characters_and_trailing_spaces(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        "#notes.md",
        "#comment.md",
        "!bang.txt",
        "trail.txt",
        "trail.txt   ",
        "space ",
        "space",
        "both ",
        "both",
        "odd",
        gitignore=(
            "\\#notes.md\n"  # a literal `#`
            "#comment.md\n"  # a comment
            "\\!bang.txt\n"  # a literal `!`
            "trail.txt   \n"  # trailing spaces dropped
            "space\\ \n"  # an escaped trailing space kept
            "both\\   \n"  # the escaped one kept, the rest dropped
            "odd\\\n"  # a trailing backslash: no valid pattern, git skips the line
        ),
    )
    assert archived(root) == ["#comment.md", ".gitignore", "both", "odd", "space", "trail.txt   "]


def test_bracket_expressions(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        "data1.csv",
        "dataa.csv",
        "ax",
        "bx",
        "]z",
        "z",
        gitignore="data[0-9].csv\n[!a]x\n[]]z\n",  # a `]` first in the brackets is literal
    )
    assert archived(root) == [".gitignore", "ax", "dataa.csv", "z"]


def test_everything_left_out_but_folders_and_python_files(tmp_path: Path) -> None:
    root = tree(tmp_path, "a.py", "b.csv", "pkg/m.py", "pkg/d.csv", gitignore="*\n!*/\n!*.py\n")
    assert archived(root) == ["a.py", "pkg/m.py"]


def test_a_nested_gitignore_taking_a_folder_back_takes_back_only_the_folder(
    tmp_path: Path,
) -> None:
    root = tree(
        tmp_path,
        "pkg/sub/a.txt",
        "pkg/sub/m.py",
        "pkg/build/x",
        "build/y",
        gitignore="*.txt\nbuild/\n",
        pkg__gitignore="!sub/\n!build/\n",
    )
    assert archived(root) == [".gitignore", "pkg/.gitignore", "pkg/build/x", "pkg/sub/m.py"]


def test_a_nested_gitignore_in_a_folder_named_with_glob_characters(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        "w[1]/a.txt",
        "w[1]/x/a.txt",
        "w[1]/x/bee",
        "w1/a.txt",
        "w*/a.txt",
        "wx/a.txt",
        **{"w[1]__gitignore": "/a.txt\nb*\n", "w*__gitignore": "/a.txt\n"},
    )
    assert archived(root) == [
        "w*/.gitignore",
        "w1/a.txt",
        "w[1]/.gitignore",
        "w[1]/x/a.txt",
        "wx/a.txt",
    ]


def test_the_dockerignore_is_read_before_the_gitignore_and_only_at_the_top(
    tmp_path: Path,
) -> None:
    root = tree(
        tmp_path,
        "agent.py",
        "README.md",
        "notes.md",
        "data/big.csv",
        "pkg/m.py",
        "pkg/skip.py",
        gitignore="!README.md\n",  # after the .dockerignore: it takes a file back
        dockerignore="*.md\ndata/\n.gitignore\n",  # the .gitignore, left out, still applies
        pkg__dockerignore="skip.py\n",  # a subfolder's is a plain file
    )
    assert archived(root) == [
        ".dockerignore",
        "README.md",
        "agent.py",
        "pkg/.dockerignore",
        "pkg/m.py",
        "pkg/skip.py",
    ]
