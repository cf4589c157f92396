"""What `agent-tui deploy` packs: a project folder as its `.gitignore` files say, never
`.git`, `.venv`, `__pycache__`, `.langgraph_api`, agent-tui's own folders or links."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from agent_tui.deployments.source_archive import ArchiveError, pack_folder, project_files


def tree(root: Path, *files: str) -> Path:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(name)
    return root


def packed(root: Path, never: list[Path] | None = None) -> list[str]:
    return [p.as_posix() for p in project_files(root, never or [])]


def test_gitignore_patterns_negation_folders_and_anchors(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        "agent.py",
        "debug.log",
        "keep.log",
        "logs/today.txt",
        "sub/logs/deep.txt",
        "secret.txt",
        "sub/secret.txt",
        "build",  # a file named like the folder rule
        "sub/build/out.bin",
        "docs/a/b/c.tmp",
        "docs/readme.md",
        "data[1].csv",
        "notes/#1.md",
    )
    (root / ".gitignore").write_text(
        "# comments and blank lines are skipped\n\n"
        "*.log\n!keep.log\n"  # a pattern, and a file taken back
        "logs/\n"  # a folder, at any depth
        "/secret.txt\n"  # anchored: only the top one
        "build/\n"  # folders only: the file `build` stays
        "docs/**/*.tmp\n"
        "data\\[1\\].csv\n"
    )
    assert packed(root) == [
        ".gitignore",
        "agent.py",
        "build",
        "docs/readme.md",
        "keep.log",
        "notes/#1.md",
        "sub/secret.txt",
    ]


def test_a_nested_gitignore_applies_under_its_folder_and_has_the_last_word(
    tmp_path: Path,
) -> None:
    root = tree(tmp_path, "a.txt", "pkg/a.txt", "pkg/b.txt", "pkg/keep.txt", "other/b.txt")
    (root / ".gitignore").write_text("keep.txt\n")
    (root / "pkg" / ".gitignore").write_text("/a.txt\nb.txt\n!keep.txt\n")
    assert packed(root) == [".gitignore", "a.txt", "other/b.txt", "pkg/.gitignore", "pkg/keep.txt"]


def test_a_folder_left_out_is_not_entered(tmp_path: Path) -> None:
    root = tree(tmp_path, "cache/x.txt", "cache/keep.txt")
    (root / ".gitignore").write_text("cache/\n!cache/keep.txt\n")  # as git: no way back in
    assert packed(root) == [".gitignore"]


def test_never_packed_whatever_gitignore_says(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        "agent.py",
        ".git/HEAD",
        ".venv/lib/big.py",
        "pkg/__pycache__/m.cpython-311.pyc",
        "pkg/m.py",
        ".langgraph_api/store.pckl",
        "home/data/servers/x",
    )
    (root / ".gitignore").write_text("!.venv\n")
    (root / "link.py").symlink_to(root / "agent.py")
    (root / "outside").symlink_to(tmp_path.parent, target_is_directory=True)
    assert packed(root, [root / "home"]) == [".gitignore", "agent.py", "pkg/m.py"]


def test_the_archive_holds_the_files_under_their_project_paths(tmp_path: Path) -> None:
    root = tree(tmp_path, "langgraph.json", "pkg/m.py", "ignored.txt")
    (root / ".gitignore").write_text("ignored.txt\n")
    data = pack_folder(root)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        members = {m.name: m for m in tar.getmembers()}
        assert set(members) == {".gitignore", "langgraph.json", "pkg/m.py"}
        assert all(m.uid == 0 and m.uname == "" for m in members.values())
        extracted = tar.extractfile(members["pkg/m.py"])
        assert extracted is not None and extracted.read() == b"pkg/m.py"


def test_a_project_past_the_limit_is_refused(tmp_path: Path) -> None:
    root = tmp_path
    (root / "big.bin").write_bytes(bytes(range(256)) * 4096)
    with pytest.raises(ArchiveError, match="larger than"):
        pack_folder(root, limit=1 << 10)


def test_the_folders_dockerignore_leaves_files_out_as_the_official_cli_does(
    tmp_path: Path,
) -> None:
    root = tree(tmp_path, "agent.py", "data/big.csv", "notes.md", "docs/keep.md")
    (root / ".dockerignore").write_text("data/\n*.md\n!docs/keep.md\n")
    assert packed(root) == [".dockerignore", "agent.py", "docs/keep.md"]
