"""npusim.exec vector unit: every VECTOR instruction on hand-worked values, and its cycle rule.

npu-tiny: 4 lanes, pipeline 2, so elementwise = 2 + ceil(len/4) and requant = 4 + ceil(len/4).
"""

import numpy as np
import pytest

from isa import instruction as I
from npusim.exec import CoreState, execute
from npusim.faults import IllegalInstructionError, MemoryFault


@pytest.fixture
def st():
    return CoreState("npu-tiny")


def put(state, buf, addr, values):
    state.buffers[buf][addr:addr + len(values)] = values


def get(state, buf, addr, n):
    return state.buffers[buf][addr:addr + n].tolist()


def binary(op, n, dst=("obuf", 0), src0=("ibuf", 0), src1=("wbuf", 0), **kw):
    return I(op, dst_buf=dst[0], dst=dst[1], src0_buf=src0[0], src0=src0[1], src1_buf=src1[0],
             src1=src1[1], len=n, **kw)


def unary(op, n, dst=("obuf", 0), src0=("ibuf", 0), **kw):
    return I(op, dst_buf=dst[0], dst=dst[1], src0_buf=src0[0], src0=src0[1], len=n, **kw)


@pytest.mark.parametrize("op, expected", [
    ("vadd", [127, -128, 3, 0, -1, -128]),
    ("vsub", [0, 0, -1, -2, 127, -128]),
    ("vmul", [127, 127, 2, -1, -128, 0]),
    ("vmax", [100, -100, 2, 1, 127, 0]),
    ("vmin", [100, -100, 1, -1, -128, -128]),
])
def test_binary_ops_saturate_to_int8(st, op, expected):
    put(st, "ibuf", 0, [100, -100, 1, -1, 127, -128])
    put(st, "wbuf", 0, [100, -100, 2, 1, -128, 0])
    info = execute(binary(op, 6), st, None)
    assert get(st, "obuf", 0, 6) == expected
    assert info.cycles == 2 + 2 and info.vector_ops == 6


def test_residual_add_into_abuf_does_not_saturate_at_int8(st):
    put(st, "ibuf", 0, [100, -100, 127])
    put(st, "obuf", 8, [100, -100, 127])
    execute(binary("vadd", 3, dst=("abuf", 4), src1=("obuf", 8)), st, None)
    assert get(st, "abuf", 4, 3) == [200, -200, 254]


def test_int32_add_saturates_at_int32(st):
    put(st, "abuf", 0, [2 ** 31 - 1, -(2 ** 31)])
    put(st, "abuf", 2, [1, -1])
    execute(binary("vadd", 2, dst=("abuf", 0), src0=("abuf", 0), src1=("abuf", 2)), st, None)
    assert get(st, "abuf", 0, 2) == [2 ** 31 - 1, -(2 ** 31)]


def test_relu_clip_copy(st):
    put(st, "abuf", 0, [-5, 0, 7, 300, -300])
    execute(unary("vrelu", 5, src0=("abuf", 0)), st, None)
    assert get(st, "obuf", 0, 5) == [0, 0, 7, 127, 0]
    execute(unary("vclip", 5, src0=("abuf", 0), lo=-4, hi=6), st, None)
    assert get(st, "obuf", 0, 5) == [-4, 0, 6, 6, -4]
    info = execute(unary("vcopy", 5, src0=("abuf", 0)), st, None)
    assert get(st, "obuf", 0, 5) == [-5, 0, 7, 127, -128]
    assert info.cycles == 2 + 2


def test_shift_right_rounds_half_up(st):
    put(st, "abuf", 0, [5, -5, 6, -6, 7, 1, -1, 2, 1000])
    execute(unary("vshr", 9, src0=("abuf", 0), shift=1), st, None)
    assert get(st, "obuf", 0, 9) == [3, -2, 3, -3, 4, 1, 0, 1, 127]


def test_requantize_per_channel_with_zero_point_and_relu(st):
    put(st, "abuf", 0, [10, -7, 5, -3])
    put(st, "abuf", 100, [3, 2, 5, 1])             # channel 0: (3, >>2), channel 1: (5, >>1)
    info = execute(binary("vrequant", 4, src0=("abuf", 0), src1=("abuf", 100), channels=2,
                          zp=1), st, None)
    # 30>>2 -> (30+2)>>2 = 8; -35>>1 -> (-35+1)>>1 = -17; 15 -> 4; -15 -> -7; then + zp 1
    assert get(st, "obuf", 0, 4) == [9, -16, 5, -6]
    assert info.cycles == 2 + 2 + 1
    execute(binary("vrequant", 4, src0=("abuf", 0), src1=("abuf", 100), channels=2, zp=1,
                   relu=1), st, None)
    assert get(st, "obuf", 0, 4) == [9, 1, 5, 1]


def test_requantize_ties_and_saturation(st):
    put(st, "abuf", 0, [2, -2, 6, -6, 10 ** 6, -(10 ** 6)])
    put(st, "abuf", 50, [1, 2])
    execute(binary("vrequant", 6, src0=("abuf", 0), src1=("abuf", 50), channels=1), st, None)
    assert get(st, "obuf", 0, 6) == [1, 0, 2, -1, 127, -128]


