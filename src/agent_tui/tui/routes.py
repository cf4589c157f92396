"""Screens by name, for `:` commands, the palette and `app.open_resource(name, arg)`.

A route names a factory `factory(app, argument) -> Screen` as "module:attribute", so
the screen modules load only when first opened (start-up stays fast), and a module
that does not exist yet makes the route "not available yet" instead of an error.

Owners of a screen either keep the entry below pointing at their factory, or call
`register(Route(...))` at import time of a module the app imports.

    def threads_screen(app: AgentTuiApp, argument: str | None) -> Screen[Any]: ...
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.app import App
from textual.screen import Screen

# `factory(app, argument, **options)`: `options` are keywords a screen passes when it opens
# another through the route (its client, which tab) — what a command line cannot carry.
ScreenFactory = Callable[..., Screen[Any]]


class RouteUnavailable(Exception):
    """The route's screen is not built (yet), or its argument is wrong; a factory raises
    it with a message for the user (shown as it is)."""


@dataclass(frozen=True, slots=True)
class Route:
    name: str  # the command word: `:threads`
    help: str  # one line for the palette and the completion list
    target: str | ScreenFactory  # "module:attribute" or the factory itself
    argument: str | None = None  # e.g. "id" when the command takes one (`:thread <id>`)
    drill_down: bool = False  # True: opens on top of the current screen; else from home
    # False for control plane screens: they work while the agent server is unreachable.
    needs_agent_server: bool = True
    # True: the argument is a thread id, which may be given as the short form the tables
    # show; it is resolved to the full id before the factory runs (`threads/lookup.py`).
    takes_thread_id: bool = False

    def factory(self) -> ScreenFactory:
        if not isinstance(self.target, str):
            return self.target
        module_name, _, attribute = self.target.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name != module_name:
                raise  # a real bug inside the module, not a missing screen
            raise RouteUnavailable(f"The {self.name} screen is not available yet") from None
        factory = getattr(module, attribute, None)
        if factory is None:
            raise RouteUnavailable(f"The {self.name} screen is not available yet")
        result: ScreenFactory = factory
        return result


_ROUTES: dict[str, Route] = {}
_ALIASES: dict[str, str] = {}


def register(route: Route, *aliases: str) -> None:
    """Add or replace a route; `aliases` are other command words for it."""
    _ROUTES[route.name] = route
    for alias in aliases:
        _ALIASES[alias] = route.name


def get(name: str) -> Route | None:
    name = _ALIASES.get(name, name)
    return _ROUTES.get(name)


def routes() -> list[Route]:
    return list(_ROUTES.values())


def build(app: App[Any], name: str, argument: str | None = None, **options: Any) -> Screen[Any]:
    """The screen of route `name`, for a screen that opens another area's screen: by name,
    so that screens never import each other (and the module loads only now)."""
    route = get(name)
    if route is None:
        raise RouteUnavailable(f"No screen called {name!r}")
    return route.factory()(app, argument, **options)


def names() -> list[str]:
    """Every command word, aliases included."""
    return [*_ROUTES, *_ALIASES]


register(
    Route(
        "assistants",
        "Assistants of this server",
        "agent_tui.tui.screens.assistants.list:assistants_screen",
    ),
    "a",
)
register(
    Route("threads", "Threads of this server", "agent_tui.tui.screens.threads.list:threads_screen"),
    "t",
)
register(
    Route(
        "thread",
        "Open one thread by id (the thread view: history, diff, fork, replay)",
        "agent_tui.tui.screens.thread_view.route:thread_view_screen",
        argument="id",
        drill_down=True,
        takes_thread_id=True,
    )
)
register(
    Route(
        "runs",
        "The runs of one thread (status, duration, join, cancel)",
        "agent_tui.tui.screens.thread_runs:thread_runs_screen",
        argument="id",
        drill_down=True,
        takes_thread_id=True,
    )
)
register(
    Route(
        "attention",
        "Threads needing attention (interrupted or error)",
        "agent_tui.tui.screens.threads.attention:attention_screen",
    ),
    "queue",
)
register(
    Route(
        "store",
        "The Store (long-term memory) by namespace (:store users.u1 opens under a prefix)",
        "agent_tui.tui.screens.store.browser:store_screen",
    ),
    "memory",
)
register(
    Route("info", "Server info and graphs (home)", "agent_tui.tui.screens.server_info:info_screen"),
    "home",
)
register(
    Route(
        "deployments",
        "Deployments on the control plane (the local one when the context names none)",
        "agent_tui.tui.screens.deployments.list:deployments_screen",
        needs_agent_server=False,
    ),
    "deploy",
)
register(
    Route(
        "providers",
        "OAuth providers on the control plane (list, create, delete)",
        "agent_tui.tui.screens.auth_providers:providers_screen",
        needs_agent_server=False,
    ),
    "auth-providers",
)
register(
    Route(
        "datasets",
        "Datasets kept on this machine: examples with references, for experiments",
        "agent_tui.tui.screens.datasets.list:datasets_screen",
        needs_agent_server=False,
    ),
)
register(
    Route(
        "experiments",
        "Saved experiments: assistant versions side by side, pass rates, regressions",
        "agent_tui.tui.screens.experiments.list:experiments_screen",
        needs_agent_server=False,
    ),
    "exp",
)
register(
    Route(
        "crons",
        "Cron jobs: runs on a schedule (next run, create, enable, delete)",
        "agent_tui.tui.screens.crons.list:crons_screen",
        # `:crons <thread id>`: that thread's crons (the argument is optional).
        takes_thread_id=True,
    ),
    "cron",
)
