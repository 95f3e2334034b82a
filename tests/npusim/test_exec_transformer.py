"""npusim.exec on the transformer instructions: row reductions and row-broadcast ops, vexp /
vrecip / vrsqrt, gemm wt=1, on hand-worked values, their cycle rules and exact traces.

npu-tiny: 4 lanes, pipeline 2: row-wise = 2 + rows * ceil(cols/4), vrmul 2 more, vexp 5 more,
vrecip 7 more, vrsqrt 10 more than 2 + ceil(len/4); 4x4 array, gemm = k + m + 4 + 4 - 1.
"""

import numpy as np
import pytest

from isa import instruction as I
from isa import semantics
from npusim.exec import CoreState, execute
from npusim.faults import MemoryFault
from npusim.simulate import simulate


@pytest.fixture
def st():
    return CoreState("npu-tiny")


def put(state, buf, addr, values):
    state.buffers[buf][addr:addr + len(values)] = values


def get(state, buf, addr, n):
    return state.buffers[buf][addr:addr + n].tolist()


def rowop(op, rows, cols, dst=("abuf", 0), src0=("ibuf", 0), src1=None, **kw):
    extra = dict(src1_buf=src1[0], src1=src1[1]) if src1 else {}
    return I(op, dst_buf=dst[0], dst=dst[1], src0_buf=src0[0], src0=src0[1], rows=rows,
             cols=cols, **extra, **kw)


TILE = [3, -7, 100, 5, 0,    # row 0
        -128, -128, -1, -2, -3,   # row 1
        127, 127, 127, 127, 127]  # row 2


def test_vrmax_and_vrsum_reduce_each_row(st):
    put(st, "ibuf", 0, TILE)
    info = execute(rowop("vrmax", 3, 5), st, None)
    assert get(st, "abuf", 0, 3) == [100, -1, 127]
    assert info.cycles == 2 + 3 * 2 and info.vector_ops == 15  # 5 columns: 2 chunks a row
    info = execute(rowop("vrsum", 3, 5, dst=("abuf", 8)), st, None)
    assert get(st, "abuf", 8, 3) == [101, -262, 635]
    assert info.cycles == 8
    execute(rowop("vrsum", 3, 5, dst=("obuf", 0)), st, None)
    assert get(st, "obuf", 0, 3) == [101, -128, 127]  # the total saturates, once


def test_vrsub_and_vrmul_broadcast_one_value_per_row(st):
    put(st, "ibuf", 0, TILE)
    put(st, "abuf", 100, [100, -1, 127])
    info = execute(rowop("vrsub", 3, 5, dst=("abuf", 0), src1=("abuf", 100)), st, None)
    assert get(st, "abuf", 0, 15) == [-97, -107, 0, -95, -100, -127, -127, 0, -1, -2,
                                      0, 0, 0, 0, 0]
    assert info.cycles == 2 + 6
    put(st, "abuf", 200, [3, -5, 2**31 - 1])
    info = execute(rowop("vrmul", 3, 5, dst=("abuf", 20), src1=("abuf", 200), shift=1), st,
                   None)
    # round_shift(x * m, 1) rounds half up: 3 * 3 / 2 = 4.5 -> 5, -7 * 3 / 2 = -10.5 -> -10
    assert get(st, "abuf", 20, 5) == [5, -10, 150, 8, 0]
    assert get(st, "abuf", 25, 5) == [320, 320, 3, 5, 8]   # -3 * -5 / 2 = 7.5 -> 8
    assert get(st, "abuf", 30, 1) == [semantics.INT32_MAX]  # 127 * (2^31 - 1) / 2 saturates
    assert info.cycles == 2 + 2 + 6


def test_vexp_vrecip_vrsqrt_values_and_cycles(st):
    put(st, "abuf", 0, [0, -(1 << 16), -(2**31), 12345, -(1 << 15)])
    info = execute(I("vexp", dst_buf="abuf", dst=8, src0_buf="abuf", src0=0, len=5,
                     in_frac=16, out_frac=15), st, None)
    got = get(st, "abuf", 8, 5)
    assert got[0] == 2**15 and got[2] == 0 and got[3] == 2**15  # positive clamps to exp(0)
    assert abs(got[1] - np.exp(-1) * 2**15) <= 0.5 and abs(got[4] - np.exp(-0.5) * 2**15) <= 0.5
    assert info.cycles == 2 + 5 + 2
    put(st, "abuf", 16, [1, 4, 0, -2])
    info = execute(I("vrecip", dst_buf="abuf", dst=24, src0_buf="abuf", src0=16, len=4,
                     in_frac=0, out_frac=16), st, None)
    assert get(st, "abuf", 24, 4) == [65536, 16384, semantics.INT32_MAX, -32768]
    assert info.cycles == 2 + 7 + 1
    info = execute(I("vrsqrt", dst_buf="obuf", dst=0, src0_buf="abuf", src0=16, len=4,
                     in_frac=0, out_frac=6), st, None)
    assert get(st, "obuf", 0, 4) == [64, 32, 127, 127]  # 1/sqrt of <= 0 saturates
    assert info.cycles == 2 + 10 + 1


