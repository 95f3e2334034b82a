"""Single-row dense layers, lowered with the roles swapped: the weights stream through the
array (m = output features) and the input vector is the stationary operand, so one pass does
up to 65535 outputs instead of one (a batch-1 x @ W on a weight-stationary array would stream
m = 1 row per pass). Batched dense layers go through the conv lowering as 1x1 convs."""

from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil

import numpy as np

from ..errors import CompilerError
from ..ops import register_hook
from .cost import FIELD_MAX, Hw
from .epilogue import Epilogue


@dataclass(frozen=True)
class DenseSchedule:
    n_tile: int        # output features per accumulator tile (the gemm's m)
    group: int         # reduction blocks per weight load
    w_slots: int
    est: dict = field(default_factory=dict, compare=False)
    # reduction depth of one gemm (its k): R on a weight-stationary array; on an
    # output-stationary one, whose k is free, up to the k field's range (Hw.gemm_k)
    k_block: int = 0

    def describe(self) -> str:
        return (f"n_tile={self.n_tile} k_blocks/load={self.group} w_slots={self.w_slots}"
                + (f" k_block={self.k_block}" if self.k_block else ""))


@dataclass
class DenseLayer:
    """y (1, N) = epilogue(x (1, K) @ w (K, N))."""

    name: str
    x: str
    y: str
    k: int
    n: int
    weights: np.ndarray
    epilogue: Epilogue
    schedule: DenseSchedule | None = None
    kind: str = "dense"
    note: str = ""

    @property
    def inputs(self) -> list:
        return [self.x] + ([self.epilogue.residual] if self.epilogue.residual else [])

    @property
    def macs(self) -> int:
        return self.k * self.n

    def tiles(self, hw: Hw) -> list:
        """(n0, n1, [(k0, k1) reduction blocks per weight load, ...]) per output tile."""
        s = self.schedule
        step = s.k_block or hw.rows
        kb = [(k, min(k + step, self.k)) for k in range(0, self.k, step)]
        loads = [kb[i:i + s.group] for i in range(0, len(kb), s.group)]
        return [(n0, min(n0 + s.n_tile, self.n), loads) for n0 in range(0, self.n, s.n_tile)]

    def packed_tile(self, n0: int, n1: int, blocks: list) -> np.ndarray:
        """The weight tile of one load: per reduction block, w[k0:k1, n0:n1] transposed
        ((n1 - n0) x (k1 - k0), row-major), blocks back to back."""
        return np.concatenate([np.ascontiguousarray(self.weights[k0:k1, n0:n1].T).ravel()
                               for k0, k1 in blocks])


def k_blocks(k: int, hw: Hw) -> list:
    """The gemm depths a dense layer may block its reduction by: R on a weight-stationary
    array; R, 2R, 4R, ... up to Hw.gemm_k (and k) on an output-stationary one, where a deeper
    gemm pays the fold's skew less often but needs a larger weight tile."""
    top = min(hw.gemm_k, k)
    out, b = [], hw.rows
    while b < top:
        out.append(b)
        b *= 2
    return out + [top] if hw.gemm_k > hw.rows else [hw.rows]


def choose_dense(k: int, n: int, epi: Epilogue, hw: Hw, name: str = "") -> DenseSchedule:
    best = None
    for kb in k_blocks(k, hw):
        s = _choose_dense(k, n, epi, hw, kb)
        if s is not None and (best is None or (s.est["cycles"], s.est["instructions"]) <
                              (best.est["cycles"], best.est["instructions"])):
            best = s
    if best is None:
        raise CompilerError(f"layer '{name}': dense {k} -> {n} does not fit the Target's "
                            f"buffers (elements: {dict(hw.buffer_elems)}); the input vector "
                            "must fit wbuf and a 1-feature tile abuf/obuf")
    return best


