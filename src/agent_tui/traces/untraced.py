"""Why a server's runs have no traces here, in words a user can act on: what the Calls tab
says instead of an empty table.

Whether a server traces to this machine is known to whoever started it: the app knows
when it started the server itself (`LocalSession.server_tracing`), and a local control
plane notes it of each deployment it starts (`control_plane.deployment_tracing`); of any
other server it knows nothing, and says how to make it trace here.
"""

from __future__ import annotations

from typing import Literal

ServerTracing = Literal["traced", "tracing-off", "own-settings", "not-started-here"]
"""How the current server's runs reach this machine's trace store:

- ``traced``: agent-tui (or its local control plane) started it tracing to its collector;
- ``tracing-off``: agent-tui started it with tracing off (config, variable, flag);
- ``own-settings``: agent-tui started it, but the project sets its own ``LANGSMITH_*``
  (in its ``env``; a deployment's secrets count too);
- ``not-started-here``: another server (``langgraph dev``, a remote or cloud one).
"""

HOW_TO_TRACE_HERE = (
    "To trace its runs here, start it with LANGSMITH_TRACING=true,"
    " LANGSMITH_ENDPOINT=<the collector's URL> and LANGSMITH_API_KEY=<its key>"
    " (`agent-tui traces serve` runs the collector and prints both), or stream a run with"
    " the chat's live calls (f5, the `events` stream mode) to see its calls as they happen."
)


def why_no_traces(tracing: ServerTracing) -> str:
    """Why the runs of a thread on a server whose tracing is ``tracing`` have no traces
    in this machine's store."""
    if tracing == "not-started-here":
        return (
            "This server was not started by agent-tui, so its runs were not traced here. "
            + HOW_TO_TRACE_HERE
        )
    if tracing == "tracing-off":
        return (
            "agent-tui started this server with tracing off ([traces] enabled = false,"
            " AGENT_TUI_TRACES=0 or --no-traces), so its runs were not traced here."
        )
    if tracing == "own-settings":
        return (
            "The project sets its own LANGSMITH_* variables (in its langgraph.json env, or"
            " a deployment's secrets), so this server sends its traces where those say,"
            " not here."
        )
    return (
        "No run of this thread was traced here: its runs ran before tracing was on, on"
        " another server, or were pruned ([traces] max_size_mb bounds the store)."
    )
