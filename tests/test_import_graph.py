"""The dependency rules of ARCHITECTURE.md, read from the source: every import of every module of
isa, compiler and npusim, function-level ones included.

A string that is exactly a module name (or "module:Class") counts as an import of it:
that is how the CLI's subcommand table and the backend registry name what importlib loads.

Two granularities. Components: isa, compiler, the npusim model (npusim's own modules: units,
exec, race, memories, simulate, faults ...), npusim.runtime, npusim.flow, npusim.hw, npusim.cli and
any other npusim subpackage; between them the graph is a DAG and each component imports only
what the table below allows. Modules: no import cycle among the modules of isa and npusim (a
module's import of its own package's __init__ aside: that is how a package re-exports). The
compiler's internal layering (ir, ops, passes, lower, backends) is its own business, except
that its backends sit on top: nothing else in the compiler imports them."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("isa", "compiler", "npusim")
ENTRY = "npusim.__main__"  # `python -m npusim`: the one module allowed to import the CLI
MODEL_PARTS = ("exec", "units", "race")  # the model's subpackages; other npusim ones are components
_DOTTED = re.compile(r"(isa|compiler|npusim)(\.\w+)+(:\w+)?")
ALLOWED = {  # component -> what it may import (besides itself)
    "isa": set(),
    "compiler": {"isa"},
    "npusim": {"isa"},  # the package root re-exports the error root
    "npusim.model": {"isa", "npusim", "npusim.hw"},  # the energy of a run (npusim.hw.energy)
    "npusim.runtime": {"isa", "npusim", "npusim.model"},
    "npusim.hw": {"isa", "npusim"},
    "npusim.flow": {"isa", "compiler", "npusim", "npusim.model", "npusim.runtime", "npusim.hw"},
    "npusim.cli": {"isa", "compiler", "npusim", "npusim.model", "npusim.runtime", "npusim.hw",
                   "npusim.flow", "npusim.conformance", "npusim.report",
                   "npusim.dse", "npusim.scalesim"},
    ENTRY: {"npusim", "npusim.cli"},
}


def _modules() -> dict:
    """module name -> (file, is a package __init__)."""
    out = {}
    for pkg in PACKAGES:
        for f in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(f.relative_to(ROOT).with_suffix("").parts)
            is_pkg = parts[-1] == "__init__"
            out[".".join(parts[:-1] if is_pkg else parts)] = (f, is_pkg)
    return out


def _imported(name: str, path: Path, is_pkg: bool) -> tuple:
    """(every module name `name` imports, as written (absolute); the strings that may name a
    module)."""
    package = name if is_pkg else name.rpartition(".")[0]
    found, named = set(), set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            found.add(module)
            found.update(f"{module}.{a.name}" for a in node.names)  # `from pkg import module`
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and _DOTTED.fullmatch(node.value):
            # a module named in a string, imported later by importlib: the CLI's subcommand
            # table, the backend registry's "module:Class" built-ins
            named.add(node.value.partition(":")[0])
    return {name for name in found if name}, named


def import_graph() -> dict:
    """module -> the modules of ours it imports (each name resolved to its longest module)."""
    mods = _modules()
    out = {}
    for name, (path, is_pkg) in mods.items():
        imports, named = _imported(name, path, is_pkg)
        deps = {text for text in named if text in mods and text != name}
        for text in imports:
            parts = text.split(".")
            while parts and ".".join(parts) not in mods:
                parts.pop()
            if parts and ".".join(parts) != name:
                deps.add(".".join(parts))
        out[name] = deps
    return out


@pytest.fixture(scope="module")
def graph() -> dict:
    return import_graph()


def component(module: str) -> str:
    parts = module.split(".")
    if parts[0] in ("isa", "compiler") or module in ("npusim", ENTRY):
        return parts[0] if module != ENTRY else ENTRY
    if (ROOT / "npusim" / parts[1]).is_dir() and parts[1] not in MODEL_PARTS:
        return ".".join(parts[:2])
    return "npusim.model"


def _cycle(edges: dict) -> list:
    """One cycle of the directed graph as [a, b, ..., a], or []."""
    state, stack = {}, []

    def visit(v):
        state[v] = "open"
        stack.append(v)
        for w in sorted(edges.get(v, ())):
            if state.get(w) == "open":
                return stack[stack.index(w):] + [w]
            if w not in state:
                found = visit(w)
                if found:
                    return found
        state[v] = "done"
        stack.pop()
        return []
    for v in sorted(edges):
        if v not in state:
            found = visit(v)
            if found:
                return found
    return []


def _component_edges(graph) -> dict:
    edges = {}
    for module, deps in graph.items():
        for dep in deps:
            a, b = component(module), component(dep)
            if a != b:
                edges.setdefault(a, {}).setdefault(b, []).append(f"{module} -> {dep}")
    return edges


def test_the_components_form_a_dag_with_the_allowed_edges(graph):
    edges = _component_edges(graph)
    assert _cycle(edges) == []
    wrong = [why for a, deps in edges.items() for b, whys in deps.items()
             if b not in ALLOWED.get(a, ALLOWED["npusim.flow"] | {"npusim.flow"}) for why in whys]
    assert wrong == []


def test_isa_imports_nothing_of_ours_and_compiler_never_npusim(graph):
    assert [(m, d) for m, ds in graph.items() for d in ds
            if m.startswith("isa") and not d.startswith("isa")] == []
    assert [(m, d) for m, ds in graph.items() for d in ds
            if m.startswith("compiler") and d.startswith("npusim")] == []


def test_only_the_entry_point_imports_the_cli(graph):
    def cli(name):
        return name == "npusim.cli" or name.startswith("npusim.cli.")
    users = {m for m, ds in graph.items() for d in ds if cli(d) and not cli(m)}
    assert users == {ENTRY}
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"npusim": "npusim.cli.main:main"}


def test_no_module_cycles_in_isa_and_npusim(graph):
    edges = {m: {d for d in ds if not m.startswith(d + ".") and d.split(".")[0] != "compiler"}
             for m, ds in graph.items() if m.split(".")[0] in ("isa", "npusim")}
    assert _cycle(edges) == []


def test_the_compiler_backends_sit_on_top_of_the_compiler(graph):
    assert [(m, d) for m, ds in graph.items() for d in ds
            if m.startswith("compiler.") and not m.startswith("compiler.backends")
            and d.startswith("compiler.backends")] == []


def test_the_graph_sees_function_level_relative_and_named_imports(graph):
    # run_cmd imports npusim.flow inside run(); compiler.backends.cpu uses `from .. import`;
    # main names its subcommand modules for importlib
    assert "npusim.flow" in graph["npusim.cli.run_cmd"]
    assert "npusim.cli.run_cmd" in graph["npusim.cli.main"]
    assert "compiler.backends" in graph["compiler.backends.cpu"]
    assert "compiler.backends.cpu.target" in graph["compiler.backends"]
