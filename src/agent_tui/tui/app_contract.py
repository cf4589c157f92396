"""What screens, modals and widgets may ask of the app: the one typed interface to it.

`shell.ShellApp` implements all of it, with defaults for an app that is not connected
(no agent server client, no control plane: asking for one is a clear error);
`app.AgentTuiApp` overrides what it owns (clients, contexts, the control plane). Test
harnesses subclass `ShellApp`, so they answer the same questions as the app.

Screens reach the app as `self.agent_app` (`AgentScreen`); widgets, modals, route
factories and the palette as `agent_app(self.app)`. Textual types `self.app` as a bare
`App`; this is where it becomes ours.

Headless: no Textual import, so the helpers below the UI may name the contract too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast, runtime_checkable

if TYPE_CHECKING:
    from textual.signal import Signal

    from agent_tui.assistants.context_overrides import ContextOverrides
    from agent_tui.client import AgentServerClient, ControlPlaneClient
    from agent_tui.local.control_plane import LocalControlPlane
    from agent_tui.settings.contexts import Context
    from agent_tui.traces.untraced import ServerTracing
    from agent_tui.tui.selection import Selection


@runtime_checkable
class AgentApp(Protocol):
    """The app as its screens see it."""

    # -- where we are -----------------------------------------------------------------

    @property
    def client(self) -> AgentServerClient | None:
        """The current agent server's client; None until connected."""

    @property
    def selection(self) -> Selection:
        """The context > deployment > assistant > thread trail the header shows."""

    @property
    def connection_status(self) -> str:
        """What the header says about the connection ("connected · URL", "offline"…)."""

    @property
    def context(self) -> Context | None:
        """The context the app runs on; None in an app without contexts."""

    @property
    def context_overrides(self) -> ContextOverrides:
        """Run-level contexts for assistants whose server record kept the wrong one."""

    @property
    def graphs_changed(self) -> Signal[None]:
        """Published when the server's graphs may have changed (a live reload)."""

    # -- read-only mode and errors ----------------------------------------------------

    @property
    def readonly(self) -> bool: ...

    def refuse_if_readonly(self, what: str) -> bool:
        """True (after telling the user why) when read-only mode forbids `what`."""

    def report_error(self, error: BaseException, *, doing: str | None = None) -> None:
        """Tell the user what went wrong, in the app's one format."""

    def note_online(self) -> None:
        """A request just worked: the header stops saying offline."""

    def note_offline(self, url: str) -> None:
        """A request could not reach `url`: the header says offline."""

    # -- navigation and commands ------------------------------------------------------

    async def open_resource(self, name: str, argument: str | None = None) -> bool:
        """Open the screen of route `name`; False (after saying why) if it cannot."""

    async def run_command(self, text: str) -> bool:
        """Run one `:` command line."""

    def command_words(self) -> list[str]: ...

    def command_arguments(self) -> dict[str, list[str]]: ...

    def context_names(self) -> list[str]: ...

    def action_command_mode(self) -> None: ...

    # -- the control plane and other servers ------------------------------------------

    @property
    def control_plane_description(self) -> str:
        """Which control plane answers ("local control plane (…) · URL"); "" before."""

    @property
    def local_control_plane(self) -> LocalControlPlane | None:
        """The control plane this app started on this machine, if it did."""

    async def get_control_plane(self) -> ControlPlaneClient:
        """The current context's control plane client; `ApiError` when there is none."""

    @property
    def server_tracing(self) -> ServerTracing:
        """Whether the current server's runs are traced to this machine's store."""

    def open_server_context(
        self,
        name: str,
        url: str,
        api_key: str | None = None,
        *,
        workspace_id: str | None = None,
        deployment: str | None = None,
        then: str = "assistants",
        headers: tuple[tuple[str, str], ...] = (),
    ) -> None:
        """Switch to the agent server at `url` (a deployment's) and open `then` there."""


# App classes already checked: a structural check reads every member (~0.1 ms), and
# the header asks on every repaint.
_checked: set[type] = set()


def agent_app(app: object) -> AgentApp:
    """`app` (a widget's `self.app`) as the contract; a clear error for an app that is
    not one (a test harness must subclass `ShellApp`)."""
    if type(app) not in _checked:
        if not isinstance(app, AgentApp):
            raise TypeError(f"{type(app).__name__} is not an agent-tui app (subclass ShellApp)")
        _checked.add(type(app))
    return cast("AgentApp", app)
