"""The local trace collector: LangSmith's ingestion API, as the `langsmith` SDK calls it,
on this machine (`app`: routes; `bodies`: what the requests carry; `server`: running
it). What it receives goes to `agent_tui.traces.store`."""

from agent_tui.local.trace_collector.server import TraceCollector, default_folder

__all__ = ["TraceCollector", "default_folder"]
