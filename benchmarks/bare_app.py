"""The baseline for `first_screen.py`: a bare Textual app (Header, DataTable, Footer).

Started by the benchmark the way it starts agent-tui (the same Python, in a
pseudo-terminal); its first paint is the first frame with its title in it. ctrl+q quits
(Textual's own binding).
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Footer, Header

TITLE = "bare-textual"


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


if __name__ == "__main__":
    BareApp().run()
