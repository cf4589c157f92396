"""Reading a project's files: only regular files, never more than a limit.

A config or ``.env`` path can name ``/dev/zero`` (endless), a FIFO (blocks until written)
or a huge file; reading one must end at once with the reason.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from agent_tui.local.langgraph_config import LangGraphConfigError, load_langgraph_config
from agent_tui.local.project_files import ProjectFileError, read_project_file

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="FIFOs, /dev/zero"),
    pytest.mark.timeout(20),  # a blocked read shows as a timeout
]


def test_special_and_large_files_are_refused_with_the_reason(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    cases = {
        Path("/dev/zero"): "a character device",
        fifo: "a named pipe",
        tmp_path: "a folder",
        big: "larger than 100 bytes",
    }
    for path, reason in cases.items():
        with pytest.raises(ProjectFileError) as error:
            read_project_file(path, limit=100)
        assert reason in str(error.value) and isinstance(error.value, OSError)
    assert read_project_file(big, limit=101) == b"x" * 101


def test_a_config_that_is_a_fifo_or_names_one_as_env_does_not_block(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(LangGraphConfigError, match="not read: it is a named pipe"):
        load_langgraph_config(fifo)

    config = tmp_path / "langgraph.json"
    config.write_text(json.dumps({"graphs": {"g": "./g.py:graph"}, "env": "/dev/zero"}))
    loaded = load_langgraph_config(config)
    assert loaded.env == {}
    assert any("/dev/zero was not read: it is a character device" in w for w in loaded.warnings)
    assert loaded.env_file == Path("/dev/zero")  # live reload watches it, reads nothing


def test_an_env_file_that_is_not_utf8_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / ".env").write_bytes(b"KEY=\xff\n")
    config = tmp_path / "langgraph.json"
    config.write_text(json.dumps({"graphs": {"g": "./g.py:graph"}, "env": ".env"}))
    loaded = load_langgraph_config(config)
    assert loaded.env == {}
    assert any("it is not UTF-8" in w for w in loaded.warnings)


def test_a_config_nested_too_deeply_is_a_config_error(tmp_path: Path) -> None:
    config = tmp_path / "langgraph.json"
    config.write_text("[" * 100_000)
    with pytest.raises(LangGraphConfigError, match="nested too deeply"):
        load_langgraph_config(config)
