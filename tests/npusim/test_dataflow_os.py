"""The output-stationary array (-dataflow=os): the same results as weight-stationary, its own
cycle rules and field limits (the spec's [dataflow] table), exact traces worked by hand.

npu-tiny: 4x4 array, vector pipeline 2, dma-setup 2, dram-latency 10, dram-bw 4 B/cycle."""

import numpy as np
import pytest

from isa import instruction as I
from isa import timing
from isa.checks import TargetCheckError, check_instruction
from isa.spec import load_spec
from isa.target import Target
from npusim.exec import CoreState, execute
from npusim.faults import IllegalInstructionError
from npusim.simulate import simulate

from test_exec_matrix import cfg, naive_conv

OS = "npu-tiny -dataflow=os"
rng = np.random.default_rng(11)


def test_the_dataflow_chooses_the_rule_in_one_place():
    gemm, conv = load_spec().instruction("gemm"), load_spec().instruction("conv")
    assert (timing.rule_name(gemm, "ws"), timing.rule_name(gemm, "os")) == (
        "matrix_gemm", "matrix_gemm_os")
    assert timing.rule_name(conv, "os") == "matrix_conv_os"
    assert timing.rule_name(load_spec().instruction("vadd"), "os") == "vector_elementwise"
    assert timing.HwParams.from_target(Target.create(OS)).dataflow == "os"


def test_gemm_folds_m_by_the_rows_and_takes_k_past_them():
    ws, os_ = CoreState("npu-tiny"), CoreState(OS)
    a, w = rng.integers(-128, 128, (5, 9)), rng.integers(-128, 128, (9, 3))
    for state in (ws, os_):
        state.buffers["ibuf"][40:85] = a.reshape(-1)
        state.buffers["wbuf"][7:34] = w.reshape(-1)
    info = execute(I("gemm", ibuf=40, wbuf=7, abuf=100, m=5, k=9, n=3), os_, None)
    assert os_.buffers["abuf"][100:115].reshape(5, 3).tolist() == (a @ w).tolist()
    # ceil(5 / 4) = 2 folds of k + R + C - 1 = 9 + 4 + 4 - 1 = 16 cycles
    assert (info.cycles, info.macs) == (32, 135)
    # inputs once (45), weights once per fold (2 x 27), outputs written once (15 x 4 B)
    assert info.sram_bytes == 45 + 54 + 60
    # k = 9 > R is the weight-stationary array's limit only
    with pytest.raises(IllegalInstructionError, match="k=9 exceeds the array rows of 4"):
        execute(I("gemm", ibuf=40, wbuf=7, abuf=100, m=5, k=9, n=3), ws, None)
    # the same tile split for ws (k <= 4, acc) gives the same integers
    for k0 in range(0, 9, 4):
        k1 = min(k0 + 4, 9)
        sub = w[k0:k1]
        ws.buffers["ibuf"][200:200 + 5 * (k1 - k0)] = a[:, k0:k1].reshape(-1)
        ws.buffers["wbuf"][100:100 + sub.size] = sub.reshape(-1)
        execute(I("gemm", ibuf=200, wbuf=100, abuf=100, m=5, k=k1 - k0, n=3, acc=int(k0 > 0)),
                ws, None)
    assert np.array_equal(ws.buffers["abuf"][100:115], os_.buffers["abuf"][100:115])


def test_gemm_os_cycles_at_the_fold_boundaries():
    state = CoreState(OS)
    run = lambda m, k: execute(I("gemm", ibuf=0, wbuf=0, abuf=0, m=m, k=k, n=4), state,  # noqa: E731
                               None, timing_only=True).cycles
    assert [run(m, 1) for m in (1, 4, 5, 8, 9)] == [8, 8, 16, 16, 24]
    assert run(4, 255) == 255 + 7


