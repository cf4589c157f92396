"""The demo's tools: offline and deterministic, so their results can be asserted exactly."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable

from langchain_core.tools import tool

_CONDITIONS = ("sunny", "cloudy", "rainy", "windy")

_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}


def weather_report(city: str) -> str:
    # A fixed function of the name: the same city always gets the same weather.
    code = sum(ord(ch) for ch in city.lower())
    return f"It is {_CONDITIONS[code % len(_CONDITIONS)]} and {10 + code % 20} C in {city}."


def evaluate(expression: str) -> float:
    """Evaluate arithmetic (numbers, + - * / // % ** and parentheses) without `eval`."""

    def visit(node: ast.AST) -> float:
        value = node.value if isinstance(node, ast.Constant) else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            operand = visit(node.operand)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = visit(node.left), visit(node.right)
            if isinstance(node.op, ast.Pow) and abs(right) > 100:
                raise ValueError("exponent too large")
            return _BINARY[type(node.op)](left, right)
        raise ValueError("only numbers and + - * / // % ** ( ) are allowed")

    return visit(ast.parse(expression, mode="eval").body)


def calculation_report(expression: str) -> str:
    try:
        value = evaluate(expression)
    except (ValueError, SyntaxError, ZeroDivisionError, OverflowError) as exc:
        reason = "division by zero" if isinstance(exc, ZeroDivisionError) else str(exc)
        if isinstance(exc, SyntaxError):
            reason = "not an arithmetic expression"
        return f"Cannot calculate {expression}: {reason}."
    shown = int(value) if value.is_integer() else round(value, 6)
    return f"{expression} = {shown}"


@tool
def get_weather(city: str) -> str:
    """Get the current weather in a city."""
    return weather_report(city)


@tool
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression such as 2+2 or (3*4)/2."""
    return calculation_report(expression)


TOOLS = [get_weather, calculator]
