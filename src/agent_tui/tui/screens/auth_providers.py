"""OAuth providers of the control plane (`/v2/auth/providers`): list, create, delete.

The shared verbs (`resource_screen.py`): `y` the raw JSON (any secret-looking field
masked, though the spec's response has no client secret), `ctrl+d` delete after a
confirmation, `n` a new provider (`ProviderFormScreen`: the client secret masked as
typed; each field a server 422 names shows its message under it; what was typed stays).
Route `:providers` (alias `:auth-providers`); the client is the current context's
control plane (`app.get_control_plane()`), or the one given.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, Checkbox, Footer, Label, Static

from agent_tui.client import ApiError, ControlPlaneClient
from agent_tui.client.error_text import nothing_sent
from agent_tui.client.form_errors import Loc, body_loc
from agent_tui.client.models.control_plane import OAuthProvider
from agent_tui.text.time_text import utc_seconds
from agent_tui.tui.agent_screen import AgentScreen, refuse_if_readonly
from agent_tui.tui.modals.saving_form import SavingForm
from agent_tui.tui.resource_screen import ResourceScreen
from agent_tui.tui.widgets.inert import Input, Select
from agent_tui.tui.widgets.resource_table import Column
from agent_tui.tui.widgets.text import server_text

MASK = "••••••"
_SECRET_WORDS = ("secret", "password", "api_key", "access_token", "refresh_token")
PROVIDER_TYPES = ("microsoft", "salesforce", "slack")
AUTH_METHODS = ("client_secret_post", "client_secret_basic", "none")  # the spec's default first
REQUIRED = ("provider_id", "name", "client_id", "auth_url", "token_url")


def mask_secrets(value: Any) -> Any:
    """`value` with every secret-looking field's value replaced by a mask (nested too)."""
    if isinstance(value, dict):
        return {
            key: MASK
            if isinstance(key, str)
            and any(word in key.lower() for word in _SECRET_WORDS)
            and item not in (None, "")
            else mask_secrets(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [mask_secrets(item) for item in value]
    return value


def provider_columns() -> list[Column[OAuthProvider]]:
    return [
        Column("provider_id", "Provider id", lambda p: server_text(p.provider_id)),
        Column("name", "Name", lambda p: server_text(p.name)),
        Column("type", "Type", lambda p: server_text(p.provider_type or "custom"), width=10),
        Column("client_id", "Client id", lambda p: server_text(p.client_id or "—")),
        Column("pkce", "PKCE", lambda p: "yes" if p.uses_pkce else "no", width=4),
        Column("auth", "Token auth", lambda p: server_text(p.token_endpoint_auth_method or "—")),
        Column("updated", "Updated (UTC)", lambda p: utc_seconds(p.updated_at), width=19),
    ]


class AuthProvidersScreen(ResourceScreen[OAuthProvider]):
    RESOURCE = "OAuth provider"
    RESOURCES = "OAuth providers"
    EMPTY_HINT = "none yet: n adds one"
    VERBS = frozenset({"new", "delete"})

    def __init__(self, client: ControlPlaneClient | None = None) -> None:
        super().__init__()
        self.client = client
        self._loaded: list[OAuthProvider] = []  # the list is not paged: pages cut from it
        self._select_after_load: str | None = None

    async def control_plane(self) -> ControlPlaneClient:
        if self.client is None:
            self.client = await self.agent_app.get_control_plane()
        return self.client

    def columns(self) -> Sequence[Column[OAuthProvider]]:
        return provider_columns()

    def item_id(self, item: OAuthProvider) -> str:
        return item.provider_id

    def describe(self, item: OAuthProvider) -> str:
        return f"OAuth provider {item.provider_id} ({item.name})"

    async def fetch_page(self, offset: int, limit: int) -> Sequence[OAuthProvider]:
        if offset == 0:
            client = await self.control_plane()
            self._loaded = await client.auth_providers.list()
        return self._loaded[offset : offset + limit]

    def raw_json(self, item: OAuthProvider) -> Any:
        return mask_secrets(item.raw())

    async def delete_item(self, item: OAuthProvider) -> None:
        client = await self.control_plane()
        await client.auth_providers.delete(item.provider_id)

    def new_item(self) -> None:
        self._open_form()

    @work(group="providers-form", exit_on_error=False)
    async def _open_form(self) -> None:
        try:
            client = await self.control_plane()
        except ApiError as error:
            self.report_error(error, doing="open the control plane")
            return
        created = await self.app.push_screen_wait(ProviderFormScreen(client))
        if created is not None:
            self.notify(f"Created OAuth provider {created.provider_id}", markup=False)
            self._select_after_load = created.provider_id
            self.reload()

    def update_heading(self) -> None:
        super().update_heading()
        if self._select_after_load and self.table.move_to(self._select_after_load):
            self._select_after_load = None


class ProviderFormScreen(SavingForm[dict[str, Any], OAuthProvider]):
    """A new OAuth provider (`OAuthProviderCreateRequest`); dismisses with it, or None."""

    CSS_PATH = "auth_providers.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        *AgentScreen.BINDINGS,
        Binding("escape", "cancel", "Cancel", id="provider_form.cancel"),
        Binding("ctrl+s", "save", "Save", priority=True, id="provider_form.save"),
    ]
    SAVE_GROUP = "provider-save"
    ERROR_LINE = "#provider-error"
    doing = "create the OAuth provider"
    _LABELS: ClassVar[dict[str, str]] = {
        "provider_id": "Provider id (letters, digits, _ . -)",
        "name": "Name",
        "client_id": "Client id",
        "client_secret": "Client secret (optional, never shown again)",
        "auth_url": "Authorization URL",
        "token_url": "Token URL",
        "code_challenge_method": "Code challenge method",
    }

    def __init__(self, client: ControlPlaneClient) -> None:
        super().__init__()
        self.client = client

    def compose(self) -> ComposeResult:
        with Vertical(id="provider-frame"):
            yield Static("New OAuth provider", id="provider-title")
            with VerticalScroll(id="provider-body"):
                for field, label in self._LABELS.items():
                    yield Label(Content(label))
                    yield Input(
                        "S256" if field == "code_challenge_method" else "",
                        password=field == "client_secret",
                        placeholder="https://…" if field.endswith("_url") else "",
                        id=field,
                    )
                    yield Static("", id=f"{field}-problem", classes="field-problem")
                yield Checkbox("Uses PKCE", id="uses_pkce")
                yield Label("Provider type")
                yield Select([(t, t) for t in PROVIDER_TYPES], prompt="custom", id="provider_type")
                yield Static("", id="provider_type-problem", classes="field-problem")
                yield Label("Token endpoint auth method")
                yield Select(
                    [(m, m) for m in AUTH_METHODS],
                    allow_blank=False,
                    value=AUTH_METHODS[0],
                    id="token_endpoint_auth_method",
                )
                yield Static("", id="token_endpoint_auth_method-problem", classes="field-problem")
            yield Static(id="provider-error")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Create (ctrl+s)", id="save", variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        self.show_problems({})
        self.show_error(None)
        self.query_one("#provider_id", Input).focus()

    def body(self) -> dict[str, Any]:
        values = {field: self.query_one(f"#{field}", Input).value for field in self._LABELS}
        body: dict[str, Any] = {k: v.strip() for k, v in values.items() if k != "client_secret"}
        body["client_secret"] = values["client_secret"] or None
        body["uses_pkce"] = self.query_one("#uses_pkce", Checkbox).value
        kind = self.query_one("#provider_type", Select).value
        body["provider_type"] = kind if isinstance(kind, str) else None
        method = self.query_one("#token_endpoint_auth_method", Select).value
        body["token_endpoint_auth_method"] = method if isinstance(method, str) else None
        body["code_challenge_method"] = body["code_challenge_method"] or None
        return body

    def read_form(self) -> dict[str, Any] | None:
        if refuse_if_readonly(self.app, "create an OAuth provider"):
            return None
        body = self.body()
        problems = {field: "required" for field in REQUIRED if not body[field]}
        for field in ("auth_url", "token_url"):
            if body[field] and not body[field].startswith(("https://", "http://")):
                problems[field] = "must be an http(s) URL"
        self.show_problems(problems)
        if problems:
            self.show_error(nothing_sent(len(problems)))
            self.focus_field(next(iter(problems)))
            return None
        return body

    async def send(self, body: dict[str, Any]) -> OAuthProvider:
        return await self.client.auth_providers.create(
            body.pop("provider_id"),
            body.pop("name"),
            body.pop("client_id"),
            body.pop("auth_url"),
            body.pop("token_url"),
            **body,
        )

    def field_of(self, loc: Loc) -> str | None:
        field = next(iter(body_loc(loc)), "")
        return field if field and self.query(f"#{field}-problem") else None

    def show_problems(self, problems: dict[str, str]) -> None:
        for widget in self.query(".field-problem").results(Static):
            field = (widget.id or "").removesuffix("-problem")
            widget.update(server_text(problems.get(field, "")))
            widget.display = field in problems

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


def providers_screen(app: App[Any], argument: str | None) -> Screen[Any]:
    """`:providers` (alias `:auth-providers`)."""
    return AuthProvidersScreen()
