"""The arguments of `agent-tui graph`; the command itself is `graph.py`.

Imported whenever `agent-tui` builds its parser (see `commands.py`), so it imports nothing
but argparse and `common`.
"""

from __future__ import annotations

import argparse

from agent_tui.cli.common import add_connection_options


def graph_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "assistant", metavar="ASSISTANT_OR_GRAPH", help="an assistant id or a graph name"
    )
    parser.add_argument(
        "--xray", action="store_true", help="draw the subgraphs' nodes inside their parents"
    )
    parser.add_argument(
        "--expand",
        metavar="SUBGRAPH",
        action="append",
        default=[],
        help="draw this subgraph's nodes, the others as one node each (repeat for more)",
    )
    parser.add_argument(
        "--compact", action="store_true", help="each box just its name: a narrower drawing"
    )
    parser.add_argument("--ascii", action="store_true", help="plain ASCII, no box drawing")
    form = parser.add_mutually_exclusive_group()
    form.add_argument(
        "--mermaid", action="store_true", help="print a Mermaid flowchart instead (for docs)"
    )
    form.add_argument(
        "--json",
        action="store_true",
        help="print the nodes and edges with their layout as JSON (stable keys)",
    )
    add_connection_options(parser, json_flag=False)
