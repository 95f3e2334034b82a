"""One home per operator: no pass, lowering or backend module dispatches on op names.

An AST scan of compiler/passes, compiler/lower, compiler/backends and the compiler's
top-level modules: comparing an `.op` (or
a variable named `op`) with a registered op's name, a tuple/list/set of them, a substring,
or `.startswith`/`.endswith` on it is a ladder; the op's traits and hooks
(compiler/ops/registry.py) say the same by name in one place. (Tables keyed by a layer's kind
- add, relu, ... - are data, as in tinygrad, and allowed.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from compiler.ops import get_hook, get_op, has_trait, list_ops, register_hook

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("compiler/passes", "compiler/lower", "compiler/backends")
TOP_LEVEL = "compiler"  # and the compiler's own modules (build, module, reference, host, ...)
# (path, enclosing function or "<module>") -> why it may name ops
ALLOWED = {
    ("compiler/passes/layout.py", "_fold_flatten_permutation"):
        "a pattern rewrite of layout_transform -> flatten -> nn.dense",
    ("compiler/backends/npu/eltwise_gen.py", "gen_eltwise"):
        "eltwise layer kinds (add/relu/...); the generator body is being rewritten to build "
        "instruction objects (issue 9 item 3) and moves to a table there",
}
OPS = set(list_ops())


def _is_op(node) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "op") or \
        (isinstance(node, ast.Name) and node.id in ("op", "op_name"))


def _names_op(node) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value in OPS
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_op(e) for e in node.elts)
    return False


def _violations(tree: ast.AST) -> list:
    """(line, enclosing function, what) of every op-name ladder in `tree`."""
    out = []

    def visit(node, func: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                else func
            if isinstance(child, ast.Compare):
                sides = [child.left, *child.comparators]
                if any(_is_op(s) for s in sides) and any(_names_op(s) for s in sides):
                    out.append((child.lineno, func, "compares an op with op names"))
                elif any(isinstance(o, (ast.In, ast.NotIn)) for o in child.ops) and \
                        any(_is_op(s) for s in child.comparators) and \
                        isinstance(child.left, ast.Constant):
                    out.append((child.lineno, func, "tests a substring of an op name"))
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and \
                    child.func.attr in ("startswith", "endswith") and _is_op(child.func.value):
                out.append((child.lineno, func, f"{child.func.attr}() on an op name"))
            visit(child, name)
    visit(tree, "<module>")
    return out


def test_no_op_name_ladders_in_passes_lowering_backends():
    found = []
    paths = [p for folder in SCANNED for p in sorted((ROOT / folder).rglob("*.py"))]
    paths += sorted((ROOT / TOP_LEVEL).glob("*.py"))
    for path in paths:
        rel = path.relative_to(ROOT).as_posix()
        for line, func, what in _violations(ast.parse(path.read_text(), rel)):
            if (rel, func) not in ALLOWED:
                found.append(f"{rel}:{line} ({func}): {what}")
    assert not found, ("op knowledge belongs on the op's definition (a trait or a hook, "
                       "compiler/ops/registry.py), not in a ladder:\n" + "\n".join(found))


def test_the_allow_list_is_still_needed():
    """Each allowed place still names ops; else it should leave the list."""
    for (rel, func), why in ALLOWED.items():
        tree = ast.parse((ROOT / rel).read_text(), rel)
        assert any(f == func for _, f, _ in _violations(tree)), f"{rel} {func}: {why}"


@pytest.mark.parametrize("source, found", [
    ("if n.op == 'nn.relu': pass", 1),
    ("x = layer.op in ('add', 'multiply')", 1),
    ("x = 'global' in n.op", 1),
    ("x = n.op.startswith('qnn.')", 1),
    ("x = op == 'vrequant'", 0),                 # a mnemonic, not an op
    ("x = kind == 'add'", 0),                    # not an op variable
    ("x = has_trait(n.op, 'alias')", 0),
])
def test_the_scan_sees_ladders(source, found):
    assert len(_violations(ast.parse(source))) == found


def test_every_lowered_op_has_one_definition_with_its_hooks():
    """The hooks of the ops the NPU runs sit on their definitions, found by name."""
    from compiler.ops import import_package
    import_package("compiler.lower")  # the lowering modules register their 'lower' hooks
    for op in ("qnn.conv2d", "fused.conv2d", "qnn.dense", "qnn.add", "qnn.lut", "concat",
               "layout_transform", "nn.max_pool2d"):
        assert callable(get_hook(op, "lower")), op
    for op in ("fused.conv2d", "nn.relu", "add", "sigmoid", "concat", "flatten"):
        assert callable(get_hook(op, "quantize")), op
    assert get_hook("nn.conv2d", "fused_as") == "fused.conv2d"
    assert has_trait("reshape", "alias") and not has_trait("transpose", "alias")
    assert get_hook("nn.batch_norm", "quantize_hint") == "run 'fold-bn' first"


def test_hook_errors_name_the_thing():
    from compiler.errors import OpError
    with pytest.raises(OpError, match="unknown op hook 'lowr'; did you mean 'lower'"):
        register_hook("lowr", "nn.relu", value=print)
    with pytest.raises(OpError, match="unknown op trait 'alais'"):
        has_trait("reshape", "alais")
    with pytest.raises(OpError, match="'nn.relu' has hook 'quantize' registered twice"):
        register_hook("quantize", "nn.relu", value=print)
    assert get_op("nn.relu").hooks["quantize"] is not print
