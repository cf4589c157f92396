"""The agent-server process: langgraph-api's in-memory runtime, made durable through its
public settings. Everything here runs inside the server child only (``python -m
agent_tui.server.main``); nothing else in agent-tui imports it (an import contract checks).
See docs/architecture.md.

- `main`: the entry point (arguments, the parent's lifeline, ``run_server``);
- `checkpointer`: the ``checkpointer`` setting, langgraph's SQLite saver plus the methods
  langgraph-api recommends beyond it (`one_thread` keeps it off the event loop);
- `store`: the ``store`` setting, langgraph's `AsyncSqliteStore`;
- `records`, `record_table`, `app`: the runtime's own records (threads, runs, assistants,
  crons) saved before an answer acknowledges them, through the ``http.app`` setting, as
  rows of ``records.db`` (`project_app` loads a project's own ``http.app``; `run_wakeup`
  starts runs at once);
- `damage`: damaged databases rebuilt from their readable rows, or moved aside;
- `upstream`: every private name of langgraph-api or its runtime this package touches;
- `supported`: the langgraph-api releases it runs on.
"""
