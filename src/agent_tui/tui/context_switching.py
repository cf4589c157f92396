"""Choosing the app's context: `:ctx NAME`, the context picker, and a deployment's
agent server opened from the deployment screens (an ad hoc context).

`AgentTuiApp` (`tui/app.py`) does the switch itself (`_switch_to`: the old context's
screens go, the start-up screen connects again); this layer finds the context to switch to
and says why when there is none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.settings.target import LOCAL_CONTEXT, RemoteServer
from agent_tui.tui.shell import ShellApp

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from textual.app import SystemCommand
    from textual.screen import Screen

    from agent_tui.settings.config import AgentTuiConfig
    from agent_tui.settings.contexts import Context


class ContextSwitching(ShellApp):
    """The app's context choices; `_switch_to` is the app's."""

    config: AgentTuiConfig | None
    context: Context
    _after_connect: tuple[str, dict[str, str | None]] | None

    def _switch_to(self, context: Context) -> None:
        raise NotImplementedError

    def context_names(self) -> list[str]:
        # No config file was read at start (there was none): `local` is the one there is.
        return super().context_names() or [LOCAL_CONTEXT]

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        from textual.app import SystemCommand

        yield from super().get_system_commands(screen)
        yield SystemCommand(
            "Contexts", "Pick the context (agent server) to connect to", self.action_pick_context
        )

    def switch_context(self, name: str) -> bool:
        """Connect to the config file's context `name` (`:ctx NAME`, the context picker).

        The file is read again, so a context added with `agent-tui config set-context`
        while the app runs is there. False (after saying why) if it cannot be used.
        """
        from agent_tui.settings.config import ConfigError, load_config
        from agent_tui.settings.context_headers import header_secrets
        from agent_tui.settings.contexts import ContextError, resolve_context
        from agent_tui.settings.logs import add_secret

        try:
            config = load_config()
            context = resolve_context(config, name)
        except (ConfigError, ContextError) as error:
            self.notify(
                str(error),
                title="Cannot switch context",
                severity="error",
                markup=False,
                timeout=10,
            )
            return False
        self.config = config
        add_secret(context.target.api_key)
        if isinstance(context.target, RemoteServer):
            for secret in header_secrets(context.target.headers):
                add_secret(secret)
        self._switch_to(context)
        return True

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
        """Make the agent server at `url` the current context and open `then` (a route)
        once connected: a deployment's server, from the deployment screens.

        The context is ad hoc (not saved): named `name`, with the current context's
        control plane and read-only reason. The breadcrumb keeps the current context's
        name and adds `deployment`.
        """
        from agent_tui.settings.contexts import Context
        from agent_tui.settings.logs import add_secret

        previous = self.context
        shown = {"context": self.selection.context or previous.name, "deployment": deployment}
        context = Context(
            name,
            RemoteServer(url, api_key, workspace_id, headers),
            key_source="the control plane's key" if api_key else "none",
            control_plane_url=previous.control_plane_url,
            readonly_reason=previous.readonly_reason,
        )
        add_secret(api_key)
        self._switch_to(context)
        self.selection.update(**shown)
        self._after_connect = (then, shown)

    def action_pick_context(self) -> None:
        """Open the context picker (palette: "Contexts")."""
        from agent_tui.settings.config import ConfigError, config_path, load_config
        from agent_tui.settings.contexts import summarize_contexts
        from agent_tui.tui.screens.context_picker import ContextPickerScreen

        try:
            config = load_config()
        except ConfigError as error:
            self.notify(str(error), title="Bad config file", severity="error", markup=False)
            return
        self.config = config
        rows = summarize_contexts(config, current=self.context.name)

        def picked(name: str | None) -> None:
            if name is not None:
                self.switch_context(name)

        self.push_screen(ContextPickerScreen(rows, config_path()), picked)
