"""The pair sweep: a program compiled for a Target is not slower on it than the program
compiled for a neighbouring Target (one step of -dram-bw, -dma-engines, a buffer size) run
on it, on small_cnn, mlp and resnet18 at 32x32 (timing-only cycles)."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# the cost model is not exact: a neighbour's program may win by a little (docs/codegen.md
# lists the pairs); a blind spot of the size this sweep found (small_cnn for -dram-bw=1
# 1.31x slower than the npu-edge binary there) fails
TOLERANCE = 0.025


def quality():
    spec = importlib.util.spec_from_file_location("codegen_quality",
                                                  ROOT / "experiments" / "codegen_quality.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("model, resolution", [("small_cnn", None), ("mlp", None),
                                               ("resnet18", 32)])
def test_never_slower_than_a_neighbours_program(model, resolution):
    q = quality()
    rows = q.pair_sweep(model, q.SWEEP_BASES, resolution)
    assert {r["knob"] for r in rows} >= {"dram-bw", "dma-engines", "ibuf-kb", "wbuf-kb",
                                         "abuf-kb", "obuf-kb"}
    bad = [r for r in rows if r["own"] > r["theirs"] * (1 + TOLERANCE)]
    assert not bad, "\n".join(f"{r['a']}: {r['own']:,} cycles; its {r['knob']} neighbour "
                              f"{r['b']}'s program {r['theirs']:,}" for r in bad)
    slower = [r for r in rows if r["own"] > r["theirs"]]
    assert len(slower) <= len(rows) // 5, slower


def test_the_dram_bw_1_blind_spot_is_gone():
    """small_cnn compiled for -dram-bw=1 took 330,982 cycles, the npu-edge binary 252,388."""
    q = quality()
    from isa.target import Target
    slow = Target("npu-edge", dram_bw=1)
    own = q.cycles("small_cnn", slow)
    edge = q.cycles("small_cnn", Target("npu-edge"), on=slow)
    assert own <= edge
