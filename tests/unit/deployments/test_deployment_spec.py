"""The deployment form's request bodies: what is sent, what is refused, and why."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.client.models.control_plane import Deployment
from agent_tui.deployments.spec import (
    FIELD_CONFIG_PATH,
    FIELD_NAME,
    FIELD_REVISION_CONFIG,
    FIELD_SOURCE_CONFIG,
    DeploymentDraft,
    DraftInvalid,
    SecretRow,
    create_body,
    field_of_error,
    patch_body,
    secret_field,
    suggested_name,
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "langgraph.json").write_text('{"graphs": {}}')
    return tmp_path


def deployment(config: Path, secrets: list[dict[str, str]] | None = None) -> Deployment:
    return Deployment.model_validate(
        {
            "id": "d1",
            "name": "app",
            "source": "internal_source",
            "source_config": {"custom_url": "http://127.0.0.1:1", "build_command": "make"},
            "source_revision_config": {"langgraph_config_path": str(config)},
            "secrets": secrets if secrets is not None else [{"name": "KEY", "value": "v1"}],
        }
    )


def test_create_resolves_the_default_config_path_and_sends_secrets(project: Path) -> None:
    draft = DeploymentDraft(
        name=" app ",
        source_config_json='{"build_command": "make"}',
        secrets=[SecretRow("KEY", "v1"), SecretRow(), SecretRow("OTHER", "v2")],
    )
    sent = create_body(draft, project)
    assert sent.body == {
        "name": "app",
        "source": "internal_source",
        "source_config": {"build_command": "make"},
        "source_revision_config": {"langgraph_config_path": str(project / "langgraph.json")},
        "secrets": [{"name": "KEY", "value": "v1"}, {"name": "OTHER", "value": "v2"}],
    }
    assert sent.secret_rows == (0, 2)  # a 422 on secrets[1] belongs to the third row
    assert field_of_error(["body", "secrets", 1, "value"], sent.secret_rows) == secret_field(
        2, "value"
    )


def test_create_lists_every_problem_in_form_order(tmp_path: Path) -> None:
    draft = DeploymentDraft(
        name="  ",
        config_path="missing.json",
        revision_config_json="[1]",
        secrets=[SecretRow("", "x"), SecretRow("A", "")],
    )
    with pytest.raises(DraftInvalid) as raised:
        create_body(draft, tmp_path)
    problems = raised.value.problems
    assert list(problems) == [
        FIELD_NAME,
        FIELD_CONFIG_PATH,
        FIELD_REVISION_CONFIG,
        secret_field(0, "name"),
        secret_field(1, "value"),
    ]
    assert str(tmp_path / "missing.json") in problems[FIELD_CONFIG_PATH]
    assert raised.value.first_field == FIELD_NAME


def test_other_sources_send_no_local_config_path(tmp_path: Path) -> None:
    sent = create_body(DeploymentDraft(name="x", source="external_docker"), tmp_path)
    assert sent.body["source_revision_config"] == {}


def test_patch_with_nothing_changed_sends_nothing(project: Path) -> None:
    current = deployment(project / "langgraph.json")
    draft = DeploymentDraft(
        config_path=str(project / "langgraph.json"),
        source_config_json='{"build_command": "make"}',
        secrets=[SecretRow("KEY", "", original="KEY")],
    )
    assert patch_body(draft, current, project).body == {}


def test_patch_adding_a_secret_keeps_the_others_and_sends_only_changes(project: Path) -> None:
    current = deployment(project / "langgraph.json")
    draft = DeploymentDraft(
        config_path=str(project / "langgraph.json"),
        source_config_json='{"build_command": "make all"}',
        secrets=[SecretRow("KEY", "", original="KEY"), SecretRow("NEW", "n")],
    )
    assert patch_body(draft, current, project).body == {
        "source_config": {"build_command": "make all"},
        "secrets": [{"name": "KEY", "value": "v1"}, {"name": "NEW", "value": "n"}],
    }


def test_patch_removing_a_secret_sends_the_rest(project: Path) -> None:
    current = deployment(
        project / "langgraph.json", [{"name": "A", "value": "a"}, {"name": "B", "value": "b"}]
    )
    draft = DeploymentDraft(
        config_path=str(project / "langgraph.json"), secrets=[SecretRow("B", "", "B")]
    )
    assert patch_body(draft, current, project).body == {"secrets": [{"name": "B", "value": "b"}]}


def test_patch_asks_again_for_values_the_server_does_not_return(project: Path) -> None:
    current = deployment(project / "langgraph.json", [{"name": "A", "value": "****"}])
    draft = DeploymentDraft(
        config_path=str(project / "langgraph.json"),
        secrets=[SecretRow("A", "", "A"), SecretRow("B", "b")],
    )
    with pytest.raises(DraftInvalid) as raised:
        patch_body(draft, current, project)
    assert "type the value of A again" in raised.value.problems[secret_field(0, "value")]
    # A server that keeps a value sent back masked (the local control plane): sent as read.
    sent = patch_body(draft, current, project, masks_kept=True).body
    assert sent == {"secrets": [{"name": "A", "value": "****"}, {"name": "B", "value": "b"}]}


def test_patch_with_a_new_config_path_makes_it_absolute(project: Path) -> None:
    other = project / "other"
    other.mkdir()
    (other / "langgraph.json").write_text("{}")
    current = deployment(project / "langgraph.json")
    draft = DeploymentDraft(
        config_path="other",
        source_config_json='{"build_command": "make"}',
        secrets=[SecretRow("KEY", "", "KEY")],
    )
    assert patch_body(draft, current, project).body == {
        "source_revision_config": {"langgraph_config_path": str(other / "langgraph.json")}
    }


def test_server_error_locations_map_to_fields() -> None:
    assert field_of_error(["body", "name"]) == FIELD_NAME
    assert field_of_error(["body", "source_config", "integration_id"]) == FIELD_SOURCE_CONFIG
    assert field_of_error(["body", "source_revision_config", "langgraph_config_path"]) == (
        FIELD_CONFIG_PATH
    )
    assert field_of_error(["body"]) is None
    assert field_of_error(["query", "limit"]) is None


def test_a_first_deployment_is_named_after_its_project_folder(tmp_path: Path) -> None:
    assert suggested_name(tmp_path / "My Agent_v2" / "langgraph.json") == "my-agent-v2"
    assert suggested_name(tmp_path / "Support Bot") == "support-bot"  # a folder given
    assert suggested_name(Path("/langgraph.json")) == "agent"  # nothing to go by


def test_what_the_request_model_refuses_is_shown_under_its_field_before_sending(
    project: Path,
) -> None:
    # The same model the client sends and the local control plane checks.
    draft = DeploymentDraft(name="app", source_config_json='{"resource_spec": {"cpu": 100}}')
    with pytest.raises(DraftInvalid) as invalid:
        create_body(draft, project)
    assert list(invalid.value.problems) == [FIELD_SOURCE_CONFIG]
    assert "less than or equal to 8" in invalid.value.problems[FIELD_SOURCE_CONFIG]
    current = deployment(project / "langgraph.json")
    edit = DeploymentDraft(
        config_path=str(project / "langgraph.json"),
        source_config_json='{"build_command": "make", "deployment_type": "huge"}',
        secrets=[SecretRow("KEY", "", original="KEY")],
    )
    with pytest.raises(DraftInvalid) as invalid:
        patch_body(edit, current, project)
    assert list(invalid.value.problems) == [FIELD_SOURCE_CONFIG]
