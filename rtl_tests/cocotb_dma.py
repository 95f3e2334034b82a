"""cocotb tests of rtl/dma_engine.v + rtl/dram_model.v against npusim: copies bit-exact,
cycles == S + Lat + ceil(bytes / BW)."""

from __future__ import annotations

import cocotb

from npusim import timing
from rtl_tests.tb.bench import UnitBench
from rtl_tests.tb.stim_dma import DmaStim, Tile, dma_directed, dma_random, pad_bound_cycles

UNIT = "dma"


def _stim_args(bench: UnitBench) -> tuple:
    return bench.model.state.sizes, bench.params["DRAM_BYTES"], bench.model.state.hw


@cocotb.test()
async def dma_directed_cases(dut):
    """One byte, rows narrower than a beat, strides, every pad side, int32 elements, 3-D."""
    bench = await UnitBench.open(dut, UNIT)
    cases, skipped = dma_directed(bench.rng(1), *_stim_args(bench), bench.params["PAD_LANES"])
    for tile in skipped:
        dut._log.info(f"left out (padding past the free bound on this Target): {tile}")
    await bench.run_cases(cases)
    bench.finish()


@cocotb.test()
async def dma_random_cases(dut):
    bench = await UnitBench.open(dut, UNIT)
    await bench.run_cases(dma_random(bench.rng(2), *_stim_args(bench), bench.params["PAD_LANES"],
                                     count=30))
    bench.finish()


@cocotb.test()
async def dma_back_to_back(dut):
    """Issued without a gap (loads, stores, cfg of a 3-D transfer): each takes exactly S + Lat
    + beats, though the next one's setup overlaps nothing of the last one's latency."""
    bench = await UnitBench.open(dut, UNIT)
    s = DmaStim(bench.rng(5), *_stim_args(bench)[:2])
    cases = [*s.load(Tile("ibuf", 2, 3, 4)), *s.store(Tile("abuf", 2, 2, 12)),
             *s.load(Tile("obuf", 2, 2, 3, planes=2, plane_stride=9)),
             *s.store(Tile("wbuf", 1, 5, 5, planes=2, plane_stride=7)),
             *s.load(Tile("wbuf", 3, 2, 2))]
    await bench.run_back_to_back(cases)
    bench.finish()


@cocotb.test()
async def padding_past_the_free_bound_costs_cycles(dut):
    """A 1x1 load with 7 pad rows/cols each side: the zero fill needs ceil(225 / PAD_LANES)
    cycles, more than S + Lat + 1. The data still match; the checker reports the cycles."""
    bench = await UnitBench.open(dut, UNIT)
    tile = Tile("ibuf", 1, 1, 1, pads=(7, 7, 7, 7))
    expected = pad_bound_cycles(tile, bench.params["PAD_LANES"])
    await bench.run_cases(DmaStim(bench.rng(3), *_stim_args(bench)[:2]).load(tile))
    rows = bench.checker.rows
    found = [(m.kind, rows[m.index]["rtl_cycles"]) for m in bench.checker.mismatches]
    if expected > rows[-1]["model_cycles"]:
        assert found == [("cycles", expected)], f"expected the RTL at {expected} cycles: {found}"
    else:
        assert found == [], f"padding fits this Target's bound, yet: {found}"
    bench.finish(strict=False)


@cocotb.test()
async def checker_catches_changed_cycle_rule(dut):
    """Make the model's dma rule one cycle longer: the checker must report the RTL."""
    bench = await UnitBench.open(dut, UNIT)
    original = timing.dma
    timing.dma = lambda hw, nbytes: original(hw, nbytes) + 1
    try:
        stim = DmaStim(bench.rng(4), *_stim_args(bench)[:2])
        await bench.run_cases(stim.store(Tile("obuf", 2, 3, 4)))
    finally:
        timing.dma = original
    kinds = [(m.kind, bench.checker.rows[m.index]["diff"]) for m in bench.checker.mismatches]
    assert kinds == [("cycles", -1)], f"checker reported {kinds}, expected one cycle mismatch of -1"
    bench.finish(strict=False)
