"""The per-shape cost cache of npusim.exec (CoreState.shapes): one cost per shape, yet every
address checked, registers and a swapped cycle rule (isa.timing.override) honoured."""

import pytest

from isa import instruction as I
from isa import timing
from npusim.exec import CoreState, execute
from npusim.faults import MemoryFault
from npusim.memory import Dram


def conv(ibuf=0):
    return I("conv", ibuf=ibuf, wbuf=0, abuf=0, in_h=4, in_w=4, cin=2, cout=2)


def test_one_shape_is_costed_once_and_its_addresses_are_checked_every_time():
    state = CoreState("npu-tiny")
    first = execute(conv(), state, None)
    assert execute(conv(ibuf=32), state, None) is first  # the cached cost
    with pytest.raises(MemoryFault, match="ibuf overflow"):
        execute(conv(ibuf=state.sizes["ibuf"] - 8), state, None)


def test_registers_and_a_swapped_rule_are_part_of_the_shape():
    state = CoreState("npu-tiny")
    plain = execute(conv(), state, None).cycles
    execute(I("cfg", unit="matrix", reg="conv_kh", value=3), state, None)
    assert execute(conv(), state, None).cycles != plain  # a 3-row kernel: other passes, other m
    original = timing.RULES["matrix_conv"]
    with timing.override("matrix_conv", lambda hw, **ops: original(hw, **ops) + 5):
        longer = execute(conv(), state, None).cycles
    assert longer == execute(conv(), state, None).cycles + 5


def test_a_dma_shape_still_checks_its_dram_address():
    state = CoreState("npu-tiny")
    dram = Dram(4096)
    load = dict(chan=0, buf="ibuf", sram=0, rows=2, cols=4, stride=4)
    execute(I("load", dram=0, **load), state, dram)
    with pytest.raises(MemoryFault, match="DRAM access"):
        execute(I("load", dram=4090, **load), state, dram)
