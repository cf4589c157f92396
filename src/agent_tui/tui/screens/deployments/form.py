"""Create a deployment, or patch one, from a form (bodies built in `deployments/spec.py`).

- New: name, source, the langgraph.json path (default `./langgraph.json`, else the bundled
  demo graphs when the current folder has none; shown resolved
  to an absolute path and checked to exist), optional `source_config` and other
  `source_revision_config` fields as JSON, and secrets as name/value rows whose values are
  masked as typed.
- Patch (`deployment=`): prefilled; name and source cannot change (the spec). Secrets
  show their names only: an empty value keeps the secret. A PATCH replaces the whole
  list, so the list is sent only when a secret changed (see `deployments.spec`).
- Every field is checked before anything is sent; each problem shows under its field
  and the first bad field gets the focus. A server 422 is shown the same way, field by
  field; a 400 (e.g. a source the local control plane does not deploy) or a network
  failure shows above the buttons. Nothing typed is lost.

Dismisses with the created/patched `Deployment`, or None.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Button, Footer, Label, Static

from agent_tui.client import ControlPlaneClient
from agent_tui.client.error_text import nothing_sent
from agent_tui.client.form_errors import Loc
from agent_tui.client.models.control_plane import Deployment
from agent_tui.deployments.spec import (
    BUILDABLE_SOURCES,
    DEFAULT_CONFIG_PATH,
    FIELD_CONFIG_PATH,
    FIELD_NAME,
    FIELD_REVISION_CONFIG,
    FIELD_SOURCE,
    FIELD_SOURCE_CONFIG,
    SOURCES,
    DeploymentDraft,
    DraftInvalid,
    RequestBody,
    check_config_path,
    create_body,
    editable_revision_config,
    editable_source_config,
    field_of_error,
    patch_body,
    secret_field,
    suggested_name,
)
from agent_tui.tui.agent_screen import AgentScreen, refuse_if_readonly
from agent_tui.tui.app_contract import agent_app
from agent_tui.tui.modals.saving_form import SavingForm
from agent_tui.tui.screens.deployments.secret_rows import SecretRowInputs, SecretRows
from agent_tui.tui.widgets.inert import Input, Select, TextArea, editable_json
from agent_tui.tui.widgets.text import server_text

_FIELDS = (FIELD_NAME, FIELD_SOURCE, FIELD_CONFIG_PATH, FIELD_SOURCE_CONFIG, FIELD_REVISION_CONFIG)
LOCAL_ONLY_NOTE = (
    "The local control plane deploys only internal_source (a langgraph.json on this "
    "machine); LangSmith answers for the other sources."
)


class DeploymentFormScreen(SavingForm[RequestBody[Any], Deployment]):
    CSS_PATH = "form.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        *AgentScreen.BINDINGS,
        Binding("escape", "cancel", "Cancel", id="deployment_form.cancel"),
        Binding("ctrl+s", "save", "Save", priority=True, id="deployment_form.save"),
        Binding("ctrl+n", "add_secret", "Add secret", priority=True, id="deployment_form.secret"),
    ]
    SAVE_GROUP = "deployment-save"

    def __init__(
        self,
        client: ControlPlaneClient,
        deployment: Deployment | None = None,
        *,
        cwd: Path | None = None,
    ) -> None:
        """`cwd`: where a relative langgraph.json path starts (the current folder)."""
        super().__init__()
        self.client = client
        self.deployment = deployment
        self.cwd = cwd or Path.cwd()
        self._secret_rows: tuple[int, ...] = ()  # form rows of the secrets last sent

    @property
    def patching(self) -> bool:
        return self.deployment is not None

    # -- layout -------------------------------------------------------------------------

    def _default_config_path(self) -> str:
        """`./langgraph.json` when the current folder has one, else the bundled demo
        graphs (what `agent-tui` serves there), so a first deploy works as it is."""
        from agent_tui.local import default_langgraph_config

        found = default_langgraph_config(self.cwd)
        return (
            DEFAULT_CONFIG_PATH if found == (self.cwd / "langgraph.json").resolve() else str(found)
        )

    def compose(self) -> ComposeResult:
        deployment = self.deployment
        with Vertical(id="form-frame"):
            if deployment is None:
                yield Static("New deployment", id="form-title")
            else:
                yield Static(server_text(f"Edit deployment {deployment.name}"), id="form-title")
            with VerticalScroll(id="form-body"):
                yield Label("Name")
                if deployment is None:
                    name = suggested_name(self.cwd / Path(self._default_config_path()).expanduser())
                    yield Input(name, placeholder="a name for the deployment", id=FIELD_NAME)
                else:
                    yield Static(server_text(deployment.name), id="name-fixed")
                yield from self._problem(FIELD_NAME)
                yield Label("Source")
                if deployment is None:
                    yield Select(
                        [(s, s) for s in SOURCES],
                        allow_blank=False,
                        value=SOURCES[0],
                        id=FIELD_SOURCE,
                    )
                else:
                    yield Static(server_text(deployment.source), id="source-fixed")
                yield Static(LOCAL_ONLY_NOTE, id="source-note", classes="hint")
                yield from self._problem(FIELD_SOURCE)
                yield Label("langgraph.json path", id="config-path-label")
                path = self._default_config_path()
                if deployment is not None:
                    path = deployment.source_revision_config.langgraph_config_path or ""
                yield Input(path, placeholder=DEFAULT_CONFIG_PATH, id=FIELD_CONFIG_PATH)
                yield Static("", id="config-path-hint", classes="hint")
                yield from self._problem(FIELD_CONFIG_PATH)
                yield Label("source_config (JSON object, optional)")
                yield TextArea(
                    _json_text(editable_source_config(deployment)) if deployment else "",
                    id=FIELD_SOURCE_CONFIG,
                    classes="json",
                )
                yield from self._problem(FIELD_SOURCE_CONFIG)
                yield Label("Other source_revision_config fields (JSON object, optional)")
                yield TextArea(
                    _json_text(editable_revision_config(deployment)) if deployment else "",
                    id=FIELD_REVISION_CONFIG,
                    classes="json",
                )
                yield from self._problem(FIELD_REVISION_CONFIG)
                yield Static("Secrets", classes="section")
                if deployment is not None:
                    yield Static(
                        "Values are not shown: leave a value empty to keep it. A change to "
                        "any secret sends the whole list again (kept values included) and "
                        "starts a new revision.",
                        classes="hint",
                    )
                kept = [secret.name for secret in deployment.secrets] if deployment else []
                yield SecretRows(kept, id="secret-rows")
                yield Button("Add secret (ctrl+n)", id="add-secret")
            yield Static(id="form-error")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Save (ctrl+s)", id="save", variant="primary")
        yield Footer()

    @staticmethod
    def _problem(field: str) -> ComposeResult:
        yield Static("", id=f"{field}-problem", classes="field-problem")

    def on_mount(self) -> None:
        for problem in self.query(".field-problem").results(Static):
            problem.display = False
        self.show_error(None)
        self._source_changed_to(self.source)
        self._update_path_hint()
        first = self.query_one(f"#{FIELD_NAME}" if not self.patching else f"#{FIELD_CONFIG_PATH}")
        first.focus()

    @property
    def source(self) -> str:
        if self.deployment is not None:
            return self.deployment.source
        value = self.query_one(f"#{FIELD_SOURCE}", Select).value
        return value if isinstance(value, str) else SOURCES[0]

    # -- live hints ---------------------------------------------------------------------

    @on(Select.Changed, f"#{FIELD_SOURCE}")
    def _source_selected(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self._source_changed_to(event.value)

    def _source_changed_to(self, source: str) -> None:
        self.query_one("#source-note", Static).display = source != "internal_source"
        path = self.query_one(f"#{FIELD_CONFIG_PATH}", Input)
        path.disabled = source not in BUILDABLE_SOURCES
        label = "langgraph.json path"
        if source == "github":
            label += " (in the repository)"
        elif source not in BUILDABLE_SOURCES:
            label += " (not used for this source)"
        self.query_one("#config-path-label", Label).update(label)
        self._update_path_hint()

    @on(Input.Changed, f"#{FIELD_CONFIG_PATH}")
    def _update_path_hint(self) -> None:
        hint = self.query_one("#config-path-hint", Static)
        if self.source != "internal_source":
            hint.display = False
            return
        text = self.query_one(f"#{FIELD_CONFIG_PATH}", Input).value
        path, problem = check_config_path(text, self.cwd)
        hint.display = path is not None
        if path is not None:
            # The problem names the path again: the hint already shows it.
            problem = problem.removeprefix(f"{path} ") if problem else None
            hint.update(server_text(f"→ {path}" + (f" ✗ {problem}" if problem else " ✓")))

    # -- secrets ------------------------------------------------------------------------

    @property
    def secrets(self) -> SecretRows:
        return self.query_one("#secret-rows", SecretRows)

    @property
    def secret_rows(self) -> list[SecretRowInputs]:
        return self.secrets.rows

    @on(Button.Pressed, "#add-secret")
    async def action_add_secret(self) -> None:
        await self.secrets.add()

    # -- saving -------------------------------------------------------------------------

    def draft(self) -> DeploymentDraft:
        """What the form holds now."""
        name = (
            self.deployment.name
            if self.deployment
            else self.query_one(f"#{FIELD_NAME}", Input).value
        )
        return DeploymentDraft(
            name=name,
            source=self.source,
            config_path=self.query_one(f"#{FIELD_CONFIG_PATH}", Input).value,
            source_config_json=self.query_one(f"#{FIELD_SOURCE_CONFIG}", TextArea).text,
            revision_config_json=self.query_one(f"#{FIELD_REVISION_CONFIG}", TextArea).text,
            secrets=self.secrets.values(),
        )

    @property
    def doing(self) -> str:
        return "save the deployment" if self.patching else "create the deployment"

    def _on_local_control_plane(self) -> bool:
        """Whether the form edits the local control plane's deployment (which keeps a
        secret whose masked value is sent back: nothing to type again)."""
        local = agent_app(self.app).local_control_plane
        return (
            local is not None
            and local.port is not None
            and self.client.transport.base_url == local.url.rstrip("/")
        )

    def read_form(self) -> RequestBody[Any] | None:
        what = "edit a deployment" if self.patching else "create a deployment"
        if refuse_if_readonly(self.app, what):
            return None
        draft = self.draft()
        try:
            if self.deployment is None:
                sent: RequestBody[Any] = create_body(draft, self.cwd)
            else:
                sent = patch_body(
                    draft, self.deployment, self.cwd, masks_kept=self._on_local_control_plane()
                )
        except DraftInvalid as invalid:
            self.show_problems(invalid.problems)
            self.show_error(nothing_sent(len(invalid.problems)))
            self.focus_field(invalid.first_field)
            return None
        self.show_problems({})
        if not sent.body:
            self.show_error("Nothing changed: nothing was sent.")
            return None
        return sent

    async def send(self, sent: RequestBody[Any]) -> Deployment:
        self._secret_rows = sent.secret_rows  # what a 422's secret index points at
        if self.deployment is None:
            return await self.client.deployments.create(sent.request)
        return await self.client.deployments.patch(self.deployment.id, sent.request)

    def field_of(self, loc: Loc) -> str | None:
        return field_of_error(loc, self._secret_rows)

    # -- showing problems ---------------------------------------------------------------

    def show_problems(self, problems: dict[str, str]) -> None:
        """Each problem under its field; fields without one are cleared."""
        for field in _FIELDS:
            found = self.query(f"#{field}-problem").results(Static)
            for widget in found:
                widget.update(server_text(problems.get(field, "")))
                widget.display = field in problems
        self.secrets.show_problems(
            [
                "; ".join(
                    problems[key]
                    for key in (secret_field(index, "name"), secret_field(index, "value"))
                    if key in problems
                )
                for index in range(len(self.secret_rows))
            ]
        )

    def focus_field(self, field: str) -> None:
        target: Widget | None = None
        if field.startswith("secret-"):
            _, index, part = field.split("-")
            rows = self.secret_rows
            if int(index) < len(rows):
                row = rows[int(index)]
                target = row.value_input if part == "value" else row.name_input
        else:
            found = self.query(f"#{field}")
            target = found.first() if found else None
        if target is not None and target.focusable:
            target.focus()
            target.scroll_visible()

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


def _json_text(value: dict[str, Any]) -> str:
    return editable_json(value) if value else ""
