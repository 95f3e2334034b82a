"""cocotb tests of rtl/dma_engine.v + rtl/dram_model.v against npusim: copies bit-exact,
cycles == max(S + Lat + ceil(bytes / BW), ceil(fill / F)) (F = dma-fill-lanes = PAD_LANES)."""

from __future__ import annotations

import cocotb

from isa import timing
from rtl_tests.tb.bench import UnitBench
from rtl_tests.tb.stim_dma import (DmaStim, Tile, dma_directed, dma_random, fill_binds,
                                   heavy_padding, random_padded_tiles)

UNIT = "dma"


def _stim_args(bench: UnitBench) -> tuple:
    return bench.model.state.sizes, bench.params["DRAM_BYTES"]


@cocotb.test()
async def dma_directed_cases(dut):
    """One byte, rows narrower than a beat, strides, every pad side, int32 elements, 3-D."""
    bench = await UnitBench.open(dut, UNIT)
    await bench.run_cases(dma_directed(bench.rng(1), *_stim_args(bench), bench.model.state.hw))
    bench.finish()


@cocotb.test()
async def dma_random_cases(dut):
    bench = await UnitBench.open(dut, UNIT)
    await bench.run_cases(dma_random(bench.rng(2), *_stim_args(bench), count=30))
    bench.finish()


@cocotb.test()
async def heavy_padding_takes_the_fill_cycles(dut):
    """Loads whose zero fill (ceil(tile / F) cycles) outlasts setup + latency + beats, directed
    and random (pads up to 7 each side): the RTL takes exactly the model's cycles, which for
    the directed ones are the fill's."""
    bench = await UnitBench.open(dut, UNIT)
    hw = bench.model.state.hw
    assert bench.params["PAD_LANES"] == hw.dma_fill_lanes
    tiles = heavy_padding(hw.dram_bw)
    random_tiles = random_padded_tiles(bench.rng(6), count=30)
    stim = DmaStim(bench.rng(3), *_stim_args(bench))
    await bench.run_cases([c for t in tiles + random_tiles for c in stim.load(t)])
    loads = [r for r in bench.checker.rows if r["mnemonic"] == "load"]
    binding = [t for t in tiles + random_tiles if fill_binds(t, hw)]
    dut._log.info(f"{len(binding)} of {len(loads)} loads take their fill's cycles")
    # the 8-plane tile outlasts even npu-edge's latency: this test cannot pass vacuously
    assert fill_binds(tiles[1], hw), f"{tiles[1]} no longer exercises the fill bound"
    for tile, row in zip(tiles, loads):
        if fill_binds(tile, hw):
            assert row["model_cycles"] == timing.dma_fill(hw, tile.extent), (tile, row)
    bench.finish()


@cocotb.test()
async def dma_back_to_back(dut):
    """Issued without a gap (loads, stores, cfg of a 3-D transfer, loads whose fill outlasts
    their data): each takes exactly the dma rule's cycles, though the next one's setup
    overlaps nothing of the last one's latency or fill."""
    bench = await UnitBench.open(dut, UNIT)
    s = DmaStim(bench.rng(5), *_stim_args(bench))
    heavy = heavy_padding(bench.model.state.hw.dram_bw)
    cases = [*s.load(Tile("ibuf", 2, 3, 4)), *s.store(Tile("abuf", 2, 2, 12)),
             *s.load(heavy[0]), *s.load(heavy[2]),
             *s.load(Tile("obuf", 2, 2, 3, planes=2, plane_stride=9)),
             *s.store(Tile("wbuf", 1, 5, 5, planes=2, plane_stride=7)),
             *s.load(heavy[3]), *s.load(Tile("wbuf", 3, 2, 2))]
    await bench.run_back_to_back(cases)
    bench.finish()


@cocotb.test()
async def checker_catches_free_padding(dut):
    """Make the model's dma rule ignore the fill (the old 'padding is free' rule): the checker
    must report the RTL's extra cycles on a load whose fill outlasts its data."""
    bench = await UnitBench.open(dut, UNIT)
    hw = bench.model.state.hw
    tile = heavy_padding(hw.dram_bw)[1]
    nbytes = tile.planes * tile.rows * tile.cols * tile.eb
    original = timing.RULES["dma"]
    with timing.override("dma", lambda hw, bytes, **ops: original(hw, bytes=bytes)):
        await bench.run_cases(DmaStim(bench.rng(7), *_stim_args(bench)).load(tile))
    extra = timing.dma_fill(hw, tile.extent) - timing.dma(hw, nbytes)
    assert extra > 0, f"the tile's fill does not outlast its data ({extra} cycles)"
    bench.check_mismatches([("cycles", extra)])


@cocotb.test()
async def checker_catches_changed_cycle_rule(dut):
    """Make the model's dma rule one cycle longer: the checker must report the RTL."""
    bench = await UnitBench.open(dut, UNIT)
    stim = DmaStim(bench.rng(4), *_stim_args(bench))
    await bench.check_rule_caught("dma", stim.store(Tile("obuf", 2, 3, 4)))