def test_bias_is_per_channel(st):
    put(st, "abuf", 0, list(range(6)))
    put(st, "abuf", 20, [100, -100, 2 ** 31 - 1])
    execute(binary("vbias", 6, dst=("abuf", 0), src0=("abuf", 0), src1=("abuf", 20),
                   channels=3), st, None)
    assert get(st, "abuf", 0, 6) == [100, -99, 2 ** 31 - 1, 103, -96, 2 ** 31 - 1]


def test_lut_indexes_by_value_plus_128(st):
    table = ((np.arange(256) * 7) % 256 - 128).astype(np.int8)
    put(st, "wbuf", 0, table)
    put(st, "ibuf", 0, [-128, -1, 0, 1, 127])
    execute(binary("vlut", 5), st, None)
    assert get(st, "obuf", 0, 5) == [int(table[i]) for i in (0, 127, 128, 129, 255)]


def naive_pool(x, k, s, pads, kind):
    top, left, bottom, right = pads
    h, w, c = x.shape
    oh, ow = (h + top + bottom - k[0]) // s[0] + 1, (w + left + right - k[1]) // s[1] + 1
    out = np.zeros((oh, ow, c), np.int64)
    for y in range(oh):
        for xx in range(ow):
            rows = [r for r in range(y * s[0] - top, y * s[0] - top + k[0]) if 0 <= r < h]
            cols = [q for q in range(xx * s[1] - left, xx * s[1] - left + k[1]) if 0 <= q < w]
            win = x[np.ix_(rows, cols)].astype(np.int64)
            out[y, xx] = win.max(axis=(0, 1)) if kind == "max" else win.sum(axis=(0, 1))
    return out


def pool_cfg(st, **regs):
    for reg, value in regs.items():
        execute(I("cfg", unit="vector", reg=reg, value=value), st, None)


def test_maxpool_padding_never_wins(st):
    x = -np.arange(1, 4 * 5 * 6 + 1).reshape(4, 5, 6) % 100 - 100  # all negative
    put(st, "ibuf", 0, x.reshape(-1))
    pool_cfg(st, pool_kh=3, pool_kw=2, pool_stride_h=2, pool_stride_w=2, pool_pad_top=1,
             pool_pad_left=1, pool_pad_bottom=1)
    info = execute(I("vmaxpool", dst_buf="obuf", dst=0, src0_buf="ibuf", src0=0, in_h=4, in_w=5,
                     channels=6), st, None)
    expected = naive_pool(x, (3, 2), (2, 2), (1, 1, 1, 0), "max")
    assert expected.shape == (2, 3, 6) and (expected < 0).all()
    assert get(st, "obuf", 0, expected.size) == expected.reshape(-1).tolist()
    # P + oh*ow*kh*kw*ceil(c/L) = 2 + 2*3*3*2*2
    assert info.cycles == 74


def test_sumpool_saturates_int8_but_not_int32(st):
    x = np.full((4, 4, 2), 100, np.int8)
    put(st, "ibuf", 0, x.reshape(-1))
    pool_cfg(st, pool_kh=2, pool_kw=2, pool_stride_h=2, pool_stride_w=2)
    execute(I("vsumpool", dst_buf="obuf", dst=0, src0_buf="ibuf", src0=0, in_h=4, in_w=4,
              channels=2), st, None)
    assert get(st, "obuf", 0, 8) == [127] * 8
    execute(I("vsumpool", dst_buf="abuf", dst=0, src0_buf="ibuf", src0=0, in_h=4, in_w=4,
              channels=2), st, None)
    assert get(st, "abuf", 0, 8) == [400] * 8


@pytest.mark.parametrize("instr, error, text", [
    (binary("vrequant", 4, src0=("abuf", 0), src1=("wbuf", 0), channels=1),
     IllegalInstructionError, "vrequant reads its \\(mult, shift\\) int32 pairs from abuf, not wbuf"),
    (binary("vlut", 4, src0=("abuf", 0)), IllegalInstructionError, "vlut src0 must be an int8"),
    (unary("vrelu", 100, dst=("obuf", 4000)), MemoryFault,
     "obuf overflow: operand 'dst' at element address 4000 with extent 100 ends at 4100, "
     "past the obuf size of 4096"),
    (binary("vadd", 8, src1=("wbuf", 4090)), MemoryFault, "wbuf overflow: operand 'src1'"),
    (binary("vbias", 8, src1=("abuf", 4095), channels=2), MemoryFault,
     "abuf overflow: operand 'src1' .* extent 2"),
])
def test_vector_faults(st, instr, error, text):
    with pytest.raises(error, match=text):
        execute(instr, st, None)


def test_requant_shift_out_of_range_is_a_fault(st):
    put(st, "abuf", 0, [1, 64])
    with pytest.raises(IllegalInstructionError, match="shift of channel 0 is 64, outside 0..63"):
        execute(binary("vrequant", 1, src0=("abuf", 8), src1=("abuf", 0), channels=1), st, None)


def test_integer_only_ops_are_illegal_in_fp16_mode():
    st = CoreState("npu-tiny -dtype=fp16")
    with pytest.raises(IllegalInstructionError, match="vshr is defined only for the int8"):
        execute(unary("vshr", 4, shift=1), st, None)
    put(st, "ibuf", 0, [1.5, -2.0])
    put(st, "wbuf", 0, [0.25, 4.0])
    execute(binary("vmul", 2), st, None)
    assert get(st, "obuf", 0, 2) == [0.375, -8.0]
