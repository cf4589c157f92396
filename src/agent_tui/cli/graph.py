"""`agent-tui graph ASSISTANT_OR_GRAPH`: an assistant's graph drawn as boxes and arrows
(`graph_drawing`), as a Mermaid flowchart (`--mermaid`), or its layout as JSON (`--json`).

`--expand SUBGRAPH` draws that subgraph's nodes and every other subgraph as one node.
The assistant resolves as for `agent-tui run`: an assistant id, else a graph name (its
default assistant). Node names come from the server: they are cleaned when drawn and
in the Mermaid labels, and escaped in the JSON.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from agent_tui.cli.common import EXIT_OK, UsageError, assistant_named, print_json, run, say

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient


async def _run_target(client: AgentServerClient, name: str) -> str:
    return (await assistant_named(client, name)).assistant_id


async def _any_assistant(client: AgentServerClient, name: str) -> str:
    from agent_tui.assistants.lookup import find_assistant

    return (await find_assistant(client, name)).assistant_id


def graph_command(args: argparse.Namespace) -> int:
    return _graph(args, _run_target)


def assistant_graph_command(args: argparse.Namespace) -> int:
    """`assistants graph ASSISTANT`: ASSISTANT read as the other assistants commands read
    it (a name too)."""
    return _graph(args, _any_assistant)


def _graph(
    args: argparse.Namespace, find: Callable[[AgentServerClient, str], Awaitable[str]]
) -> int:
    from agent_tui.graph_drawing import (
        collapse,
        draw,
        graph_from_server,
        layout,
        layout_json,
        mermaid,
        subgraphs,
    )

    async def work(client: AgentServerClient) -> int:
        assistant_id = await find(client, args.assistant)
        xray = args.xray or bool(args.expand)
        served = await client.assistants.get_graph(assistant_id, xray=xray)
        graph = graph_from_server(served)
        if args.expand and not args.xray:
            unknown = sorted(set(args.expand) - set(subgraphs(graph)))
            if unknown:
                shown = ", ".join(subgraphs(graph)) or "none"
                raise UsageError(
                    f"--expand: no subgraph {', '.join(unknown)} (its subgraphs: {shown})"
                )
            graph = collapse(graph, args.expand)
        if args.mermaid:
            say(mermaid(graph))
        elif args.json:
            print_json(layout_json(layout(graph, compact=args.compact)))
        else:
            say(draw(graph, compact=args.compact, ascii=args.ascii))
        return EXIT_OK

    return run(args, work)
