"""The live graph pane's redraw: a run's marks painted on a drawing already laid out
(`tui/widgets/graph_paint.paint`), as each node starts and ends.

    uv run python benchmarks/graph_marks.py           # 9 reps; checks 200 nodes < 16 ms
    uv run python benchmarks/graph_marks.py --quick   # 2 reps, checked, no time limit

No server: the graphs are the generated ones of `graph_layout.py` (`tests/support/
drawings.py`), laid out once. A redraw (a node lit, another one numbered) paints the
layout again with the new marks — the drawing's characters, the marks in the borders and
the styles as one Rich `Text`. The figure is the time of one such redraw: under one frame
(16 ms at 60 fps) for the 200-node graph, checked without --quick.

Checked (exit status 1 if not), every graph: the node lit shows `▶` on its top border,
every node that ran its order (`✓n`), a breakpoint `●`, and the drawing keeps its shape
(the same lines, of the same length, as the plain drawing).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' harness: the `tests` package

from agent_tui.graph_drawing import Graph, Layout, layout, render  # noqa: E402
from agent_tui.graph_drawing.live import NodeMarks, NodeRun  # noqa: E402
from agent_tui.tui.widgets.graph_paint import paint  # noqa: E402
from benchkit import add_options, arm, check  # noqa: E402
from tests.support.drawings import chain, fan_out, random_graph  # noqa: E402

QUICK_REPS = 2
BUDGET_MS = 16.0  # one frame at 60 fps: the 200-node redraw


def graphs() -> dict[str, Graph]:
    return {
        "chain of 20": chain(20),
        "fan-out of 40": fan_out(40),
        "50 nodes, 4 loops": random_graph(50, seed=1, loops=4),
        "200 nodes, 10 loops": random_graph(200, seed=3, loops=10),
    }


def marks_at(placed: Layout, step: int) -> NodeMarks:
    """The run `step` nodes in: those before it ran, that one runs, a breakpoint after."""
    nodes = [box.node for box in placed.boxes.values() if not box.small]
    ran = {node: NodeRun(order + 1, 0.25) for order, node in enumerate(nodes[:step])}
    return NodeMarks(
        running=frozenset(nodes[step : step + 1]),
        ran=ran,
        before=frozenset(nodes[step + 1 : step + 2]),
    )


def checked(name: str, placed: Layout) -> None:
    plain = render(placed).splitlines()
    step = min(3, len(placed.boxes) - 3)
    text = paint(placed, marks_at(placed, step)).plain.splitlines()
    check([len(line) for line in text] == [len(line) for line in plain], f"{name}: reshaped")
    shown = "\n".join(text)
    check("▶" in shown and "●" in shown, f"{name}: the lit node or the breakpoint not shown")
    check(all(f"✓{n}" in shown for n in range(1, step + 1)), f"{name}: an order not shown")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=9)
    add_options(parser, quick=120, full=600)
    args = parser.parse_args()
    arm(args)
    reps = QUICK_REPS if args.quick else args.reps
    print(f"  {'graph':<22}{'redraw ms':>11}{'med':>8}{'cells':>12}")
    best_200 = 0.0
    for name, graph in graphs().items():
        placed = layout(graph)
        checked(name, placed)
        times = []
        for rep in range(reps):
            marks = marks_at(placed, rep % 5)
            started = time.perf_counter()
            paint(placed, marks, selected=next(iter(placed.boxes)))
            times.append((time.perf_counter() - started) * 1e3)
        best, median = min(times), statistics.median(times)
        if name.startswith("200"):
            best_200 = best
        cells = f"{placed.width}x{placed.height}"
        print(f"  {name:<22}{best:>11.1f}{median:>8.1f}{cells:>12}")
    if not args.quick:
        check(best_200 < BUDGET_MS, f"200 nodes: redraw {best_200:.1f} ms, over {BUDGET_MS:g}")
        print(f"  200-node redraw {best_200:.1f} ms: under {BUDGET_MS:g} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
