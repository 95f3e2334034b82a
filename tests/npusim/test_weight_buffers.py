"""PEs with two weight banks (Target -weight-buffers=2): a conv's next pass loads its weights
while the current pass streams (matrix_conv_wb2, rtl/systolic_array.v WB = 2). Exact cycles of
small instructions worked out by hand from the load/stream recurrence, the simulator and the
compiler's cost model on one rule, the attribute's checks, and never slower than one bank."""

import numpy as np
import pytest

from compiler.lower.cost import Hw
from isa import timing
from isa.codec import instruction
from isa.errors import SpecError
from isa.spec import load_spec
from isa.target import Target, TargetError
from npusim import flow
from npusim.exec import CoreState, execute
from npusim.memory import Dram

SPEC = load_spec()
TINY2 = "npu-tiny -weight-buffers=2"   # 4 x 4: R + C - 1 = 7


def _regs(kh=1, kw=1, stride=1, pad=0) -> dict:
    return dict(conv_kh=kh, conv_kw=kw, conv_stride_h=stride, conv_stride_w=stride,
                conv_pad_top=pad, conv_pad_bottom=pad, conv_pad_left=pad, conv_pad_right=pad,
                conv_dilation_h=1, conv_dilation_w=1)


def _conv_cycles(target, in_h, in_w, cin, cout, **regs) -> int:
    """The model's cycles of one conv: cfg words into a fresh core, then the conv, executed."""
    state = CoreState(Target.create(target))
    dram = Dram(64)
    for name, value in _regs(**regs).items():
        execute(instruction("cfg", unit=0, reg=name, value=value), state, dram, timing_only=True)
    conv = instruction("conv", ibuf=0, wbuf=0, abuf=0, in_h=in_h, in_w=in_w, cin=cin, cout=cout)
    return execute(conv, state, dram, timing_only=True).cycles


@pytest.mark.parametrize("shape,regs,one_bank,two_banks", [
    # one pass (k = 4, m = 4): nothing to overlap, 4 + 4 + 7 either way
    ((2, 2, 4, 4), {}, 15, 15),
    # 3x3 taps over a padded 6x6 map: 9 passes of k = 4 <= m = 36 run back to back:
    # 4 + 9 * 36 + 7, against 9 * (4 + 36 + 7)
    ((6, 6, 4, 4), dict(kh=3, kw=3, pad=1), 423, 335),
    # m = 1 < k = 4: load-bound, L[i] = 4i, T[i] = 4i + 4, the last row at 36: 36 + 1 + 7
    ((3, 3, 4, 4), dict(kh=3, kw=3), 9 * (4 + 1 + 7), 44),
    # cin = 5 on 4 rows: depths 4, 1, 4, 1 (two taps), m = 3 * 2 = 6:
    # L = 0, 4, 9, 15 (a bank frees as its pass feeds its last row); T = 4, 10, 16, 22 (back
    # to back); 22 + 6 + 7
    ((3, 3, 5, 3), dict(kh=2, kw=1), 2 * (4 + 6 + 7) + 2 * (1 + 6 + 7), 35),
])
def test_exact_conv_cycles_on_npu_tiny(shape, regs, one_bank, two_banks):
    assert _conv_cycles("npu-tiny", *shape, **regs) == one_bank
    assert _conv_cycles(TINY2, *shape, **regs) == two_banks


def test_a_deep_load_after_a_shallow_one_waits_for_its_bank():
    """npu-edge (16 x 16, R + C - 1 = 31), cin = 20: depths 16, 4, 16, 4, m = 2 * 4 = 8.
    L[0] = 0, T[0] = 16; L[1] = 16, T[1] = max(20, 24) = 24; L[2] = max(20, T[0] + 7) = 23
    (pass 0 still streams bank 0), T[2] = 39; L[3] = max(39, T[1] + 7) = 39, T[3] =
    max(43, 47) = 47: 47 + 8 + 31 = 86 (one bank: 2 * (16 + 8 + 31) + 2 * (4 + 8 + 31))."""
    assert _conv_cycles("npu-edge -weight-buffers=1", 2, 5, 20, 16, kw=2) == 196
    assert _conv_cycles("npu-edge -weight-buffers=2", 2, 5, 20, 16, kw=2) == 86
    hw = timing.HwParams.from_target(Target.create("npu-edge -weight-buffers=2"))
    assert timing.matrix_conv_wb2(hw, m=8, kh=1, kw=2, cin=20) == 86


def test_a_gemm_is_one_pass_and_keeps_its_rule():
    """Consecutive gemm instructions do not overlap: k + m + R + C - 1 on either bank count."""
    gemm = instruction("gemm", m=5, k=3, n=4)
    for target in ("npu-tiny", TINY2):
        state = CoreState(Target.create(target))
        assert execute(gemm, state, Dram(64), timing_only=True).cycles == 3 + 5 + 7
    assert timing.rule_name(gemm, "ws", 2) == "matrix_gemm"


def test_the_spec_names_the_rule():
    conv, gemm = SPEC.instruction("conv"), SPEC.instruction("gemm")
    assert [timing.rule_name(conv, "ws", b) for b in (1, 2)] == ["matrix_conv", "matrix_conv_wb2"]
    assert timing.rule_name(conv, "os", 1) == "matrix_conv_os"
    assert SPEC.weight_buffers[2]["timing"] == {"matrix_conv": "matrix_conv_wb2"}
    with pytest.raises(SpecError, match=r"no \[weight_buffers.3\] table; known counts: 1, 2"):
        conv.timing_for("ws", 3)
    hw = timing.HwParams.from_target(Target.create(TINY2))
    assert hw.weight_buffers == 2
    assert timing.rule_of(gemm, "ws", 2) is timing.RULES["matrix_gemm"]