def _choose_dense(k: int, n: int, epi: Epilogue, hw: Hw, kb: int) -> DenseSchedule | None:
    """The best schedule with gemms of depth `kb`, or None where none fits."""
    eb = hw.act_bytes
    nblk = ceil(k / kb)
    best = None
    share = ceil(n / hw.num_cores)  # with several cores, each takes whole tiles of its share
    n_opts = sorted({ceil(n / t) for t in range(1, n + 1)
                     if ceil(n / t) <= min(FIELD_MAX["channels"], share)}, reverse=True)[:64]
    gemms: dict = {}  # (tile width, depth) -> hw.gemm: the blocks of a width share a depth

    def gemm(nt: int, depth: int) -> int:
        if (nt, depth) not in gemms:
            gemms[nt, depth] = hw.gemm(nt, depth, 1)
        return gemms[nt, depth]
    for nt in n_opts:
        tiles = ceil(n / nt)
        acc = nt
        abuf = hw.buffer_elems["abuf"] - epi.table_words(n) - epi.scratch_words(acc)
        if abuf < 2 * acc or nt * (2 if epi.residual else 1) * 2 > hw.buffer_elems["obuf"] \
                or k > hw.buffer_elems["wbuf"]:
            continue
        # what does not depend on the group, once per tile width
        matrix = tiles * sum(gemm(nt, min(kb, k - b)) for b in range(0, k, kb))
        epi_cycles = epi.cycles(hw, nt)
        vector = tiles * epi_cycles
        for group in sorted({1, 2, 4, 8, 16, 32, nblk}):
            if group > nblk:
                continue
            w_tile = nt * kb * group
            slots = min(2, hw.buffer_elems["ibuf"] // w_tile)
            if slots < 1:
                continue
            loads = tiles * ceil(nblk / group)
            nbytes = (k * n + k + n * (2 if epi.residual else 1)) * eb
            res = n * eb if epi.residual else 0
            dma = hw.dma_streams({"in": (1, k * eb), "w": (loads + 1, k * n * eb),
                                  "out": (tiles, n * eb), "res": (tiles if res else 0, res)})
            serial = loads * hw.dma(w_tile * eb) if slots == 1 and loads > 1 else 0
            # a pipeline: each stage's total plus what must come before and after it (the
            # DMA streams from the first cycle: only the last tile's compute follows it)
            head = hw.dma(w_tile * eb) + hw.dma(k * eb)
            drain = epi_cycles + hw.dma(nt * eb)
            last = group * hw.gemm(nt, min(kb, k), 1)
            # each weight load costs the matrix unit a wait and a signal (SYNC_CYCLES)
            sync = 8 * loads
            total = max(matrix + sync + head + drain, dma + last + drain,
                        vector + head + last) + serial
            s = DenseSchedule(nt, group, slots, {"cycles": total, "matrix": matrix,
                                                 "vector": vector, "dma": dma,
                                                 "dram_bytes": nbytes,
                                                 "instructions": tiles * nblk},
                              k_block=kb if kb != hw.rows else 0)
            if best is None or (total, loads) < (best.est["cycles"], best.est["instructions"]):
                best = s
    return best


def _image(m: int) -> tuple:
    """(h, w) of an image whose h * w pixels are a batched dense layer's m rows: (m, 1), or,
    where m is past the conv's in_h field, the widest w <= its in_w range that divides m (a
    1x1 conv does not care how its pixels are arranged, and the DRAM bytes are the same), so
    a tile of rows * w pixels can stream all m rows past each weight tile (weight stationary;
    an output-stationary array wants short tiles of deep slices, which (m, 1) keeps)."""
    top = FIELD_MAX["in_hw"]
    if m <= top:
        return m, 1
    w = next((w for w in range(min(top, m // 2), 1, -1) if m % w == 0 and m // w <= top), 1)
    return m // w, w


@register_hook("lower", "qnn.dense", "fused.dense")
def lower_dense(lw, n) -> None:
    """One row: the dense tile program; a batch of rows: a 1x1 conv over an (m, 1, k) image."""
    from .conv import ConvLayer, choose_schedule
    from .geometry import ConvGeom
    x = lw.g.type_of(n.inputs[0])
    w = lw.weights(n.inputs[1])
    k, nout = w.shape
    m = x.numel // k
    epi = lw.epilogue(n, nout)
    if m == 1:
        layer = DenseLayer(n.name, n.inputs[0], n.output, k, nout, w, epi)
        layer.schedule = choose_dense(k, nout, epi, lw.hw, n.name)
    else:
        # (m, 1), and past the in_h field also a wider image: the cheaper schedule
        geoms = [ConvGeom(1, *hw_, k, nout, 1, 1) for hw_ in dict.fromkeys([(m, 1), _image(m)])]
        scheds = [(choose_schedule(g, epi, lw.hw, n.name), g) for g in geoms]
        sched, geom = min(scheds, key=lambda p: p[0].est["cycles"])
        layer = ConvLayer(n.name, n.inputs[0], n.output, geom,
                          w.reshape(1, 1, k, nout), epi, note="dense as 1x1 conv")
        layer.schedule = sched
    lw.layers.append(layer)
