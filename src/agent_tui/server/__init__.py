"""PROTOTYPE (issue 31, not wired into the app): the agent-server process on langgraph-api's
public hooks. Everything here runs inside the server child only; see docs/durability-plan.md.

- `checkpointer`: the ``checkpointer`` setting, langgraph's `AsyncSqliteSaver` plus the
  methods langgraph-api recommends beyond it;
- `store`: the ``store`` setting, langgraph's `AsyncSqliteStore`;
- `records`: the runtime's own records (threads, runs, assistants, crons) saved before an
  answer acknowledges them, through the ``http.app`` setting (an ASGI middleware);
- `upstream`: every private name of langgraph-api or its runtime this package touches;
- `main`: ``python -m agent_tui.server.main``, what `local/server_process.py` does today.
"""