def test_the_attribute_is_checked():
    # npu-edge and npu-server have the two banks, npu-tiny (the RTL's default build) one;
    # on an os array a tag's banks fall back to one (isa.target's Attr.only_with)
    assert [Target.create(t).weight_buffers for t in ("npu-edge", "npu-server", "npu-tiny",
                                                       "npu-edge -dataflow=os", "npu")] \
        == [2, 2, 1, 1, 1]
    with pytest.raises(TargetError, match=r"weight-buffers=2 with dataflow=os: .*hint: "
                                          r"-dataflow=ws, or -weight-buffers=1"):
        Target.create("npu-edge -dataflow=os -weight-buffers=2")
    with pytest.raises(TargetError, match=r"'weight-buffers' value '3' out of range: 1..2"):
        Target.create("npu-edge -weight-buffers=3")
    with pytest.raises(TargetError, match=r"'weight-buffers' value '0' out of range"):
        Target.create("npu-edge -weight-buffers=0")


@pytest.mark.parametrize("target", [TINY2, "npu-edge -weight-buffers=2",
                                    "npu-tiny -array=6x3 -weight-buffers=2"])
def test_the_cost_model_and_the_simulator_agree(target):
    """compiler.lower.cost.Hw.cycles (the tile choosers' price) == the simulator's executed
    cycles for convs in both regimes, on the Target's own rule."""
    hw = Hw.from_target(Target.create(target))
    for h, w, cin, regs in ((6, 6, 7, dict(kh=3, kw=3, pad=1)), (2, 2, 40, dict(kh=3, kw=3, pad=1)),
                            (3, 5, 3, dict(kh=1, kw=2, stride=2))):
        t = Target.create(target)
        oh = (h + 2 * regs.get("pad", 0) - regs["kh"]) // regs.get("stride", 1) + 1
        ow = (w + 2 * regs.get("pad", 0) - regs["kw"]) // regs.get("stride", 1) + 1
        cout = min(3, t.array_cols)
        model = _conv_cycles(target, h, w, cin, cout, **regs)
        assert hw.cycles("conv", m=oh * ow, kh=regs["kh"], kw=regs["kw"], cin=cin) == model
        one = Hw.from_target(t.with_attrs(weight_buffers=1))
        assert one.cycles("conv", m=oh * ow, kh=regs["kh"], kw=regs["kw"], cin=cin) > model


@pytest.mark.parametrize("model,resolution", [("small_cnn", None), ("resnet18", 32)])
def test_two_banks_are_never_slower(model, resolution):
    """The one-bank npu-edge program on npu-edge with two banks is faster (its convs overlap),
    and the program compiled for two banks is no slower there; functional and timing-only
    agree."""
    kw = {"resolution": resolution} if resolution else {}
    two = "npu-edge -weight-buffers=2"
    base = flow.compile(model, "npu-edge -weight-buffers=1", **kw)
    one_bank = flow.simulate(base, timing_only=True).cycles
    moved = flow.simulate(base, timing_only=True, target=two).cycles
    own = flow.compile(model, two, **kw)
    own_run = flow.simulate(own)
    assert moved < one_bank
    assert own_run.cycles <= moved
    assert flow.simulate(own, timing_only=True).cycles == own_run.cycles
    flow.verify(own, own_run)


def test_formula_of_the_spec_on_random_convs():
    """The spec's matrix_conv_wb2 text (evaluated) == isa.timing's rule, both regimes."""
    import math
    rng = np.random.default_rng(7)
    for _ in range(300):
        R, C = (int(x) for x in rng.integers(1, 33, size=2))
        hw = timing.HwParams(array_rows=R, array_cols=C, vector_lanes=16, vector_pipeline=4,
                             dma_setup=8, dram_latency=100, dram_bw=16, dma_fill_lanes=16,
                             weight_buffers=2)
        kh, kw, cin = int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 80))
        oh, ow = int(rng.integers(1, 9)), int(rng.integers(1, 9))
        passes = timing.conv_passes(hw, kh, kw, cin)
        ns = {"__builtins__": {}, "ceil": math.ceil, "sum": sum, "min": min, "max": max,
              "passes": passes, "oh": oh, "ow": ow, "R": R, "C": C}
        text = eval(SPEC.timing["matrix_conv_wb2"].cycles, ns)
        assert timing.matrix_conv_wb2(hw, m=oh * ow, kh=kh, kw=kw, cin=cin) == text


@pytest.mark.parametrize("shape", [(4, 4), (8, 8), (16, 16), (32, 32), (8, 32)])
def test_the_second_bank_costs_its_synthesized_area(shape):
    """-weight-buffers=2 prices matrix_unit with WB = 2: only the matrix component grows, by
    the Yosys difference of the two syntheses (rtl_area.csv) within the fit's stated error."""
    import pandas as pd

    from experiments.area_fit import row_um2
    from npusim.hw.area import CSV, area_breakdown, config_text, load_fit
    r, c = shape
    one, two = (area_breakdown(f"npu -array={r}x{c}{x}") for x in ("", " -weight-buffers=2"))
    table = pd.read_csv(CSV).set_index(["unit", "config"])
    synth = [row_um2(table.loc[("matrix_unit", config_text(p))])
             for p in ({"R": r, "C": c}, {"R": r, "C": c, "WB": 2})]
    err = load_fit()["modules"]["matrix_unit"]["max_abs_rel_err"] + 5e-5
    assert two["matrix"] > one["matrix"]
    assert two["matrix"] - one["matrix"] == pytest.approx((synth[1] - synth[0]) / 1e6,
                                                          abs=err * sum(synth) / 1e6)
    assert {k: v for k, v in two.items() if k != "matrix"} == \
        {k: v for k, v in one.items() if k != "matrix"}
