"""The set-latest check and the app's registry of run-level contexts (no server)."""

from __future__ import annotations

from agent_tui.assistants.context_overrides import ContextOverrides
from agent_tui.assistants.versions import remember, version_check
from agent_tui.client.models import Assistant, AssistantVersion

ID = "5f0c0000-0000-4000-8000-000000000001"


def test_a_mismatch_is_recorded_and_runs_get_a_copy_of_the_versions_context() -> None:
    # What the in-memory runtime answers after set_latest(1): version 1, version 2's context.
    assistant = Assistant(assistant_id=ID, graph_id="counter", version=1, context={"step": 3})
    active = AssistantVersion(
        assistant_id=ID, graph_id="counter", version=1, context={"step": 10, "double": False}
    )
    check = version_check(assistant, active)
    assert check.mismatch
    assert [str(change) for change in check.changes] == ["~ step: 3 → 10", "+ double = false"]
    assert "Runs started by agent-tui will pass version 1's context" in check.warning()

    overrides = ContextOverrides()
    remember(check, overrides)
    assert ID in overrides and len(overrides) == 1
    run_context = overrides.context_for_run(ID)
    assert run_context == {"step": 10, "double": False}
    run_context["step"] = 99  # a caller's change does not leak into the registry
    assert overrides.context_for_run(ID) == {"step": 10, "double": False}
    assert overrides.context_for_run("another") is None


def test_a_match_clears_the_override() -> None:
    overrides = ContextOverrides()
    overrides.record(ID, 1, {"step": 10})
    assistant = Assistant(assistant_id=ID, graph_id="counter", version=2, context={"step": 3})
    active = AssistantVersion(assistant_id=ID, graph_id="counter", version=2, context={"step": 3})
    check = version_check(assistant, active)
    assert not check.mismatch and check.warning() == ""
    remember(check, overrides)
    assert overrides.context_for_run(ID) is None
