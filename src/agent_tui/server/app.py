"""The Starlette app langgraph-api's ``http.app`` setting names (``agent_tui.server.app:app``).

langgraph-api imports it once its config is set, inside the server, before its runtime
loads its files, puts its middleware outside (or, with ``middleware_order: auth_first``,
inside the authentication of) every route, and runs its lifespan after its own start. It
has the middleware and lifespan of `records`; no routes of its own.

A project that names its own ``http.app`` keeps it: `durable_options` moves the project's
setting to ``AGENT_TUI_PROJECT_APP``, and the app served is the project's, loaded as
langgraph-api loads one (``path/to/file.py:name`` or ``package.module:name``), with our
middleware first in its list and our lifespan around its own (public Starlette API).
"""

from __future__ import annotations

import functools
import os

from starlette.applications import Starlette
from starlette.middleware import Middleware

from agent_tui.server import graph_files, upstream
from agent_tui.server.names import PROJECT_APP, VOLATILE
from agent_tui.server.project_app import load_project_app
from agent_tui.server.records import SAVER, SaveBeforeAnswer, lifespan, restore
from agent_tui.server.run_wakeup import WAKEUP, WakeOnRun


def durable(served: Starlette) -> Starlette:
    """``served`` with `SaveBeforeAnswer` first (then `WakeOnRun`) and `records.lifespan`
    around its own."""
    served.user_middleware[:0] = [Middleware(SaveBeforeAnswer), Middleware(WakeOnRun)]
    served.router.lifespan_context = functools.partial(lifespan, own=served.router.lifespan_context)
    return served


if _gone := upstream.missing_after_start():
    raise RuntimeError(f"langgraph-api changed: {', '.join(_gone)} not found")
upstream.wake_queue_on(WAKEUP.wait)
# Before the lifespan loads the graphs: a file several graphs name runs once (or not at
# all, when a standby ran it ahead).
upstream.share_graph_files(graph_files.PRELOADED)
if os.environ.get(VOLATILE) == "1":
    app = Starlette(middleware=[Middleware(WakeOnRun)])
else:
    restore(early=False)
    upstream.after_each_run(SAVER.soon_from_any_thread)
    _project = os.environ.get(PROJECT_APP)
    app = durable(load_project_app(_project) if _project else Starlette())
