"""npusim.exec matrix engine: GEMM/CONV bit-exact against plain numpy loops, and their cycle rules."""

import numpy as np
import pytest

from isa import instruction as I
from npusim.exec import CoreState, execute
from npusim.faults import IllegalInstructionError, MemoryFault
from npusim.memory import Dram

rng = np.random.default_rng(7)


def cfg(state, **regs):
    for reg, value in regs.items():
        execute(I("cfg", unit="matrix", reg=reg, value=value), state, None)


def test_gemm_reads_tiles_at_their_addresses_and_counts_cycles():
    state = CoreState("npu-tiny")
    a, w = rng.integers(-128, 128, (5, 3)), rng.integers(-128, 128, (3, 2))
    state.buffers["ibuf"][40:55] = a.reshape(-1)
    state.buffers["wbuf"][9:15] = w.reshape(-1)
    info = execute(I("gemm", ibuf=40, wbuf=9, abuf=100, m=5, k=3, n=2), state, None)
    assert state.buffers["abuf"][100:110].reshape(5, 2).tolist() == (a @ w).tolist()
    # k + m + R + C - 1 = 3 + 5 + 4 + 4 - 1
    assert (info.cycles, info.macs) == (15, 30)
    assert info.sram_bytes == 15 + 6 + 10 * 4


def test_gemm_accumulates_and_wraps_like_a_32_bit_adder():
    state = CoreState("npu-tiny")
    state.buffers["ibuf"][:4] = [127, 127, 127, 127]
    state.buffers["wbuf"][:4] = [127, 127, 127, 127]  # k=4, n=1: one dot product of 64516
    state.buffers["abuf"][0] = 2 ** 31 - 10000
    execute(I("gemm", ibuf=0, wbuf=0, abuf=0, m=1, k=4, n=1, acc=1), state, None)
    assert state.buffers["abuf"][0] == 2 ** 31 - 10000 + 64516 - 2 ** 32
    execute(I("gemm", ibuf=0, wbuf=0, abuf=0, m=1, k=4, n=1, acc=0), state, None)
    assert state.buffers["abuf"][0] == 64516


def test_gemm_on_npu_edge_is_63_cycles():
    state = CoreState("npu-edge")
    assert execute(I("gemm", ibuf=0, wbuf=0, abuf=0, m=16, k=16, n=16), state, None).cycles == 63


def naive_conv(x, w, stride, pads, dil):
    top, left, bottom, right = pads
    xp = np.pad(x.astype(np.int64), ((top, bottom), (left, right), (0, 0)))
    kh, kw, cin, cout = w.shape
    oh = (xp.shape[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (xp.shape[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((oh, ow, cout), np.int64)
    for y in range(oh):
        for x_ in range(ow):
            for i in range(kh):
                for j in range(kw):
                    pix = xp[y * stride[0] + i * dil[0], x_ * stride[1] + j * dil[1]]
                    out[y, x_] += pix @ w[i, j].astype(np.int64)
    return out


def test_conv_with_stride_padding_dilation_and_channel_passes():
    state = CoreState("npu-tiny")
    x = rng.integers(-128, 128, (7, 6, 6)).astype(np.int8)
    w = rng.integers(-128, 128, (3, 2, 6, 3)).astype(np.int8)
    state.buffers["ibuf"][:x.size] = x.reshape(-1)
    state.buffers["wbuf"][:w.size] = w.reshape(-1)
    cfg(state, conv_kh=3, conv_kw=2, conv_stride_h=2, conv_pad_top=1, conv_pad_right=1,
        conv_dilation_w=2)
    info = execute(I("conv", ibuf=0, wbuf=0, abuf=16, in_h=7, in_w=6, cin=6, cout=3), state, None)
    expected = naive_conv(x, w, (2, 1), (1, 0, 0, 1), (1, 2))
    assert expected.shape == (3, 5, 3)
    assert np.array_equal(state.buffers["abuf"][16:16 + 45].reshape(3, 5, 3), expected)
    # oh*ow = 15 rows per pass; 6 taps x channel blocks [4, 2] on a 4-row array:
    # 6 * (4 + 15 + 4 + 4 - 1) + 6 * (2 + 15 + 4 + 4 - 1) = 156 + 144
    assert info.cycles == 300
    assert info.macs == 15 * 3 * 2 * 6 * 3


def test_conv_acc_adds_to_the_previous_tile():
    state = CoreState("npu-tiny")
    state.buffers["ibuf"][:8] = 1
    state.buffers["wbuf"][:2] = [3, -4]
    state.buffers["abuf"][:8] = 1000
    execute(I("conv", ibuf=0, wbuf=0, abuf=0, in_h=2, in_w=2, cin=2, cout=1, acc=1), state, None)
    assert state.buffers["abuf"][:4].tolist() == [999] * 4


def test_fp16_gemm_accumulates_in_fp32():
    state = CoreState("npu-tiny -dtype=fp16")
    a = rng.standard_normal((3, 4)).astype(np.float16)
    w = rng.standard_normal((4, 2)).astype(np.float16)
    state.buffers["ibuf"][:12] = a.reshape(-1)
    state.buffers["wbuf"][:8] = w.reshape(-1)
    execute(I("gemm", ibuf=0, wbuf=0, abuf=0, m=3, k=4, n=2), state, None)
    assert state.buffers["abuf"].dtype == np.float32
    assert np.array_equal(state.buffers["abuf"][:6].reshape(3, 2),
                          a.astype(np.float32) @ w.astype(np.float32))


@pytest.mark.parametrize("instr, error, text", [
    (I("gemm", ibuf=0, wbuf=0, abuf=0, m=1, k=5, n=1), IllegalInstructionError,
     "k=5 exceeds the array rows of 4"),
    (I("gemm", ibuf=0, wbuf=0, abuf=0, m=1, k=1, n=5), IllegalInstructionError,
     "n=5 exceeds the array columns of 4"),
    (I("conv", ibuf=0, wbuf=0, abuf=0, in_h=1, in_w=1, cin=1, cout=5), IllegalInstructionError,
     "cout=5 exceeds the array columns of 4"),
    (I("gemm", ibuf=4000, wbuf=0, abuf=0, m=25, k=4, n=4), MemoryFault,
     "ibuf overflow: operand 'ibuf' at element address 4000 with extent 100 ends at 4100"),
    (I("gemm", ibuf=0, wbuf=0, abuf=4090, m=2, k=4, n=4), MemoryFault, "abuf overflow"),
])
def test_matrix_faults(instr, error, text):
    with pytest.raises(error, match=text):
        execute(instr, CoreState("npu-tiny"), None)


def test_conv_with_empty_output_is_illegal():
    state = CoreState("npu-tiny")
    cfg(state, conv_kh=5)
    with pytest.raises(IllegalInstructionError, match=r"conv output would be empty \(0x4\)"):
        execute(I("conv", ibuf=0, wbuf=0, abuf=0, in_h=4, in_w=4, cin=1, cout=1), state, Dram(64))
