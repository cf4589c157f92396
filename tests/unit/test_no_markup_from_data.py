"""One rule for every widget of the UI: text built at run time (from a server, a file,
what the user typed) never reaches an argument Textual parses as markup (issue 30).

Textual 8 reads a `str` as markup in: `Static`/`Label` content and `Static.update`,
`Button`, `Checkbox`/`RadioButton` labels, `Collapsible(title=)`, `TabPane`/`Tab`
titles, `Option`/`OptionList`/`Selection` prompts, `Tree` labels, `DataTable` column
labels and cells, `notify` messages (unless `markup=False`), command palette hits,
`tooltip`, `TextArea.placeholder`, `border_title`/`border_subtitle`. A value of a
`[link=file:…]` in a list, `[/]` or a backslash before `[` there breaks the app or is
drawn wrong, and escaping is no full defence. So such an argument must be a literal, or
text that is no markup: `Text`/`Content` (`server_text`), a function returning them, a
name bound only to those.

Read from the source with `ast`: what it cannot prove inert, it reports.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import agent_tui

# Callee name → the positional indexes and keywords that are parsed as markup.
MARKUP_ARGUMENTS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "Static": ((0,), ("content",)),
    "Label": ((0,), ("content",)),
    "Button": ((0,), ("label",)),
    "Checkbox": ((0,), ("label",)),
    "RadioButton": ((0,), ("label",)),
    "Collapsible": ((), ("title",)),
    "TabPane": ((0,), ("title",)),
    "Tab": ((0,), ("label",)),
    "Option": ((0,), ("prompt",)),
    "Selection": ((0,), ("prompt",)),
    "Tree": ((0,), ("label",)),
    "add_leaf": ((0,), ("label",)),
    "set_label": ((0,), ("label",)),
    "OptionList": (tuple(range(20)), ()),
    "add_column": ((0,), ("label",)),
    "add_columns": ((0, 1, 2, 3, 4, 5, 6, 7, 8, 9), ()),
    "add_row": ((0, 1, 2, 3, 4, 5, 6, 7, 8, 9), ("label",)),
    "update_cell": ((2,), ("value",)),
    "update_cell_at": ((1,), ("value",)),
    "Hit": ((1,), ("match_display", "help")),
    "DiscoveryHit": ((0,), ("display", "help")),
    "notify": ((0,), ("message",)),
}
# `Static.update(str)` parses markup too, but `update` is also every dict's, a
# Markdown's, a JSON view's: there only text built from strings is reported.
STRING_ONLY = {"update": ((0,), ("content",))}
# Keywords parsed as markup wherever they are (an `Input` draws its placeholder as Text).
EVERY_CALL = ("tooltip", "placeholder")
PLAIN_PLACEHOLDER = {"Input"}
ATTRIBUTES = ("tooltip", "border_title", "border_subtitle")  # `x.tooltip = …`
# Types whose values are never markup: a name annotated with one is inert.
INERT_TYPES = ("Text", "Content", "Syntax", "Table", "Group", "RenderableType", "Visual")
# `highlight`: Textual's `Matcher.highlight` (the command palette) returns Content.
INERT_CALLS = {
    "Text",
    "Content",
    "Syntax",
    "Table",
    "Group",
    "assemble",
    "from_rich_text",
    "highlight",
}
STRING_CALLS = {"str", "format", "join", "clean_text", "escape", "repr"}
# What the rule cannot see, by module: names proved inert by their declared type.
KNOWN_INERT = {
    "widgets/resource_table.py": {"cell"},  # one of `_cells: dict[str, list[Text]]`
}


def _returns_inert(tree: ast.Module) -> set[str]:
    """Functions of the UI whose annotated result is never markup."""
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.returns is not None
        and any(kind in ast.unparse(node.returns) for kind in INERT_TYPES)
        and "str" not in ast.unparse(node.returns)
    }


class _Checker:
    def __init__(self, inert_functions: set[str]) -> None:
        self.inert_functions = inert_functions | INERT_CALLS
        self.found: list[str] = []

    def check_module(self, name: str, tree: ast.Module) -> None:
        scopes: list[ast.AST] = [tree]
        scopes += [
            n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        ]
        for scope in scopes:
            for node in _own_nodes(scope):
                for expression, strings_only in _markup_arguments(node):
                    if ast.unparse(expression) in KNOWN_INERT.get(name, set()):
                        continue
                    if (
                        _stringy(expression)
                        if strings_only
                        else not self.inert(expression, scope, tree)
                    ):
                        self.found.append(f"{name}:{expression.lineno}: {ast.unparse(expression)}")

    def inert(
        self, expression: ast.expr, scope: ast.AST, module: ast.Module, depth: int = 0
    ) -> bool:
        if depth > 5:
            return False
        if isinstance(expression, ast.Constant):
            return expression.value is None or isinstance(expression.value, str)
        if isinstance(expression, ast.JoinedStr):  # an f-string: literal only if nothing is put in
            return all(isinstance(part, ast.Constant) for part in expression.values)
        if isinstance(expression, ast.IfExp):
            return self.inert(expression.body, scope, module, depth + 1) and self.inert(
                expression.orelse, scope, module, depth + 1
            )
        if isinstance(expression, ast.BinOp):  # literal + literal
            return self.inert(expression.left, scope, module, depth + 1) and self.inert(
                expression.right, scope, module, depth + 1
            )
        if isinstance(expression, ast.Call):
            callee = expression.func
            called = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
            if isinstance(callee, ast.Attribute) and self.inert(
                callee.value, scope, module, depth + 1
            ):
                return True  # a method of Text or Content (`Text(" ").join(…)`) gives Text
            return called in self.inert_functions
        if isinstance(expression, ast.Name):
            return self._name_inert(expression.id, scope, module, depth)
        return False

    def _name_inert(self, name: str, scope: ast.AST, module: ast.Module, depth: int) -> bool:
        if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = scope.args.posonlyargs + scope.args.args + scope.args.kwonlyargs
            for argument in arguments:
                if argument.arg == name:
                    shown = ast.unparse(argument.annotation) if argument.annotation else ""
                    return any(kind in shown for kind in INERT_TYPES) and "str" not in shown
        values = [
            value
            for target, value in _assignments(scope)
            if isinstance(target, ast.Name) and target.id == name
        ]
        if values:
            return all(self.inert(value, scope, module, depth + 1) for value in values)
        if scope is not module:
            return self._name_inert(name, module, module, depth + 1)
        return False


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of `scope` not inside a nested function (those are scopes of their own)."""
    for child in ast.iter_child_nodes(scope):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        yield child
        yield from _own_nodes(child)


