"""The reference: npusim's own functional execution and cycle rules, never re-implemented here."""

from __future__ import annotations

import numpy as np

from isa.codec import Instruction, decode_word
from npusim.exec import CoreState, ExecInfo, execute
from npusim.memory import Dram


class NpuModel:
    """One core's architectural state (+ DRAM) that the RTL's memories mirror."""

    def __init__(self, target, dram_bytes: int = 4096):
        self.state = CoreState(target)
        self.dram = Dram(dram_bytes)

    def reset_registers(self) -> None:
        """What the RTL's reset does: config registers to their spec reset values, memories kept."""
        for regs in self.state.regs.values():
            for name in regs:
                regs[name] = self.state.spec.registers[name].reset

    def poke(self, buf: str, addr: int, values) -> None:
        arr = self.state.buffers[buf]
        arr[addr:addr + len(values)] = np.asarray(values).astype(arr.dtype)

    def peek(self, buf: str, addr: int, count: int) -> np.ndarray:
        return self.state.buffers[buf][addr:addr + count].astype(np.int64)

    def run(self, word: int) -> tuple[Instruction, ExecInfo]:
        """Decode and execute one instruction word; the state advances."""
        instr = decode_word(word)
        return instr, execute(instr, self.state, self.dram)
