"""The DMA functions the conformance reference machine added to isa.semantics, on exact cases,
and their agreement with the simulator's DMA on the same transfer."""

import numpy as np

from isa import semantics
from isa.codec import make_instruction
from npusim.memory import Dram
from npusim.simulate import simulate


def test_dma_byte_addresses_steps_rows_and_planes():
    got = semantics.dma_byte_addresses(100, planes=2, plane_stride=50, rows=2, stride=10,
                                       row_bytes=3)
    assert got.tolist() == [[[100, 101, 102], [110, 111, 112]],
                            [[150, 151, 152], [160, 161, 162]]]


def test_dma_pad_frames_every_plane():
    tile = np.arange(1, 5).reshape(2, 1, 2)
    got = semantics.dma_pad(tile, pad_top=1, pad_bottom=0, pad_left=0, pad_right=1)
    assert got.tolist() == [[[0, 0, 0], [1, 2, 0]], [[0, 0, 0], [3, 4, 0]]]


def test_the_simulator_loads_what_the_functions_say():
    rng = np.random.default_rng(3)
    dram = Dram(4096)
    dram.bytes[:512] = rng.integers(0, 256, 512, dtype=np.uint8)
    want = semantics.dma_pad(dram.bytes[semantics.dma_byte_addresses(7, 2, 97, 3, 13, 5)]
                             .view(np.int8), 1, 2, 0, 3)
    prog = [make_instruction("cfg", unit="dma0", reg="dma_planes", value=2),
            make_instruction("cfg", unit="dma0", reg="dma_plane_stride", value=97),
            make_instruction("load", chan=0, sram=("ibuf", 0), dram=7, rows=3, cols=5, stride=13,
                             pad_top=1, pad_bottom=2, pad_right=3),
            make_instruction("signal", unit="dma0", sem=0),
            make_instruction("wait", unit="dma1", sem=0),
            make_instruction("store", chan=1, sram=("ibuf", 0), dram=1024, rows=1,
                             cols=want.size, stride=want.size)]
    result = simulate(prog, target="npu-edge", dram=dram)
    assert result.dram.bytes[1024:1024 + want.size].view(np.int8).tolist() == \
        want.reshape(-1).tolist()
