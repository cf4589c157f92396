"""Revision diffs and secret masking: names compared and shown, values never."""

from __future__ import annotations

from typing import Any

from agent_tui.client.models.control_plane import Deployment, Revision
from agent_tui.deployments.control_plane_access import control_plane_access
from agent_tui.deployments.revision_diff import diff_revisions, predecessor
from agent_tui.deployments.secrets import MASK, mask_secrets, secret_names
from agent_tui.settings.contexts import Context
from agent_tui.settings.target import LocalServer, RemoteServer

VALUE = "s3cr3t-value-never-shown"


def revision(rid: str, minute: int, **config: Any) -> Revision:
    return Revision.model_validate(
        {
            "id": rid,
            "status": "DEPLOYED",
            "created_at": f"2026-01-01T10:{minute:02d}:00Z",
            "source_revision_config": config,
        }
    )


def deployment(latest: str, secrets: list[dict[str, str]]) -> Deployment:
    return Deployment.model_validate(
        {
            "id": "d1",
            "name": "demo",
            "source": "internal_source",
            "latest_revision_id": latest,
            "secrets": secrets,
        }
    )


def test_config_change_and_secret_names_added_and_removed() -> None:
    old = revision("r1", 1, langgraph_config_path="/a/langgraph.json").model_copy(
        update={"secrets": [{"name": "OLD", "value": VALUE}, {"name": "KEPT", "value": VALUE}]}
    )
    new = revision("r2", 2, langgraph_config_path="/b/langgraph.json")
    dep = deployment("r2", [{"name": "KEPT", "value": VALUE}, {"name": "NEW", "value": VALUE}])

    diff = diff_revisions(new, old, dep)  # given newest first: still shown oldest first

    assert diff.old.id == "r1" and diff.new.id == "r2"
    assert [c.key for c in diff.config_changes] == ["langgraph_config_path"]
    assert (diff.secrets_added, diff.secrets_removed, diff.secrets_kept) == (
        ["NEW"],
        ["OLD"],
        ["KEPT"],
    )
    text = "\n".join(diff.lines())
    assert "+ NEW" in text and "- OLD" in text and "values not shown" in text
    assert '"/a/langgraph.json" → "/b/langgraph.json"' in text
    assert VALUE not in text


def test_unknown_secret_names_are_said_to_be_unknown() -> None:
    old, new = revision("r1", 1, image_uri="x"), revision("r2", 2, image_uri="x")
    diff = diff_revisions(old, new, deployment("r2", [{"name": "ONLY", "value": VALUE}]))
    assert not diff.secrets_known
    assert diff.config_changes == []
    text = "\n".join(diff.lines())
    assert "does not say" in text and "ONLY" in text and "(no changes)" in text
    assert VALUE not in text


def test_predecessor_in_a_newest_first_list() -> None:
    revs = [revision("r3", 3), revision("r2", 2), revision("r1", 1)]
    assert predecessor(revs, "r3") is revs[1]
    assert predecessor(revs, "r1") is None
    assert predecessor(revs, "nope") is None


def test_mask_secrets_at_any_depth_keeps_names() -> None:
    data: dict[str, Any] = {
        "name": "demo",
        "secrets": [{"name": "A", "value": VALUE}, VALUE],
        "nested": [{"secrets": [{"name": "B", "value": VALUE}]}],
    }
    masked = mask_secrets(data)
    assert VALUE not in repr(masked)
    assert masked["secrets"][0] == {"name": "A", "value": MASK}
    assert masked["nested"][0]["secrets"][0]["name"] == "B"
    assert data["secrets"][0]["value"] == VALUE  # a copy: the original is untouched
    assert secret_names(data["secrets"][:1]) == ["A"]


def test_control_plane_access_key_and_tenant() -> None:
    remote = Context("cloud", RemoteServer("https://x", "ctx-key", "ws"), "x", "https://cp")
    assert control_plane_access(remote, {}).api_key == "ctx-key"
    env = {"AGENT_TUI_CONTROL_PLANE_KEY": "env-key"}
    access = control_plane_access(remote, env)
    assert (access.url, access.api_key, access.tenant_id) == ("https://cp", "env-key", "ws")
    assert "env-key" not in repr(access)
    local = control_plane_access(Context.of_target(LocalServer()), {})
    assert local.is_local and local.api_key is None
