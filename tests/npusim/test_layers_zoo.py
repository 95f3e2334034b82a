"""The per-layer table on zoo models: the partition's invariants (exact numbers move with the
compiler, these do not), the bound-label probes, the Perfetto layer track and the roofline of
a run on another Target."""

import pytest

from compiler.lower.program import roofline_cycles
from isa.target import Target
from npusim import flow
from npusim.flow.layers import CAUSES, STALL_CAUSES, UNIT_CLASSES

# resolutions at which the old overlapping spans gave a layer over 100% utilization (104%,
# 135%, 139%), small enough to run in seconds
PROBES = [("resnet18", "npu-edge", 32), ("resnet18", "npu-edge -array=32x32", 128),
          ("resnet18", "npu-edge -num-cores=2", 64),
          ("resnet50", "npu-edge -array=32x32 -dram-bw=32 -dma-engines=4", 128)]


@pytest.fixture(scope="module", params=PROBES, ids=[f"{m}-{t}" for m, t, _ in PROBES])
def probe(request):
    model, target, resolution = request.param
    compiled = flow.compile(model, target, resolution=resolution)
    return flow.simulate(compiled, timing_only=True, trace=True)


def test_layer_cycles_partition_the_run_and_no_layer_beats_the_array(probe):
    rows = probe.layer_rows
    assert sum(r["cycles"] for r in rows) == probe.cycles
    assert all(0 <= r["utilization"] <= 1 for r in rows)
    for r in rows:
        assert list(r["cycles_by_cause"]) == list(CAUSES)
        assert sum(r["cycles_by_cause"].values()) == r["cycles"]
        assert min(r["cycles_by_cause"].values()) >= 0
        assert 0 <= r["start"] < r["end"] <= probe.cycles
        assert 0 <= r["overlap_cycles"] <= r["end"] - r["start"]
        assert r["bound"] in ("compute", "memory", "latency")


def test_layer_stalls_add_up_to_the_unit_counters(probe):
    rows, units = probe.layer_rows, probe.sim.units
    for cause in STALL_CAUSES:
        assert sum(r["stalls"][cause] for r in rows) == sum(u[f"stall_{cause}"]
                                                             for u in units.values())
    for r in rows:
        assert list(r["stalls"]) == list(STALL_CAUSES)
        assert list(r["stalls_by_unit"]) == list(UNIT_CLASSES)
        assert {c: sum(u[c] for u in r["stalls_by_unit"].values()) for c in STALL_CAUSES} \
            == r["stalls"]


def test_dram_starved_layers_are_memory_bound():
    # at 1 B/cycle every layer of small_cnn waits for DRAM (pool1: ~1.1k cycles of vector work
    # against 20,480 DRAM beats); the old label, from durations that include waits, said compute
    r = flow.run("small_cnn", "npu-edge -dram-bw=1", timing_only=True)
    bounds = {row["name"]: row["bound"] for row in r.layer_rows}
    assert bounds["pool1"] == "memory" and bounds["conv1"] == "memory"
    assert set(bounds.values()) == {"memory"}


def test_mlp_fc1_is_memory_bound_by_its_roofline():
    r = flow.run("mlp", "npu-edge", timing_only=True)
    fc1 = next(row for row in r.layer_rows if row["name"] == "fc1.matmul")
    t = r.target
    assert fc1["dram_bytes"] / t.dram_bw > fc1["macs"] / t.derived.peak_macs_per_cycle
    assert fc1["bound"] == "memory"


def test_the_chrome_trace_has_a_layer_track_per_core():
    compiled = flow.compile("small_cnn", "npu-edge -num-cores=2")
    r = flow.simulate(compiled, timing_only=True, trace=True)
    events = r.chrome_trace()["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in events
             if e["name"] == "thread_name" and e["args"]["name"] == "layers"}
    assert set(names) == {0, 1}
    spans = [e for e in events if e.get("cat") == "layer"]
    assert {e["name"] for e in spans} == {row["name"] for row in r.layer_rows}
    for core in (0, 1):  # each core's spans tile its timeline [0, cycles)
        mine = sorted((e["ts"], e["ts"] + e["dur"]) for e in spans if e["pid"] == core)
        assert mine[0][0] == 0 and mine[-1][1] == r.cycles
        assert all(a[1] == b[0] for a, b in zip(mine, mine[1:]))
    assert any(e.get("cat") == "matrix" for e in events)  # beside the unit tracks


def test_a_run_on_another_target_recomputes_the_roofline(tmp_path):
    compiled = flow.compile("mlp", "npu-edge")
    compiled.save(tmp_path / "art")
    art = flow.compile(tmp_path / "art")
    slow = Target.create("npu-edge -dram-bw=1")
    r = flow.simulate(art, target=slow, timing_only=True)
    for row, info in zip(r.layer_rows, art.artifact.layers):
        want = roofline_cycles(info["macs"], info["min_dram_bytes"], slow)
        assert row["roofline_cycles"] == pytest.approx(want, abs=0.05)
        assert row["roofline_cycles"] > 2 * info["roofline_cycles"]  # not the stored one
    assert r.to_json()["roofline_ratio"] < 1.5  # the stale bound made it ~15x
