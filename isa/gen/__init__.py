"""Generators of every file derived from the ISA spec (Verilog header, ISA reference, conformance list)."""

from __future__ import annotations

import importlib
from pathlib import Path

from isa.spec import IsaSpec, load_spec

REPO_ROOT = Path(__file__).resolve().parents[2]

# Output path (relative to the repo root) -> module whose render(spec, root) returns its text.
OUTPUTS = {
    "rtl/npu_isa.vh": "isa.gen.verilog",
    "docs/isa.md": "isa.gen.docs",
    "isa/conformance.json": "isa.gen.conformance",
}


def banner(spec: IsaSpec) -> str:
    """The first line of every generated file, without comment syntax."""
    return f"generated from isa/{spec.path.name} by python -m isa.gen — do not edit"


def render_all(spec: IsaSpec | None = None, root: Path = REPO_ROOT) -> dict[str, str]:
    """Every generated file's text, keyed by its path relative to the repo root."""
    spec = spec or load_spec()
    return {path: importlib.import_module(mod).render(spec, Path(root))
            for path, mod in OUTPUTS.items()}
