"""Short ids keep the part that tells neighbours apart: the end of time-ordered ids,
the start of random ones."""

from __future__ import annotations

from agent_tui.text.short_ids import short_checkpoint_id, short_random_id, short_thread_id


def test_a_thread_id_keeps_its_random_end() -> None:
    # Two threads made in the same second share the start of their (v7) ids.
    assert short_thread_id("01a1ff0e-d1df-776e-8402-fe649dee15cc") == "…9dee15cc"
    assert short_thread_id("01a1ff0e-d1df-776e-8402-fe649dee15cd") == "…9dee15cd"
    assert short_thread_id("abc") == "abc"


def test_a_checkpoint_id_keeps_its_last_eight_hex_digits() -> None:
    assert short_checkpoint_id("1f1e5c97-bee5-6c56-8002-85f812d969e1") == "12d969e1"
    assert short_checkpoint_id(None) == "—"


def test_a_random_id_keeps_its_start() -> None:
    assert short_random_id("3f2a9c01-5b6d-4e7f-8a9b-0c1d2e3f4a5b") == "3f2a9c01"
    assert short_random_id(None) == "—"
