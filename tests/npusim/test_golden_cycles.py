"""Example programs keep their cycle counts: a timing change must be deliberate (regenerate)."""

import importlib.util
import json
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "golden"


def load_regen():
    spec = importlib.util.spec_from_file_location("regen", HERE / "regen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_examples_match_golden_cycles():
    golden = json.loads((HERE / "example_cycles.json").read_text())
    now = load_regen().measure()
    for name in sorted(set(golden) & set(now)):
        assert now[name] == golden[name], (
            f"{name}: timing changed; if deliberate run `python tests/npusim/golden/regen.py`")
    if set(golden) - set(now):
        pytest.fail(f"golden entries without an example: {sorted(set(golden) - set(now))}; "
                    "run `python tests/npusim/golden/regen.py`")
