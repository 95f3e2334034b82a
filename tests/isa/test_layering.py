"""Dependencies point one way: isa imports nothing of ours; npusim imports compiler only in its
flow API and its CLI (tests/test_import_graph.py checks the whole graph)."""

import ast
from pathlib import Path

ROOT = Path(__file__).parents[2]
OURS = {"isa", "compiler", "npusim", "rtl_tests", "experiments", "tests"}


def imported_packages(path: Path) -> set[str]:
    """Top-level packages a module imports, wherever in the file (deferred imports count)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def offenders(package: str, allowed) -> list[str]:
    """`file: packages` for every module of `package` importing ours beyond allowed(path)."""
    paths = sorted((ROOT / package).rglob("*.py"))
    assert paths, package
    out = []
    for path in paths:
        rel = path.relative_to(ROOT)
        extra = imported_packages(path) & OURS - allowed(rel)
        if extra:
            out.append(f"{rel}: {', '.join(sorted(extra))}")
    return out


def test_isa_imports_nothing_of_ours():
    assert offenders("isa", lambda rel: {"isa"}) == []


def test_npusim_imports_compiler_only_in_flow_and_cli():
    top = lambda rel: {"compiler"} if rel.parts[1] in ("flow", "cli") else set()  # noqa: E731
    assert offenders("npusim", lambda rel: {"isa", "npusim"} | top(rel)) == []


def test_the_check_sees_deferred_imports(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("import os\n\ndef f():\n    from compiler.ir import Graph\n    import npusim.x\n")
    assert imported_packages(src) == {"os", "compiler", "npusim"}
