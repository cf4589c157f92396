"""Lines of code of Python files: lines holding a token that is not a comment, a docstring
or a blank, and all lines, per file and in total.

    uv run python scripts/code_lines.py src/agent_tui/server/*.py
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize

SKIPPED = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENDMARKER,
}


def docstring_lines(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
            and node.end_lineno is not None
        ):
            found.update(range(node.lineno, node.end_lineno + 1))
    return found


def code_lines(source: str) -> int:
    docs = docstring_lines(ast.parse(source))
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in SKIPPED:
            lines.update(n for n in range(token.start[0], token.end[0] + 1) if n not in docs)
    return len(lines)


def main(paths: list[str]) -> int:
    code_total = all_total = 0
    for path in paths:
        with open(path, encoding="utf-8") as file:
            source = file.read()
        code, every = code_lines(source), source.count("\n")
        code_total, all_total = code_total + code, all_total + every
        print(f"{code:6} {every:6}  {path}")
    print(f"{code_total:6} {all_total:6}  total (code lines, all lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
