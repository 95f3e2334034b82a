"""The whole per-instruction trace of zoo models, pinned: a speed-up of the simulator
(docs/timing.md, "Events") must leave every start, end and stall cause where it was.

The digests were recorded with the simulator of revision 9993cb3 (main before the event-count
work of issue 18) on that revision's compiler (the cost model's programs, as tests/golden pins them; not the
fastest-of-neighbours choice flow.compile makes by default); a codegen change moves them (regenerate them
then with a simulator known to be unchanged), a simulator change must not (regen: run this
file as a script with --regen)."""

import hashlib
import json
import sys
from pathlib import Path

import pytest

from npusim import flow

GOLDEN = Path(__file__).with_name("golden") / "trace_digests.json"
# (model, target, resolution, timing_only): multi-core, 4 DMA engines, npu-tiny, functional
RUNS = [("mlp", "npu-edge", None, True), ("small_cnn", "npu-tiny", None, True),
        ("small_cnn", "npu-edge", None, False),
        ("resnet18", "npu-edge -num-cores=2", 32, True),
        ("resnet18", "npu-edge -num-cores=2", 32, False),
        ("resnet50", "npu-edge -array=32x32 -dram-bw=32 -dma-engines=4", 64, True)]


def key(model, target, resolution, timing_only) -> str:
    mode = "timing-only" if timing_only else "functional"
    return f"{model} | {target} | {resolution or 'default'} | {mode}"


def digest(model, target, resolution, timing_only) -> dict:
    # evaluate=None: the cost model's program (the one tests/golden pins), not the fastest of
    # the neighbours' (a choice codegen work may move): this file pins the simulator alone
    compiled = flow.compile(model, target, resolution=resolution, evaluate=None)
    res = flow.simulate(compiled, timing_only=timing_only, trace=True)
    trace = res.trace.to_csv(index=False).encode()
    out = {"cycles": res.cycles, "trace": hashlib.sha256(trace).hexdigest(),
           "units": hashlib.sha256(json.dumps(res.sim.units, sort_keys=True).encode())
           .hexdigest()}
    if not timing_only:
        out["outputs"] = hashlib.sha256(b"".join(
            v.tobytes() for _, v in sorted(res.outputs.items()))).hexdigest()
    return out


@pytest.mark.parametrize("run", RUNS, ids=[key(*r) for r in RUNS])
def test_trace_is_unchanged(run):
    expected = json.loads(GOLDEN.read_text())[key(*run)]
    assert digest(*run) == expected


if __name__ == "__main__" and sys.argv[1:] == ["--regen"]:
    from isa.files import write_atomic
    write_atomic(GOLDEN, json.dumps({key(*r): digest(*r) for r in RUNS}, indent=1) + "\n")
