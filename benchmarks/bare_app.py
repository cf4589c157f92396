"""The baseline for `first_screen.py`: a bare Textual app (Header, DataTable, Footer).

Started by the benchmark the way it starts agent-tui (the same Python, in a
pseudo-terminal); its first paint is the first frame with its title in it. ctrl+q quits
(Textual's own binding).

    uv run python benchmarks/bare_app.py            # the app itself (ctrl+q quits)
    uv run python benchmarks/bare_app.py --quick    # started 3 times as first_screen.py does

`--quick` checks the baseline still works as `first_screen.py` needs it to: each start in a
pseudo-terminal paints its title, then its table with both rows, and quits with status 0 on
ctrl+q (exit status 1 if not; 60 s deadline per start). It prints the times to first paint.
Nothing but Textual is imported for the app itself: it is the baseline.
"""

from __future__ import annotations

import sys

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Footer, Header

TITLE = "bare-textual"
QUICK_STARTS = 3


class BareApp(App[None]):
    TITLE = TITLE

    def compose(self) -> ComposeResult:
        yield Header()
        yield DataTable()
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Graph", "Default assistant")
        table.add_rows([("chat", "a1"), ("counter", "a2")])


def quick() -> int:
    """Start the app as `first_screen.py` does, a few times; check what it draws."""
    import os
    import statistics

    from benchkit import deadline
    from first_screen import run_bare_once

    deadline(120)

    def table_drawn(screen: bytes) -> bool:
        header = screen.find(b"Default assistant")
        return header >= 0 and all(screen.find(cell, header) >= 0 for cell in (b"a1", b"a2"))

    env = {**os.environ, "TERM": "xterm-256color"}
    paints = [run_bare_once(env, ready_test=table_drawn) for _ in range(QUICK_STARTS)]
    ms = [paint * 1000 for paint in paints]
    print(
        f"bare Textual app, first paint: best {min(ms):.0f} ms, median"
        f" {statistics.median(ms):.0f} ms ({len(ms)} starts in a pseudo-terminal)"
    )
    print("checked: each start painted its title and both rows, and quit with status 0")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--quick"]:
        sys.exit(quick())
    BareApp().run()
