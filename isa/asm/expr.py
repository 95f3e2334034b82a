"""Integer operand expressions: literals, names and + - * << >> ( ), parsed safely with `ast`."""

from __future__ import annotations

import ast
import difflib
import operator
from typing import Mapping

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.LShift: operator.lshift, ast.RShift: operator.rshift}
_UNOPS = {ast.USub: operator.neg, ast.UAdd: operator.pos}
_SYMBOL = {ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**", ast.BitAnd: "&",
           ast.BitOr: "|", ast.BitXor: "^", ast.Invert: "~", ast.Not: "not", ast.MatMult: "@"}
MAX_SHIFT = 256  # keeps `1 << 10**9` from eating the machine; no field is wider than 32 bits


class ExprError(ValueError):
    """An operand expression is malformed, uses a forbidden construct or an unknown name."""


def evaluate(text: str, names: Mapping[str, int]) -> int:
    """Value of `text`; names resolve through `names` (.equ constants, tensor addresses)."""
    source = text.strip()
    if not source:
        raise ExprError("empty value; expected a number, a name or an expression")
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError:
        raise ExprError(f"'{source}' is not a number or an integer expression "
                        "(decimal, 0x.., 0b.., names, + - * << >> and parentheses)") from None
    return _eval(tree.body, names, source)


def _eval(node: ast.AST, names: Mapping[str, int], source: str) -> int:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, int) and not isinstance(node.value, bool):
            return node.value
        raise ExprError(f"'{source}': {node.value!r} is not an integer")
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        close = difflib.get_close_matches(node.id, list(names), n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise ExprError(f"unknown name '{node.id}'; {hint}define constants with "
                        f".equ {node.id}, VALUE")
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _eval(node.left, names, source), _eval(node.right, names, source)
        if isinstance(node.op, (ast.LShift, ast.RShift)) and not 0 <= right <= MAX_SHIFT:
            raise ExprError(f"'{source}': shift by {right} outside 0..{MAX_SHIFT}")
        return _BINOPS[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNOPS:
        return _UNOPS[type(node.op)](_eval(node.operand, names, source))
    op = getattr(node, "op", None)
    what = f"operator '{_SYMBOL[type(op)]}'" if type(op) in _SYMBOL else \
        f"'{ast.get_source_segment(source, node) or type(node).__name__}'"
    raise ExprError(f"'{source}': {what} is not allowed; expressions use integers, names "
                    "and + - * << >> ( )")
