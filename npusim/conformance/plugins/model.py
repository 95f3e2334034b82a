"""The npusim model as a DUT: `model` runs a test functionally and returns its signature;
`timing` also returns the per-instruction trace for cycle conformance."""

from __future__ import annotations

import time

from isa.errors import NpusimError
from npusim.conformance.dut import Dut, DutResult
from npusim.simulate import simulate


class ModelDut(Dut):
    """npusim.simulate on the test's Target. `races` is the simulator's race check: "error"
    (default) also proves each test orders every access it makes; a deliberately broken model
    passes "off" so it fails by signature, as a foreign implementation would."""

    name = "model"

    def __init__(self, races: str = "error", max_cycles: int = 50_000_000):
        self.races = races
        self.max_cycles = max_cycles

    def simulate(self, test):
        return simulate(test.program, target=test.target, inputs=test.inputs,
                        races=self.races, max_cycles=self.max_cycles,
                        trace=self.reports_cycles)

    def run(self, test) -> DutResult:
        wall = time.perf_counter()
        try:
            result = self.simulate(test)
        except NpusimError as e:
            return DutResult(error=f"{type(e).__name__}: {e}",
                             wall_s=time.perf_counter() - wall)
        sig = result.dram.bytes[test.sig_addr:test.sig_addr + test.sig_bytes].tobytes()
        trace = []
        if self.reports_cycles:
            trace = [(int(r.core), r.unit, int(r.index), int(r.start), int(r.end))
                     for r in result.trace.itertuples(index=False)]
        return DutResult(sig, result.cycles, trace, wall_s=time.perf_counter() - wall)


class TimingDut(ModelDut):
    """The model with its trace: `npusim conformance run --dut timing --timing`."""

    name = "timing"
    reports_cycles = True
