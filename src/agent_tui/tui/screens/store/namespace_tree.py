"""The Store's namespaces as a `Tree`: one node per prefix, nested by depth.

Node data is the prefix (a tuple of labels); the root is the whole Store (or the prefix
`:store PREFIX` opened on). Labels are `Text` built from `server_text`: a label from the
server is never markup. `note_items(prefix, count, more)` adds how many items a prefix
holds once they are loaded (a count needs a search per node, so only loaded ones show).
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from agent_tui.client.models.memory import Namespace, dotted
from agent_tui.store.tree import PrefixNode
from agent_tui.tui.widgets.text import server_text

AUTO_EXPAND_DEPTH = 2  # levels open from the start; deeper ones open with space/enter


class NamespaceTree(Tree[Namespace]):
    DEFAULT_CSS = """
    NamespaceTree { width: 32; height: 1fr; border-right: solid $primary 40%; }
    """

    def __init__(self, root_label: str, root: Namespace = (), *, id: str | None = None) -> None:
        super().__init__(Text(root_label, style="bold"), data=root, id=id)
        self._by_prefix: dict[Namespace, TreeNode[Namespace]] = {}
        self._counts: dict[Namespace, str] = {}
        self.root_label = root_label

    def show(self, top: PrefixNode, *, root_label: str | None = None) -> None:
        """Draw the prefixes under `top` (the cursor stays on the same prefix if it is there)."""
        selected = self.cursor_node.data if self.cursor_node is not None else None
        self.clear()
        self._by_prefix = {top.prefix: self.root}
        self.root.data = top.prefix
        if root_label is not None:
            self.root_label = root_label
        self._relabel(self.root)
        pending = [(self.root, top)]
        while pending:  # breadth-first: no recursion however deep the namespaces go
            parent, node = pending.pop(0)
            for child in node.children.values():
                depth = len(child.prefix) - len(top.prefix)
                expand = depth < AUTO_EXPAND_DEPTH
                if child.children:
                    added = parent.add(Text(), data=child.prefix, expand=expand)
                else:
                    added = parent.add_leaf(Text(), data=child.prefix)
                self._by_prefix[child.prefix] = added
                self._relabel(added)
                pending.append((added, child))
        self.root.expand()
        if selected is not None:
            self.select_prefix(selected)

    def node_for(self, prefix: Namespace) -> TreeNode[Namespace] | None:
        return self._by_prefix.get(prefix)

    def select_prefix(self, prefix: Namespace) -> bool:
        """The cursor on `prefix`, or on its nearest ancestor still drawn (a namespace whose
        last item went is gone from the server); False when it fell back."""
        for depth in range(len(prefix), -1, -1):
            node = self._by_prefix.get(prefix[:depth])
            if node is not None:
                self.move_cursor(node)
                return depth == len(prefix)
        return False

    def note_items(self, prefix: Namespace, count: int, *, more: bool) -> None:
        """Show how many items `prefix` holds (`12+` when there are more than loaded)."""
        self._counts[prefix] = f"{count}+" if more else str(count)
        node = self._by_prefix.get(prefix)
        if node is not None:
            self._relabel(node)

    def _relabel(self, node: TreeNode[Namespace]) -> None:
        prefix = node.data or ()
        if node is self.root:
            label = Text(self.root_label, style="bold")
        else:
            # One line: the Tree shows a label's first line only (a label with a newline
            # or a carriage return would lose the rest).
            label = Text(" ").join(server_text(prefix[-1] if prefix else "").split())
        count = self._counts.get(prefix)
        if count is not None:
            label.append(f"  {count}", style="dim")
        node.set_label(label)

    def describe(self, prefix: Namespace) -> str:
        return dotted(prefix) or self.root_label
