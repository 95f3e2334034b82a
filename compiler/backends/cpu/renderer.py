"""C for the host CPU: the shared emitter's sequential C plus OpenMP and vectorization hints;
tiles sized so an operand tile fits a quarter of L2 and channel blocks fill vector registers."""

from __future__ import annotations

from ...lower.cost import Hw
from ..clike import Renderer


class CRenderer(Renderer):
    name = "cpu"
    suffix = ".c"
    simd_pragma = "#pragma GCC ivdep"
    no_unroll = "#pragma GCC unroll 1"

    def __init__(self, target):
        super().__init__(target)
        if target.openmp:
            self.parallel_pragma = ("#pragma omp parallel for collapse({n}) schedule(static) "
                                    f"num_threads({target.cores})")

    def hw(self, dtype: str) -> Hw:
        t = self.target
        eb = 1 if dtype == "int8" else 4
        tile_bytes = t.l2_kb * 1024 // 4
        lanes = t.vector_bits // (8 * eb)
        buffers = {"ibuf": tile_bytes // eb, "wbuf": tile_bytes // eb, "abuf": tile_bytes // 4,
                   "obuf": tile_bytes // eb}
        # an output-channel block is one vector of int8 weights (32 at 256 bits: measured 2x
        # faster than 16), or two vectors of fp32 weights and accumulators
        return Hw(rows=lanes, cols=max(lanes, 2 * t.vector_bits // 32), lanes=lanes, pipeline=0,
                  dma_setup=0, dram_latency=0,
                  dram_bw=max(1, round(t.mem_bw_gbs * 1e3 / t.freq_mhz)), dma_engines=1,
                  num_cores=1, semaphores=1, queue_depth=1, buffer_elems=buffers,
                  elem_bytes={"ibuf": eb, "wbuf": eb, "abuf": 4, "obuf": eb}, dtype=dtype,
                  freq_mhz=t.freq_mhz)
