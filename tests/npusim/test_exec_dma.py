"""npusim.exec DMA: strided 2-D/3-D copies, zero padding, element sizes, faults and cycle counts."""

import numpy as np
import pytest

from isa import instruction as I
from npusim.exec import CoreState, execute
from npusim.faults import IllegalInstructionError, MemoryFault
from npusim.memory import Dram


@pytest.fixture
def tiny():
    return CoreState("npu-tiny"), Dram(1 << 16)


def test_load_2d_strided_with_padding(tiny):
    state, dram = tiny
    img = np.arange(6 * 10, dtype=np.int8).reshape(6, 10)
    dram.write(100, img)
    # rows 1..3, columns 2..6 of the image (row stride 10 bytes), padded 1/2 rows and 1/1 cols
    info = execute(I("load", chan=0, buf="ibuf", sram=7, dram=100 + 10 + 2, rows=3, cols=5,
                     stride=10, pad_top=1, pad_bottom=2, pad_left=1, pad_right=1), state, dram)
    expected = np.zeros((6, 7), np.int8)
    expected[1:4, 1:6] = img[1:4, 2:7]
    assert np.array_equal(state.buffers["ibuf"][7:7 + 42].reshape(6, 7), expected)
    assert state.buffers["ibuf"][:7].tolist() == [0] * 7
    # 15 bytes: 2 + 10 + ceil(15 / 4) = 16 cycles; SRAM side writes the padded 42 elements.
    assert (info.cycles, info.dram_bytes, info.sram_bytes) == (16, 15, 42)


def test_load_3d_planes_from_channel_registers(tiny):
    state, dram = tiny
    vol = np.arange(3 * 4 * 8, dtype=np.int8).reshape(3, 4, 8)
    dram.write(0, vol)
    execute(I("cfg", unit="dma0", reg="dma_planes", value=3), state, dram)
    execute(I("cfg", unit="dma0", reg="dma_plane_stride", value=32), state, dram)
    info = execute(I("load", chan=0, buf="wbuf", sram=0, dram=4, rows=2, cols=3, stride=8,
                     pad_left=1), state, dram)
    expected = np.zeros((3, 2, 4), np.int8)
    expected[:, :, 1:] = vol[:, :2, 4:7]
    assert np.array_equal(state.buffers["wbuf"][:24].reshape(3, 2, 4), expected)
    assert info.dram_bytes == 18 and info.cycles == 2 + 10 + 5


def test_abuf_elements_are_int32_little_endian(tiny):
    state, dram = tiny
    vals = np.array([[1, -2, 70000], [-(2 ** 31), 2 ** 31 - 1, 5]], np.int32)
    dram.write(64, vals)
    info = execute(I("load", chan=0, buf="abuf", sram=10, dram=64, rows=2, cols=3, stride=12),
                   state, dram)
    assert state.buffers["abuf"][10:16].tolist() == vals.reshape(-1).tolist()
    assert info.dram_bytes == 24 and info.cycles == 2 + 10 + 6
    # store it back transposed-by-stride: row r to byte 1000 + 16 r
    execute(I("store", chan=0, buf="abuf", sram=10, dram=1000, rows=2, cols=3, stride=16),
            state, dram)
    assert dram.read(1000, 3, np.int32).tolist() == [1, -2, 70000]
    assert dram.read(1016, 3, np.int32).tolist() == [-(2 ** 31), 2 ** 31 - 1, 5]
    assert dram.bytes[1012:1016].tolist() == [0, 0, 0, 0]  # the gap between rows is untouched


def test_store_3d_scatter(tiny):
    state, dram = tiny
    state.buffers["obuf"][:12] = np.arange(1, 13)
    execute(I("cfg", unit="dma0", reg="dma_planes", value=2), state, dram)
    execute(I("cfg", unit="dma0", reg="dma_plane_stride", value=100), state, dram)
    execute(I("store", chan=0, buf="obuf", sram=0, dram=0, rows=2, cols=3, stride=10),
            state, dram)
    assert dram.read(0, 3, np.int8).tolist() == [1, 2, 3]
    assert dram.read(10, 3, np.int8).tolist() == [4, 5, 6]
    assert dram.read(100, 3, np.int8).tolist() == [7, 8, 9]
    assert dram.read(110, 3, np.int8).tolist() == [10, 11, 12]


def test_misaligned_int32_transfer_faults(tiny):
    state, dram = tiny
    with pytest.raises(MemoryFault, match=r"misaligned DRAM dram 6: abuf elements are 4 bytes"):
        execute(I("load", chan=0, buf="abuf", sram=0, dram=6, rows=1, cols=4, stride=16),
                state, dram)
    with pytest.raises(MemoryFault, match=r"misaligned DRAM stride 10"):
        execute(I("store", chan=0, buf="abuf", sram=0, dram=8, rows=2, cols=2, stride=10),
                state, dram)


def test_oversized_transfer_faults_name_buffer_address_extent_and_size(tiny):
    state, dram = tiny
    # ibuf on npu-tiny is 4096 elements; (1 + 64 + 1) x 64 = 4224 from 0 overflows it.
    with pytest.raises(MemoryFault, match=r"ibuf overflow: operand 'sram' at element address 0 "
                                          r"with extent 4224 ends at 4224, past the ibuf size "
                                          r"of 4096"):
        execute(I("load", chan=0, buf="ibuf", sram=0, dram=0, rows=64, cols=64, stride=64,
                  pad_top=1, pad_bottom=1), state, dram)
    with pytest.raises(MemoryFault, match=r"DRAM access at 65000 .* ends at 65600, past the "
                                          r"DRAM size of 65536 bytes"):
        execute(I("load", chan=0, buf="ibuf", sram=0, dram=65000, rows=10, cols=60, stride=60),
                state, dram)


def test_missing_channel_is_illegal(tiny):
    state, dram = tiny
    with pytest.raises(IllegalInstructionError, match="chan=1 does not exist.*dma-engines=1"):
        execute(I("load", chan=1, buf="ibuf", sram=0, dram=0, rows=1, cols=1, stride=1),
                state, dram)


def test_timing_only_checks_but_moves_nothing(tiny):
    state, dram = tiny
    dram.write(0, np.full(16, 9, np.int8))
    info = execute(I("load", chan=0, buf="ibuf", sram=0, dram=0, rows=4, cols=4, stride=4),
                   state, dram, timing_only=True)
    assert info.cycles == 16 and not state.buffers["ibuf"].any()
    with pytest.raises(MemoryFault):
        execute(I("load", chan=0, buf="ibuf", sram=4090, dram=0, rows=4, cols=4, stride=4),
                state, dram, timing_only=True)


def test_fp16_target_moves_float16():
    state, dram = CoreState("npu-tiny -dtype=fp16"), Dram(4096)
    vals = np.array([1.5, -2.25, 65504.0, 0.0001], np.float16)
    dram.write(8, vals)
    info = execute(I("load", chan=0, buf="ibuf", sram=0, dram=8, rows=1, cols=4, stride=8),
                   state, dram)
    assert state.buffers["ibuf"].dtype == np.float16
    assert np.array_equal(state.buffers["ibuf"][:4], vals)
    assert info.dram_bytes == 8
