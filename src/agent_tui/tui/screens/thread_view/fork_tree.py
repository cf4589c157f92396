"""The fork tree: a thread's loaded checkpoints by parent id, drawn as a `Tree`.

A straight run of checkpoints is drawn as siblings, oldest first (a 1,000-step thread is
a flat list, not 1,000 levels deep). Where a checkpoint has more than one child — a fork
(`update_state` at a checkpoint) or a replay — the oldest child carries on at the same
level and each newer one opens a branch under it: `branch at step N`. Node data is the
checkpoint id; selecting a node posts `ForkTree.Jump`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from agent_tui.threads.history import HistoryRow
from agent_tui.tui.widgets.text import server_text


def tree_label(row: HistoryRow, *, current: bool = False, short_id: str | None = None) -> Text:
    step = "—" if row.step is None else str(row.step)
    text = Text(f"step {step:>3} ", style="bold")
    text.append_text(server_text(f"{row.source or '?':<6} "))
    text.append_text(server_text(row.wrote or "", style="green"))
    if row.next:
        text.append_text(server_text(f" → {', '.join(row.next)}", style="dim"))
    if row.interrupts:
        text.append(" interrupt", style="bold magenta")
    text.append_text(server_text(f"  {short_id or row.short_id}", style="dim"))
    if current:
        text.append("  ◀", style="bold cyan")
    return text


class ForkTree(Tree[str]):
    """The lineage of a thread's checkpoints. `branches` counts the forks drawn."""

    DEFAULT_CSS = """
    ForkTree { height: 1fr; }
    """

    class Jump(Message):
        """The user picked a checkpoint in the tree."""

        def __init__(self, checkpoint_id: str) -> None:
            super().__init__()
            self.checkpoint_id = checkpoint_id

    def __init__(
        self, *, short_id: Callable[[HistoryRow], str] | None = None, id: str | None = None
    ) -> None:
        super().__init__(Text("checkpoints", style="bold"), id=id)
        self.show_root = False
        self.branches = 0
        self._short_id = short_id
        self._by_checkpoint: dict[str, TreeNode[str]] = {}

    def build(self, rows: Sequence[HistoryRow], current: str | None = None) -> None:
        """Draw `rows` (any order); `current` is the selected checkpoint, marked ◀. The
        cursor goes to it, unless the user is moving in the tree: then it stays on the
        checkpoint it was on (the status poll redraws the tree when the thread changes)."""
        cursor = self.cursor_node
        keep = cursor.data if self.has_focus and cursor is not None else None
        self.clear()
        self._by_checkpoint.clear()
        self.branches = 0
        by_id = {row.checkpoint_id: row for row in rows}
        children: dict[str, list[HistoryRow]] = {}
        roots: list[HistoryRow] = []
        for row in rows:
            parent = row.parent_checkpoint_id
            if parent and parent in by_id:
                children.setdefault(parent, []).append(row)
            else:
                roots.append(row)
        for siblings in children.values():
            siblings.sort(key=lambda r: r.checkpoint_id)  # ids are time-ordered
        roots.sort(key=lambda r: r.checkpoint_id)
        if len(roots) > 1 or (roots and roots[0].parent_checkpoint_id):
            self.root.add_leaf(Text("… older checkpoints not loaded", style="dim"))
        for root in roots:
            self._chain(self.root, root, children, current)
        self.root.expand()
        target = keep if keep in self._by_checkpoint else current
        if target and target in self._by_checkpoint:
            # A node knows its line once the tree has laid its lines out, which reading
            # `last_line` does: before, the cursor went to the first line.
            _ = self.last_line
            self.move_cursor(self._by_checkpoint[target])

    def _chain(
        self,
        under: TreeNode[str],
        start: HistoryRow,
        children: dict[str, list[HistoryRow]],
        current: str | None,
    ) -> None:
        # Iterative along a branch, recursive only into forks: no deep recursion.
        row: HistoryRow | None = start
        while row is not None:
            label = tree_label(
                row,
                current=row.checkpoint_id == current,
                short_id=self._short_id(row) if self._short_id else None,
            )
            kids = children.get(row.checkpoint_id, [])
            if len(kids) > 1:
                node = under.add(label, data=row.checkpoint_id, expand=True)
                for fork in kids[1:]:
                    self.branches += 1
                    step = "—" if row.step is None else str(row.step)
                    branch = node.add(
                        Text(f"branch at step {step}", style="bold magenta"),
                        data=fork.checkpoint_id,
                        expand=True,
                    )
                    self._chain(branch, fork, children, current)
            else:
                node = under.add_leaf(label, data=row.checkpoint_id)
            self._by_checkpoint[row.checkpoint_id] = node
            row = kids[0] if kids else None

    def node_for(self, checkpoint_id: str) -> TreeNode[str] | None:
        return self._by_checkpoint.get(checkpoint_id)

    def on_tree_node_selected(self, event: Tree.NodeSelected[str]) -> None:
        event.stop()
        if event.node.data:
            self.post_message(self.Jump(event.node.data))
