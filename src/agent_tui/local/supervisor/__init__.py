"""The server supervisor: one agent-server child process per project, started and ended.

`embedded_server.EmbeddedAgentServer` starts ``python -m agent_tui.server.main`` (the
agent-server process, `agent_tui.server`) and stops it, restarts it for a live reload,
and prepares a prewarmed standby for that restart; `launch` builds its command
line, socket and signals; `lock` keeps one server per data folder and tells other
copies where it runs; `log` keeps its output; `readiness` waits for
``/ok``; `errors` says why a server is not there.

It imports neither the project's environment (`project_env`: it is given the interpreter
to run) nor live reload, which drives it from above.
"""
