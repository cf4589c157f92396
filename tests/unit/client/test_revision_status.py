"""One list of revision statuses: the client, the local control plane and the progress
screen read the same enum, and it still equals the text the server sends."""

from __future__ import annotations

import json

from agent_tui.client.models.control_plane import (
    FAILED_REVISION_STATUSES,
    PENDING_REVISION_STATUSES,
    REVISION_STATUSES,
    REVISION_STEPS,
    TERMINAL_REVISION_STATUSES,
    Revision,
    RevisionStatus,
)


def test_a_status_equals_the_servers_text() -> None:
    assert RevisionStatus.BUILD_FAILED == "BUILD_FAILED"
    assert "DEPLOYED" in TERMINAL_REVISION_STATUSES
    assert json.dumps({"status": RevisionStatus.DEPLOYED}) == '{"status": "DEPLOYED"}'


def test_every_status_is_pending_or_final_except_unknown() -> None:
    pending, final = PENDING_REVISION_STATUSES, TERMINAL_REVISION_STATUSES
    assert not pending & final
    assert set(REVISION_STATUSES) - pending - final == {"UNKNOWN"}
    assert FAILED_REVISION_STATUSES.issubset(final)
    assert REVISION_STEPS[-1] == RevisionStatus.DEPLOYED


def test_a_revision_reads_its_status() -> None:
    failed = Revision.model_validate({"id": "r", "status": "BUILD_FAILED"})
    assert failed.failed and failed.is_terminal
    newer = Revision.model_validate({"id": "r", "status": "SOMETHING_NEW"})
    assert newer.status == "SOMETHING_NEW" and not newer.is_terminal
