"""Traces of model and tool calls, kept on this machine.

The `langsmith` SDK in an agent server (or any LangChain program) sends its run trees to
agent-tui's local collector (`agent_tui.local.trace_collector`), which writes them here:

- `store`: the SQLite file (one row a run, pieces merged in any order, bounded);
- `redaction`: what is never stored (keys, authorization headers, tokens);
- `run_fields`: where a run keeps its model, tokens, node, thread and times;
- `query`: traces by thread or run, one run with its children, its model and tool calls;
- `calls`: a thread's or run's calls from the store's columns alone (a calls list);
- `totals`: a run's calls, tokens, model time against wall time, cost from configured prices;
- `transfer`: a thread's traces in its export file, and back under new ids;
- `live_calls`: the same calls read live from a run's ``events`` stream mode, for a server
  whose runs are not traced here;
- `run_view`: one run as lines of text and as JSON (`agent-tui traces show`).

Headless: the CLI (`agent-tui traces …`) and the UI read through `query`.
"""