def _assignments(scope: ast.AST) -> Iterator[tuple[ast.expr, ast.expr]]:
    for node in _own_nodes(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                yield target, node.value
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and node.value:
            yield node.target, node.value


def _stringy(expression: ast.expr) -> bool:
    """Whether `expression` is a str built at run time (an f-string, a sum, `str()`…)."""
    if isinstance(expression, ast.JoinedStr):
        return not all(isinstance(part, ast.Constant) for part in expression.values)
    if isinstance(expression, ast.BinOp):  # "done: " + name, "%s" % name
        sides = (expression.left, expression.right)
        return any(
            _stringy(side) or (isinstance(side, ast.Constant) and isinstance(side.value, str))
            for side in sides
        )
    if isinstance(expression, ast.IfExp):
        return _stringy(expression.body) or _stringy(expression.orelse)
    if isinstance(expression, ast.Call):
        callee = expression.func
        called = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
        return called in STRING_CALLS
    return False


def _markup_arguments(node: ast.AST) -> Iterator[tuple[ast.expr, bool]]:
    """The arguments of `node` Textual parses as markup, each with whether only a str
    built at run time counts (`STRING_ONLY`)."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Attribute) and target.attr in ATTRIBUTES:
                yield node.value, False
        return
    if not isinstance(node, ast.Call):
        return
    callee = node.func
    called = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
    keywords = {keyword.arg: keyword.value for keyword in node.keywords}
    for keyword in EVERY_CALL:
        if keyword in keywords and not (keyword == "placeholder" and called in PLAIN_PLACEHOLDER):
            yield keywords[keyword], False
    strings_only = called in STRING_ONLY
    if called not in MARKUP_ARGUMENTS and not strings_only:
        return
    if called == "notify":
        plain = keywords.get("markup")
        if isinstance(plain, ast.Constant) and plain.value is False:
            return
    positions, names = (STRING_ONLY if strings_only else MARKUP_ARGUMENTS)[called]
    for index, argument in enumerate(node.args):
        if index in positions and not isinstance(argument, ast.Starred):
            yield argument, strings_only
    for keyword_name in names:
        if keyword_name in keywords:
            yield keywords[keyword_name], strings_only


def markup_from_data(sources: dict[str, str]) -> list[str]:
    """`module:line: expression` for each markup argument not proved inert."""
    trees = {name: ast.parse(source) for name, source in sources.items()}
    inert_functions: set[str] = set()
    for tree in trees.values():
        inert_functions |= _returns_inert(tree)
    checker = _Checker(inert_functions)
    for name, tree in trees.items():
        checker.check_module(name, tree)
    return checker.found


def test_no_markup_argument_is_built_from_data() -> None:
    root = Path(agent_tui.__file__).parent / "tui"
    sources = {
        str(path.relative_to(root)): path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*.py"))
    }
    assert len(sources) > 50  # the UI was found
    found = markup_from_data(sources)
    assert not found, "markup parsed from text built at run time:\n" + "\n".join(found)


def test_the_rule_sees_markup_built_from_data() -> None:
    source = """
from textual.markup import escape
def server_text(value: object) -> Text: ...
def compose(self, name: str, shown: Text, plain=Content("x")) -> None:
    yield Collapsible(title=escape(name))
    yield Static(f"{name} ran")
    yield Label(name)
    yield Button(self.label)
    self.notify(f"Deleted {name}")
    self.border_title = name
    table.add_column(name)
    widget.update("done: " + name)
    yield Static(server_text(name), tooltip=name)
    self.notify(f"Deleted {name}", markup=False)
    yield Static(shown)
    title = Content(name)
    yield TabPane(title)
    yield Label("[b]literal[/b]")
    yield Input(placeholder=name)
    counts.update(other)
"""
    found = markup_from_data({"screen.py": source})
    assert sorted(line.split(": ", 1)[1] for line in found) == sorted(
        [
            "escape(name)",
            "f'{name} ran'",
            "name",
            "self.label",
            "f'Deleted {name}'",
            "name",
            "name",
            "'done: ' + name",
            "name",
        ]
    )
