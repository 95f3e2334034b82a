"""SimResult counters, energy, utilization, JSON and Chrome trace on hand-worked programs."""

import json
from pathlib import Path

import numpy as np
import pytest

from isa import instruction as I
from isa.spec import load_spec
from npusim.hw.area import area_mm2
from npusim.simulate import simulate
from npusim.units import COUNTERS

GEMM_PROG = [I("load", chan=0, buf="ibuf", sram=0, dram=0, rows=4, cols=4, stride=4),
             I("signal", unit="dma0", sem=0), I("wait", unit="matrix", sem=0),
             I("gemm", ibuf=0, wbuf=0, abuf=0, m=4, k=4, n=4), I("halt")]


def test_totals_energy_and_utilization_by_hand():
    res = simulate(GEMM_PROG, "npu-tiny")
    assert res.cycles == 34 and res.instructions == 5 and res.macs == 64
    assert res.utilization == pytest.approx(64 / (34 * 4 * 4))
    assert res.dram_bytes == {"read": 16, "write": 0}
    assert res.dram_bw_achieved == pytest.approx(16 / 34)
    e = res.energy_pj
    # npu-tiny at 45 nm (docs/energy.md): int8 MAC 0.3 pJ; SRAM 1.25 pJ/B x sqrt(KiB / 8) with
    # ibuf/wbuf 4 KiB, abuf 16 KiB; DRAM 160 pJ/B; leakage 25 mW/mm^2 x area for 0.34 us
    root_half, root_two = (4 / 8) ** 0.5, (16 / 8) ** 0.5
    assert e["mac"] == pytest.approx(64 * 0.3)
    assert e["sram"] == pytest.approx(1.25 * ((16 + 16 + 16) * root_half + 16 * 4 * root_two))
    assert e["dram"] == pytest.approx(16 * 160.0)
    assert e["vector"] == 0
    assert e["static"] == pytest.approx(area_mm2("npu-tiny") * 25e-3 * 34 / 100e6 * 1e12)
    assert e["total"] == pytest.approx(sum(v for k, v in e.items() if k != "total"))


@pytest.mark.parametrize("target", ["npu-tiny", "npu-tiny -num-cores=2 -dma-engines=2"])
def test_every_units_counters_add_up_to_the_run(target):
    prog = GEMM_PROG[:-1] + [I("barrier"), I("vrelu", dst_buf="obuf", dst=0, src0_buf="ibuf",
                                               src0=0, len=9)]
    streams = [prog] * (2 if "num-cores=2" in target else 1)
    res = simulate(streams, target)
    for name, c in res.units.items():
        assert c["busy"] + c["idle"] + sum(c[k] for k in COUNTERS[1:]) == res.cycles, name
        assert min(c.values()) >= 0, name
    assert sum(c["instructions"] for c in res.units.values()) == res.instructions == len(res.trace)


def test_json_is_serializable_and_complete():
    data = simulate(GEMM_PROG, "npu-tiny").to_json()
    for key in ("cycles", "instructions", "utilization", "dram_bytes", "units", "energy_pj",
                "sim_wall_s"):
        assert key in data
    assert json.loads(json.dumps(data))["units"]["core0.matrix"]["stall_token"] == 15


def test_every_reported_counter_is_documented():
    doc = (Path(__file__).parents[2] / "docs" / "counters.md").read_text()
    res = simulate(GEMM_PROG, "npu-tiny")
    names = [*res.to_json(), *res.units["core0.dma0"], *res.energy_pj, *res.dram_bytes,
             *res.trace.columns]
    assert [n for n in names if f"`{n}`" not in doc] == []