def test_conv_os_streams_the_whole_window_per_fold():
    state = CoreState(OS)
    x = rng.integers(-128, 128, (7, 6, 6)).astype(np.int8)
    w = rng.integers(-128, 128, (3, 2, 6, 3)).astype(np.int8)
    state.buffers["ibuf"][:x.size] = x.reshape(-1)
    state.buffers["wbuf"][:w.size] = w.reshape(-1)
    cfg(state, conv_kh=3, conv_kw=2, conv_stride_h=2, conv_pad_top=1, conv_pad_right=1,
        conv_dilation_w=2)
    info = execute(I("conv", ibuf=0, wbuf=0, abuf=16, in_h=7, in_w=6, cin=6, cout=3), state, None)
    expected = naive_conv(x, w, (2, 1), (1, 0, 0, 1), (1, 2))
    assert np.array_equal(state.buffers["abuf"][16:16 + 45].reshape(3, 5, 3), expected)
    # oh*ow = 15 pixels: ceil(15 / 4) = 4 folds of kh*kw*cin + R + C - 1 = 36 + 7 cycles
    # (weight-stationary: 300, test_exec_matrix)
    assert info.cycles == 4 * 43
    eb = 1
    assert dict(info.sram) == {"ibuf": 15 * 36 * eb, "wbuf": 4 * 36 * 3 * eb, "abuf": 45 * 4}


def test_os_faults_and_checks_name_the_limit_of_the_dataflow():
    with pytest.raises(IllegalInstructionError, match="n=5 exceeds the array columns of 4"):
        execute(I("gemm", ibuf=0, wbuf=0, abuf=0, m=1, k=1, n=5), CoreState(OS), None)
    big_k = I("gemm", ibuf=0, wbuf=0, abuf=0, m=2, k=200, n=4)
    check_instruction(big_k, Target.create(OS))
    with pytest.raises(TargetCheckError, match=r"field 'k' value 200 out of range 1\.\.4 "
                                               r"\(array_rows of npu-tiny\)"):
        check_instruction(big_k, Target.create("npu-tiny"))
    with pytest.raises(TargetCheckError, match=r"field 'n' value 5 out of range 1\.\.4 "
                                               r"\(array_cols of npu-tiny -dataflow=os\)"):
        check_instruction(I("gemm", ibuf=0, wbuf=0, abuf=0, m=2, k=2, n=5), Target.create(OS))


def rows(res):
    return [(r.unit, r.mnemonic, r.start, r.end) for r in res.trace.itertuples()]


def test_exact_trace_of_a_load_then_two_os_gemms():
    load = I("load", chan=0, buf="ibuf", sram=0, dram=0, rows=4, cols=4, stride=4)
    prog = [load, I("signal", unit="dma0", sem=0), I("wait", unit="matrix", sem=0),
            I("gemm", ibuf=0, wbuf=0, abuf=0, m=4, k=4, n=4),
            I("gemm", ibuf=0, wbuf=0, abuf=0, m=6, k=10, n=2, acc=1), I("halt")]
    res = simulate(prog, OS)
    # load 1..17 (2 + 10 + 4), signal 17..18, wait 18..19; gemm 1 fold: 4 + 4 + 4 - 1 = 11
    # cycles 19..30; gemm 2: ceil(6 / 4) = 2 folds of 10 + 7 = 17: 34 cycles 30..64
    assert rows(res) == [("dma0", "load", 1, 17), ("matrix", "wait", 3, 19),
                         ("dispatch", "halt", 5, 6), ("dma0", "signal", 17, 18),
                         ("matrix", "gemm", 19, 30), ("matrix", "gemm", 30, 64)]
    assert res.cycles == 64
    ws = simulate(prog[:4] + prog[5:], "npu-tiny")
    assert rows(ws)[-1] == ("matrix", "gemm", 19, 34)  # k + m + R + C - 1 = 15 on ws


def test_timing_only_gives_the_same_os_cycles():
    prog = [I("gemm", ibuf=0, wbuf=0, abuf=0, m=9, k=30, n=3), I("halt")]
    assert simulate(prog, OS).cycles == simulate(prog, OS, timing_only=True).cycles == \
        1 + 3 * (30 + 7)