def test_row_operands_are_bounds_checked(st):
    size = st.sizes["abuf"]
    with pytest.raises(MemoryFault, match="operand 'src1'.*extent 3"):
        execute(rowop("vrsub", 3, 5, src1=("abuf", size - 2)), st, None)
    with pytest.raises(MemoryFault, match="operand 'dst'.*extent 2"):
        execute(rowop("vrmax", 2, 5, dst=("abuf", size - 1)), st, None)


def test_gemm_wt_reads_the_stationary_tile_transposed(st):
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, (5, 3)).astype(np.int8)
    w = rng.integers(-128, 128, (3, 4)).astype(np.int8)   # k x n
    put(st, "ibuf", 0, a.reshape(-1))
    put(st, "wbuf", 0, w.T.reshape(-1))                    # stored n x k, as K of Q.K^T
    info = execute(I("gemm", ibuf=0, wbuf=0, abuf=0, m=5, k=3, n=4, wt=1), st, None)
    assert get(st, "abuf", 0, 20) == (a.astype(int) @ w.astype(int)).reshape(-1).tolist()
    assert info.cycles == 3 + 5 + 4 + 4 - 1  # the same rule as wt = 0
    execute(I("gemm", ibuf=0, wbuf=0, abuf=0, m=5, k=3, n=4), st, None)
    assert get(st, "abuf", 0, 20) == (a.astype(int) @ w.T.reshape(3, 4).astype(int)
                                      ).reshape(-1).tolist()


def test_softmax_sequence_trace_is_exact():
    """docs/transformer.md's Softmax chain on a 2 x 8 tile, back to back on the vector unit:
    vrmax 2+4, vrsub 2+4, vrmul 2+2+4, vexp 2+5+4, vrsum 2+4, vrecip 2+7+1, vrmul 2+2+4."""
    def row(op, dst, src0, src1=None, **kw):
        return rowop(op, 2, 8, dst=dst, src0=src0, src1=src1, **kw)
    prog = [row("vrmax", ("abuf", 0), ("ibuf", 0)),
            row("vrsub", ("abuf", 16), ("ibuf", 0), ("abuf", 0)),
            row("vrmul", ("abuf", 16), ("abuf", 16), ("abuf", 4), shift=12),
            I("vexp", dst_buf="abuf", dst=32, src0_buf="abuf", src0=16, len=16, in_frac=20,
              out_frac=15),
            row("vrsum", ("abuf", 8), ("abuf", 32)),
            I("vrecip", dst_buf="abuf", dst=12, src0_buf="abuf", src0=8, len=2, in_frac=15,
              out_frac=23),
            row("vrmul", ("obuf", 0), ("abuf", 32), ("abuf", 12), shift=31),
            I("halt")]
    res = simulate(prog, "npu-tiny", timing_only=True)
    spans = [(r.mnemonic, r.start, r.end) for r in res.trace.itertuples() if r.unit == "vector"]
    lengths = [6, 6, 8, 11, 6, 10, 8]
    starts = [1 + sum(lengths[:i]) for i in range(7)]
    assert spans == [(m, s, s + n) for m, s, n in zip(
        ["vrmax", "vrsub", "vrmul", "vexp", "vrsum", "vrecip", "vrmul"], starts, lengths)]


def test_fp16_mode_computes_the_ieee_versions():
    st = CoreState("npu-tiny -dtype=fp16")
    put(st, "ibuf", 0, [1.0, -2.0, 0.5, 4.0])
    execute(rowop("vrmax", 2, 2, dst=("abuf", 0)), st, None)
    assert get(st, "abuf", 0, 2) == [1.0, 4.0]
    execute(rowop("vrsub", 2, 2, dst=("abuf", 4), src1=("abuf", 0)), st, None)
    assert get(st, "abuf", 4, 4) == [0.0, -3.0, -3.5, 0.0]
    execute(I("vexp", dst_buf="abuf", dst=8, src0_buf="abuf", src0=4, len=4, in_frac=9,
              out_frac=3), st, None)  # the fractional fields are ignored
    assert np.allclose(get(st, "abuf", 8, 4), np.exp([0.0, -3.0, -3.5, 0.0]), rtol=1e-6)
    execute(rowop("vrsum", 2, 2, dst=("abuf", 12), src0=("abuf", 8)), st, None)
    execute(I("vrecip", dst_buf="abuf", dst=14, src0_buf="abuf", src0=12, len=2), st, None)
    execute(rowop("vrmul", 2, 2, dst=("obuf", 0), src0=("abuf", 8), src1=("abuf", 14),
                  shift=5), st, None)
    p = np.exp([[0.0, -3.0], [-3.5, 0.0]])
    assert np.allclose(get(st, "obuf", 0, 4), (p / p.sum(axis=1, keepdims=True)).reshape(-1),
                       rtol=1e-3)
    execute(I("vrsqrt", dst_buf="abuf", dst=20, src0_buf="ibuf", src0=3, len=1), st, None)
    assert get(st, "abuf", 20, 1) == [0.5]