def test_chrome_trace_has_a_track_per_core_and_unit(tmp_path):
    res = simulate([GEMM_PROG, GEMM_PROG], "npu-tiny -num-cores=2")
    trace = res.chrome_trace()
    threads = {(e["pid"], e["args"]["name"]) for e in trace["traceEvents"]
               if e["ph"] == "M" and e["name"] == "thread_name"}
    assert threads == {(c, u) for c in (0, 1) for u in ("dispatch", "matrix", "vector", "dma0")}
    spans = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(spans) == len(res.trace) == 10
    gemms = sorted((e["pid"], e["ts"], e["dur"], e["args"]["macs"]) for e in spans
                   if e["name"] == "gemm")
    # core1's 4-beat load waits 4 cycles for core0's on the shared port, so its gemm is 4 later
    assert gemms == [(0, 19, 15, 64), (1, 23, 15, 64)]
    path = tmp_path / "t.json"
    res.save_chrome_trace(path)
    assert json.loads(path.read_text()) == json.loads(json.dumps(trace))


def test_trace_off_keeps_the_counters():
    full, bare = simulate(GEMM_PROG, "npu-tiny"), simulate(GEMM_PROG, "npu-tiny", trace=False)
    assert bare.trace.empty and list(bare.trace.columns) == list(full.trace.columns)
    assert (bare.cycles, bare.units, bare.energy_pj) == (full.cycles, full.units, full.energy_pj)


def test_every_spec_instruction_runs_in_the_model():
    """One program using every mnemonic of the spec runs functionally and in timing-only mode."""
    v = dict(dst_buf="obuf", dst=0, src0_buf="ibuf", src0=0)
    b = dict(v, src1_buf="wbuf", src1=0, len=8)
    prog = [I("nop"), I("cfg", unit="matrix", reg="conv_kh", value=1),
            I("load", chan=0, buf="ibuf", sram=0, dram=0, rows=2, cols=8, stride=8),
            I("store", chan=0, buf="obuf", sram=0, dram=64, rows=1, cols=8, stride=8),
            I("gemm", ibuf=0, wbuf=0, abuf=0, m=2, k=4, n=4),
            I("conv", ibuf=0, wbuf=0, abuf=0, in_h=2, in_w=2, cin=2, cout=2),
            I("dwconv", ibuf=0, wbuf=0, abuf=0, in_h=2, in_w=2, channels=2),
            *[I(op, **b) for op in ("vadd", "vsub", "vmul", "vmax", "vmin", "vlut")],
            *[I(op, **v, len=8) for op in ("vrelu", "vcopy")],
            I("vclip", **v, len=8, lo=-3, hi=3), I("vshr", **v, len=8, shift=2),
            I("vrequant", **dict(b, src1_buf="abuf"), channels=2),
            I("vbias", **b, channels=4),
            I("vmaxpool", **v, in_h=2, in_w=2, channels=2),
            I("vsumpool", **v, in_h=2, in_w=2, channels=2),
            *[I(op, **v, rows=2, cols=4) for op in ("vrmax", "vrsum")],
            *[I(op, **v, src1_buf="wbuf", src1=0, rows=2, cols=4)
              for op in ("vrsub", "vrmul")],
            *[I(op, **v, len=8) for op in ("vexp", "vrecip", "vrsqrt")],
            I("gemm", ibuf=0, wbuf=0, abuf=0, m=2, k=4, n=4, wt=1),
            I("signal", unit="vector", sem=1), I("wait", unit="matrix", sem=1),
            I("barrier"), I("gbarrier", id=0), I("halt")]
    assert {i.mnemonic for i in prog} == {i.mnemonic for i in load_spec().instructions}
    # a bag of every mnemonic, not an ordered program: its units race by design
    # dwconv runs on an array with the depthwise mode
    full = simulate(prog, "npu-tiny -depthwise-mode=1", inputs=None, races="off")
    fast = simulate(prog, "npu-tiny -depthwise-mode=1", timing_only=True, races="off")
    assert set(full.trace.mnemonic) == {i.mnemonic for i in prog}
    assert full.cycles == fast.cycles
    assert np.array_equal(full.trace[["start", "end"]].values, fast.trace[["start", "end"]].values)
