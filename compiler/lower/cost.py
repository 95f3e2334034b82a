"""Analytical cost model of one NPU core: the ISA's cycle rules plus DMA and SRAM limits.

The formulas mirror the timing contract (docs/timing.md, npusim.timing); the compiler may not
import the simulator, so tests/compiler/test_lower_cost.py checks every formula against
npusim.timing on random operands. Everything is read from the Target, never a constant."""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

FIELD_MAX = {"rows": 4095, "cols": 4095, "planes": 4095, "in_hw": 1023, "cin": 4095,
             "channels": 4095, "len": 65535, "m": 65535, "pad": 7, "conv_pad": 15,
             "pool_window": 255, "pool_pad": 15}


@dataclass(frozen=True)
class Hw:
    """The Target values lowering reads: array, lanes, buffers (elements), DMA and DRAM."""

    rows: int
    cols: int
    lanes: int
    pipeline: int
    dma_setup: int
    dram_latency: int
    dram_bw: int
    dma_engines: int
    num_cores: int
    semaphores: int
    queue_depth: int
    buffer_elems: dict
    elem_bytes: dict
    dtype: str
    freq_mhz: int
    # zero-fill elements per cycle of a padded load; None where nothing writes padding (the
    # cpu/gpu backends' stand-in Hw, which moves no data through a DMA)
    dma_fill_lanes: int | None = None

    @classmethod
    def from_target(cls, t) -> "Hw":
        return cls(rows=t.array_rows, cols=t.array_cols, lanes=t.vector_lanes,
                   pipeline=t.vector_pipeline, dma_setup=t.dma_setup,
                   dram_latency=t.dram_latency, dram_bw=t.dram_bw, dma_engines=t.dma_engines,
                   num_cores=t.num_cores, semaphores=t.semaphores, queue_depth=t.queue_depth,
                   buffer_elems=dict(t.derived.buffer_elems),
                   elem_bytes=dict(t.derived.elem_bytes), dtype=t.dtype, freq_mhz=t.freq_mhz,
                   dma_fill_lanes=t.dma_fill_lanes)

    @property
    def act_bytes(self) -> int:
        """Bytes of one activation/weight element in DRAM (int8: 1, fp16: 2)."""
        return self.elem_bytes["ibuf"]

    # ---- the cycle rules (one instruction, uncontended) ------------------------------------
    def gemm(self, m: int, k: int, n: int) -> int:
        return k + m + self.rows + self.cols - 1

    def conv_passes(self, kh: int, kw: int, cin: int) -> list:
        blocks = [min(self.rows, cin - b) for b in range(0, cin, self.rows)]
        return blocks * (kh * kw)

    def conv(self, m: int, kh: int, kw: int, cin: int, cout: int) -> int:
        return sum(self.gemm(m, k, cout) for k in self.conv_passes(kh, kw, cin))

    def vector(self, length: int) -> int:
        return self.pipeline + ceil(length / self.lanes)

    def requant(self, length: int) -> int:
        return self.pipeline + 2 + ceil(length / self.lanes)

    def pool(self, oh: int, ow: int, kh: int, kw: int, channels: int) -> int:
        return self.pipeline + oh * ow * kh * kw * ceil(channels / self.lanes)

    def dma(self, nbytes: int, fill_elems: int = 0) -> int:
        """max(S + Lat + beats, ceil(fill / F)); fill = a padded load's whole SRAM tile."""
        return max(self.dma_setup + self.dram_latency + self.beats(nbytes),
                   self.dma_fill(fill_elems))

    def dma_fill(self, fill_elems: int) -> int:
        """Cycles the SRAM side needs to zero-fill `fill_elems` (counted from the start)."""
        if not fill_elems or self.dma_fill_lanes is None:
            return 0
        return ceil(fill_elems / self.dma_fill_lanes)

    def beats(self, nbytes: int) -> int:
        return ceil(nbytes / self.dram_bw)

    # ---- aggregate estimates used by the tile choosers --------------------------------------
    def dma_time(self, transfers: int, nbytes: int) -> int:
        """Cycles to move `nbytes` in `transfers` DMAs over all channels sharing one port:
        the port's beats, or the channels' fixed costs spread over the engines."""
        fixed = transfers * (self.dma_setup + self.dram_latency)
        return max(self.beats(nbytes), ceil((fixed + self.beats(nbytes)) / self.dma_engines))
