"""Live reload: an edit to the project restarts its server, threads kept.

`reloader.LiveReload` drives one server (`supervisor`): `watcher.ProjectWatcher` reports
each burst of changes, `graph_check` imports the graphs in a child process first, so a
broken edit leaves the running server alone, and `record` tells other copies of agent-tui
attached to the server about each reload. `broken_start` does the same for a project
whose server never started: it says where the graphs break and watches until a save
fixes them.
"""
