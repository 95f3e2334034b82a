"""A DMA channel as a SimPy process: setup, data beats over the shared DRAM port, latency."""

from __future__ import annotations

from npusim.exec import issue
from npusim.units.base import Unit


class DmaUnit(Unit):
    """Uncontended, a transfer takes exactly timing.dma = setup + latency + ceil(bytes / BW);
    waiting for the shared port (other channels, other cores) is counted as stall_dram."""

    def __init__(self, core, name: str, port):
        self.port = port
        super().__init__(core, name)

    def execute(self, instr):
        ref = instr.spec.ref
        if ref not in ("dma_load", "dma_store"):
            return (yield from super().execute(instr))
        core, env = self.core, self.env
        info, commit = issue(instr, core.state, core.dram, core.timing_only)
        hw = core.state.hw
        if hw.dma_setup:
            yield env.timeout(hw.dma_setup)
        self.waiting = "DRAM port (shared by every DMA channel of every core)"
        stall = yield from self.port.transfer(info.dram_bytes,
                                              "read" if ref == "dma_load" else "write")
        self.waiting = None
        self.counters["stall_dram"] += stall
        if hw.dram_latency:
            yield env.timeout(hw.dram_latency)
        if commit is not None:
            commit()
        return info, stall
