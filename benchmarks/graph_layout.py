"""Graph drawing: time to lay out and draw generated graphs (`agent_tui.graph_drawing`).

    uv run python benchmarks/graph_layout.py           # 9 reps; checks 200 nodes < 100 ms
    uv run python benchmarks/graph_layout.py --reps 3  # a shorter look
    uv run python benchmarks/graph_layout.py --quick   # 2 reps, checked, no time limit

No server, no UI: the graphs are generated (`tests/support/drawings.py`): a chain of 20, a
fan-out of 40 (one node to 40 conditional branches and back), random graphs of 50 and 200
nodes (each node reached from one of the six before it, a third more forward edges, some
conditional, some long, and back edges: loops). Figures (best and median of --reps):

- layout: `layout(graph)` — cycle breaking, layering, crossing reduction, x placement,
  routing: what opening a graph costs;
- draw: `render(layout)` — the characters of a layout already made: what a redraw costs
  (a node lit or dimmed, the same layout);
- the drawing's size in cells, its edge crossings (`┼`) and the crossings counted over the
  ordered layers (`graph_drawing.layers.crossings`: edges between neighbouring layers, long
  ones through their dummy slots, loops out to the side);
- crossings of seeded graphs: random graphs of 20, 50 and 200 nodes (seeds 0-9, a loop per
  20 nodes), counted and drawn, summed over the seeds.

Checked (exit status 1 if not), every graph, both forms (full and compact): every node has
a box, no two boxes overlap, no edge runs through a box, every edge starts below its source
and ends in an arrowhead above its target, conditional edges are dashed; the chain and the
fan-out have no crossing. Without --quick, also: the 200-node graph's layout takes under
100 ms (best of --reps).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' harness: the `tests` package

from agent_tui.graph_drawing import Graph, layout, render  # noqa: E402
from agent_tui.graph_drawing.layers import crossings, rank  # noqa: E402
from benchkit import add_options, arm, check  # noqa: E402
from tests.support.drawings import chain, check_drawing, fan_out, random_graph  # noqa: E402

QUICK_REPS = 2
BUDGET_MS = 100.0  # the 200-node graph's layout
SEEDS = range(10)
CROSSING_FREE = ("chain of 20", "fan-out of 40")


def graphs() -> dict[str, Graph]:
    return {
        "chain of 20": chain(20),
        "fan-out of 40": fan_out(40),
        "50 nodes, 4 loops": random_graph(50, seed=1, loops=4),
        "200 nodes, 10 loops": random_graph(200, seed=3, loops=10),
    }


def timed(reps: int, work: Callable[[], Any]) -> tuple[float, float, Any]:
    times = []
    result = None
    for _ in range(reps):
        started = time.perf_counter()
        result = work()
        times.append((time.perf_counter() - started) * 1e3)
    return min(times), statistics.median(times), result


def seeded_crossings() -> None:
    print(
        f"\n  {'seeded graphs':<22}{'graphs':>8}{'counted':>9}{'drawn':>7}{'layers':>8}{'dummies':>9}"
    )
    for nodes in (20, 50, 200):
        counted = drawn = layers = dummies = 0
        for seed in SEEDS:
            graph = random_graph(nodes, seed=seed, loops=nodes // 20)
            ranked = rank(graph)
            counted += crossings(ranked)
            drawn += render(layout(graph)).count("┼")
            layers += len(ranked.layers)
            dummies += sum(not isinstance(slot, str) for layer in ranked.layers for slot in layer)
        name = f"{nodes} nodes, {nodes // 20} loop(s)"
        print(f"  {name:<22}{len(SEEDS):>8}{counted:>9}{drawn:>7}{layers:>8}{dummies:>9}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=9)
    add_options(parser, quick=120, full=600)
    args = parser.parse_args()
    arm(args)
    reps = QUICK_REPS if args.quick else args.reps
    header = f"  {'graph':<22}{'form':<9}{'layout ms':>11}{'med':>8}{'draw ms':>10}{'med':>8}"
    print(header + f"{'cells':>12}{'crossings':>11}{'counted':>9}")
    best_200 = 0.0
    for name, graph in graphs().items():
        for compact in (False, True):
            try:
                check_drawing(graph, compact=compact)
                check_drawing(graph, compact=compact, ascii=True)
            except AssertionError as error:
                check(False, f"{name} ({'compact' if compact else 'full'}): {error}")
            best, median, placed = timed(reps, partial(layout, graph, compact=compact))
            draw_best, draw_median, text = timed(reps, partial(render, placed))
            if name.startswith("200") and not compact:
                best_200 = best
            form = "compact" if compact else "full"
            cells = f"{placed.width}x{placed.height}"
            drawn, counted = text.count("┼"), crossings(rank(graph))
            print(
                f"  {name:<22}{form:<9}{best:>11.1f}{median:>8.1f}{draw_best:>10.1f}"
                f"{draw_median:>8.1f}{cells:>12}{drawn:>11}{counted:>9}"
            )
            if name in CROSSING_FREE:
                check(drawn == counted == 0, f"{name} ({form}): {drawn} crossings")
    seeded_crossings()
    if not args.quick:
        check(best_200 < BUDGET_MS, f"200 nodes: layout {best_200:.1f} ms, over {BUDGET_MS:g}")
        print(f"  200-node layout {best_200:.1f} ms: under {BUDGET_MS:g} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
