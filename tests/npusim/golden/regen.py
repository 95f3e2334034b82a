"""Regenerate example_cycles.json: `python tests/npusim/golden/regen.py` after a deliberate change."""

import json
from pathlib import Path

from isa.asm import assemble_file
from npusim.simulate import simulate

ROOT = Path(__file__).parents[3]
GOLDEN = Path(__file__).with_name("example_cycles.json")


def measure() -> dict:
    """Per example (zero inputs, timing-only): total cycles, instructions and per-unit busy."""
    out = {}
    for path in sorted((ROOT / "examples").glob("*.s")):
        res = simulate(assemble_file(path), None, timing_only=True)
        out[path.name] = {"cycles": res.cycles, "instructions": res.instructions,
                          "busy": {u: c["busy"] for u, c in res.units.items()}}
    return out


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(measure(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
