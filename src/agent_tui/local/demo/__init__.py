"""Demo graphs bundled with agent-tui, served by the embedded agent server.

``langgraph.json`` beside this file lists them: ``chat`` (see `agent_tui.local.demo.chat`)
and ``counter`` (see `agent_tui.local.demo.counter`). Importing this package does not
import LangGraph; only the server process loads the graph modules.
"""
