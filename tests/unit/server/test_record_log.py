"""`agent_tui.server.record_log`: the runtime's records as a log of what changed. What a
server restarted after a kill reads back is what was saved, whatever came in between."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from agent_tui.server import record_log
from agent_tui.server.record_log import RecordLog, read


def record(n: int) -> dict[str, Any]:
    return {"thread_id": f"t{n}", "status": "idle", "metadata": {"n": n}}


def test_what_is_read_back_is_the_last_save_through_adds_updates_and_deletes(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "ops.saved")
    log = RecordLog(path)
    log.SMALLEST = 4096  # starts over for its size several times
    kept: dict[str, Any] = {"threads": [], "runs": [], "counts": {}}
    pick = random.Random(31)
    for step in range(600):
        name = pick.choice(["threads", "runs"])
        records = kept[name]
        roll = pick.random()
        if roll < 0.5 or not records:
            records.append(record(step))
        elif roll < 0.7:
            pick.choice(records)["status"] = f"s{step}"  # changed in place
        elif roll < 0.8:
            gone = pick.randrange(len(records))  # rebuilt without one, as a delete does
            kept[name] = [r for i, r in enumerate(records) if i != gone]
        elif roll < 0.9:
            i = pick.randrange(len(records))
            records[i] = {**records[i], "status": "replaced"}
        else:
            kept["counts"] = {"n": step}
        log.save(kept)
        if step % 50 == 0:
            assert read(path) == kept
    assert read(path) == kept


def test_a_save_cut_short_by_a_kill_is_left_out(tmp_path: Path) -> None:
    path = str(tmp_path / "ops.saved")
    log = RecordLog(path)
    kept: dict[str, Any] = {"threads": [record(0)]}
    log.save(kept)
    whole = os.path.getsize(path)
    kept["threads"].append(record(1))
    log.save(kept)
    os.truncate(path, os.path.getsize(path) - 3)
    assert read(path) == {"threads": [record(0)]}
    assert os.path.getsize(path) > whole


def test_after_a_failed_write_the_next_save_starts_the_file_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(tmp_path / "ops.saved")
    log = RecordLog(path)
    kept: dict[str, Any] = {"threads": [record(0)], "runs": [record(9)]}
    log.save(kept)
    real_write = record_log._write

    def half_then_full_disk(descriptor: int, data: Any) -> int:
        real_write(descriptor, bytes(data[: len(data) // 2]))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(record_log, "_write", half_then_full_disk)
    kept["threads"].append(record(1))
    del kept["runs"]
    with pytest.raises(OSError):
        log.save(kept)
    monkeypatch.setattr(record_log, "_write", real_write)
    kept["threads"].append(record(2))
    log.save(kept)
    assert read(path) == {"threads": [record(0), record(1), record(2)]}


def flip(path: str, offset: int) -> None:
    with open(path, "r+b") as file:
        file.seek(offset)
        byte = file.read(1)
        file.seek(offset)
        file.write(bytes([byte[0] ^ 0xFF]))


def test_a_damaged_byte_costs_the_record_it_hit_and_says_so(tmp_path: Path) -> None:
    path = str(tmp_path / "ops.saved")
    log = RecordLog(path)
    kept: dict[str, Any] = {"threads": [record(n) for n in range(40)], "counts": {"n": 1}}
    log.save(kept)  # the first save: every record
    first = os.path.getsize(path)
    kept["threads"].append(record(40))
    log.save(kept)
    flip(path, first // 2)  # inside one record of the first save
    recovered = record_log.recover(path)
    assert len(recovered.damaged) == 1
    assert recovered.missing == 1
    threads = recovered.mapping["threads"]
    assert len(threads) == 40 and record(40) in threads
    assert recovered.mapping["counts"] == {"n": 1}


def test_a_damaged_end_of_the_last_save_keeps_that_save(tmp_path: Path) -> None:
    path = str(tmp_path / "ops.saved")
    log = RecordLog(path)
    kept: dict[str, Any] = {"threads": [record(0)]}
    log.save(kept)
    kept["threads"].append(record(1))
    log.save(kept)
    flip(path, os.path.getsize(path) - 2)  # the last save's end marker
    recovered = record_log.recover(path)
    assert recovered.damaged
    assert recovered.mapping == kept
