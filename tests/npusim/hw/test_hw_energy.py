"""npusim.hw.energy: exact pJ on a hand-worked program, the breakdown summing to the total, and
energy moving the right way when a knob moves."""

import json

import pytest

from isa import instruction as I
from isa.target import Target
from npusim.hw.area import area_breakdown, area_mm2
from npusim.hw.energy import energy_breakdown, sram_byte_pj
from npusim.simulate import simulate

# load 16 B into ibuf, gemm 4x4x4: 34 cycles on npu-tiny (tests/npusim/test_stats.py)
GEMM_PROG = [I("load", chan=0, buf="ibuf", sram=0, dram=0, rows=4, cols=4, stride=4),
             I("signal", unit="dma0", sem=0), I("wait", unit="matrix", sem=0),
             I("gemm", ibuf=0, wbuf=0, abuf=0, m=4, k=4, n=4), I("halt")]


def test_tiny_gemm_energy_by_hand():
    res = simulate(GEMM_PROG, "npu-tiny")
    assert res.cycles == 34
    e = res.energy_breakdown
    # npu-tiny: ibuf 4 KiB, wbuf 4 KiB, abuf 16 KiB; a byte costs 1.25 pJ x sqrt(KiB / 8)
    assert e["mac"] == pytest.approx(64 * 0.3)
    assert e["sram_ibuf"] == pytest.approx((16 + 16) * 1.25 * (4 / 8) ** 0.5)  # load + gemm
    assert e["sram_wbuf"] == pytest.approx(16 * 1.25 * (4 / 8) ** 0.5)
    assert e["sram_abuf"] == pytest.approx(16 * 4 * 1.25 * (16 / 8) ** 0.5)  # 16 int32 written
    assert e["sram_obuf"] == 0 and e["vector"] == 0
    assert e["dram"] == pytest.approx(16 * 160.0)
    # 25 mW/mm^2 over the Target's area for 34 cycles at 100 MHz (0.34 us)
    assert e["leakage"] == pytest.approx(area_mm2("npu-tiny") * 25.0 * 0.34e-6 * 1e9)
    assert sum(e.values()) == pytest.approx(res.energy_pj["total"], rel=1e-12)
    by_action = res.energy_pj
    assert by_action["static"] == e["leakage"]
    assert by_action["sram"] == pytest.approx(sum(v for k, v in e.items() if k.startswith("sram_")))
    assert json.loads(json.dumps(res.to_json()))["energy_breakdown"] == pytest.approx(e)


def test_static_mw_overrides_the_area_leakage():
    e = simulate(GEMM_PROG, "npu-tiny -static-mw=50 -num-cores=2").energy_breakdown
    assert e["leakage"] == pytest.approx(50e-3 * 2 * 0.34e-6 * 1e12)  # 50 mW per core
    none = simulate(GEMM_PROG, "npu-tiny -leakage-mw-per-mm2=0").energy_breakdown
    assert none["leakage"] == 0


def test_every_constant_is_a_target_attribute():
    t = "npu-tiny -energy-mac-pj=1 -energy-sram-byte-pj=2 -energy-dram-byte-pj=3 " \
        "-leakage-mw-per-mm2=0"
    e = simulate(GEMM_PROG, t).energy_breakdown
    assert (e["mac"], e["dram"]) == (64.0, 48.0)
    assert e["sram_wbuf"] == pytest.approx(16 * 2 * (4 / 8) ** 0.5)


def _energy(target, **work):
    t = Target.create(target)
    w = {"macs": 0, "vector_ops": 0, "sram": {}, **work}
    return energy_breakdown(t, w, w.pop("dram", 0), 1000)


def test_fp16_macs_cost_more_than_int8():
    assert _energy("npu-edge -dtype=fp16", macs=100)["mac"] > _energy("npu-edge", macs=100)["mac"]


@pytest.mark.parametrize("knob,small,big", [
    ("array", "8x8", "32x32"), ("vector-lanes", 4, 64), ("dma-engines", 1, 4),
    ("ibuf-kb", 32, 512), ("abuf-kb", 64, 1024), ("num-cores", 1, 4), ("queue-depth", 2, 64),
    ("dram-bw", 8, 256), ("dma-fill-lanes", 4, 64)])
def test_a_bigger_design_has_more_area_and_leakage(knob, small, big):
    lo, hi = (Target.from_string(f"npu-edge -{knob}={v}") for v in (small, big))
    assert area_mm2(hi) > area_mm2(lo)
    assert _energy(hi)["leakage"] > _energy(lo)["leakage"]


def test_the_output_stationary_array_leaks_as_its_area():
    """Leakage is area x time: at the same cycles the os Target leaks more by its area ratio
    (its matrix unit is larger, tests/npusim/hw/test_hw_area.py)."""
    ws, os_ = (Target.from_string(f"npu-edge -dataflow={d}") for d in
               ("ws -weight-buffers=1 -depthwise-mode=0", "os"))  # the arrays alone
    assert _energy(os_)["leakage"] > _energy(ws)["leakage"]
    assert _energy(os_)["leakage"] / _energy(ws)["leakage"] == \
        pytest.approx(area_mm2(os_) / area_mm2(ws), rel=1e-12)


def test_a_bigger_buffer_costs_more_per_byte():
    lo, hi = Target("npu-edge", ibuf_kb=32), Target("npu-edge", ibuf_kb=512)
    assert sram_byte_pj(hi, "ibuf") == pytest.approx(4 * sram_byte_pj(lo, "ibuf"))  # sqrt(16)
    per_100 = [_energy(t, sram={"ibuf": 100})["sram_ibuf"] for t in (lo, hi)]
    assert per_100[1] > per_100[0]
    assert area_breakdown(hi)["sram_ibuf"] == pytest.approx(16 * area_breakdown(lo)["sram_ibuf"])


def test_more_dram_traffic_costs_more_dram_energy():
    one = [I("load", chan=0, buf="ibuf", sram=0, dram=0, rows=4, cols=4, stride=4), I("halt")]
    four = [I("load", chan=0, buf="ibuf", sram=0, dram=0, rows=16, cols=4, stride=4), I("halt")]
    small, big = (simulate(p, "npu-tiny").energy_breakdown for p in (one, four))
    assert big["dram"] == 4 * small["dram"] > 0
    assert big["sram_ibuf"] == pytest.approx(4 * small["sram_ibuf"])


def test_a_slower_run_leaks_more():
    fast, slow = (simulate(GEMM_PROG, f"npu-tiny -dram-latency={lat}") for lat in (10, 200))
    assert slow.cycles > fast.cycles
    assert slow.energy_breakdown["leakage"] > fast.energy_breakdown["leakage"]
    assert slow.energy_breakdown["mac"] == fast.energy_breakdown["mac"]


def test_a_run_reports_its_breakdown():
    from npusim import flow
    r = flow.simulate(flow.compile("mlp", "npu-tiny", num_calib=2), timing_only=True)
    doc = json.loads(json.dumps(r.to_json()))
    assert doc["energy_breakdown"] == pytest.approx(r.energy_breakdown)
    assert sum(doc["energy_breakdown"].values()) == pytest.approx(doc["energy_pj"], rel=1e-12)
    assert set(r.energy_breakdown) == {"mac", "vector", "sram_ibuf", "sram_wbuf", "sram_abuf",
                                       "sram_obuf", "dram", "leakage"}
    assert min(r.energy_breakdown.values()) > 0  # mlp uses every buffer, the vector unit, DRAM
