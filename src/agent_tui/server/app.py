"""PROTOTYPE. The Starlette app langgraph-api's ``http.app`` setting names
(``agent_tui.server.app:app``): no routes of its own, only the middleware and lifespan of
`records`. langgraph-api imports it once its config is set, inside the server."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.middleware import Middleware

from agent_tui.server import upstream
from agent_tui.server.records import SAVER, WAKEUP, SaveBeforeAnswer, lifespan, restore

PATH = "agent_tui.server.app:app"

_gone = upstream.missing_after_start()
if _gone:
    raise RuntimeError(f"langgraph-api changed: {', '.join(_gone)} not found")
restore(upstream.runtime_files())
upstream.around_each_run(SAVER.soon_from_any_thread)
upstream.wake_queue_on(WAKEUP)

app = Starlette(middleware=[Middleware(SaveBeforeAnswer)], lifespan=lifespan)
