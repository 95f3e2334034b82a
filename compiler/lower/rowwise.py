"""Row-wise vector layers of transformers: Softmax (qnn.softmax) and LayerNorm
(qnn.layer_norm) over row tiles of the last axis on the vector unit; each tile is loaded,
reduced and normalized in SRAM, then stored (double-buffered)."""

from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil

import numpy as np

from ..errors import CompilerError
from ..ops import register_hook
from .cost import FIELD_MAX, Hw
from .layer import OneInput

# the vector instructions over one tile of `rows` x `cols`, per kind: (mnemonic, over) where
# over is "tile" (rows x cols: a row-wise or elementwise pass) or "rows" / "col" (the per-row
# values, as a 1 x rows or a rows x 1 tile), and optionally the fields besides len the cycle
# rule reads (the layer norm's vrequant adds beta itself: bias=1, one pass, not vbias first)
SOFTMAX_OPS = [("vrmax", "tile"), ("vrsub", "tile"), ("vrmul", "tile"), ("vexp", "tile"),
               ("vrsum", "tile"), ("vrmul", "col"), ("vrecip", "rows"), ("vrmul", "tile")]
# normalize=False (a softmax only P.V reads): the row sum and reciprocal move to the matmul
UNNORMALIZED_OPS = SOFTMAX_OPS[:4] + [("vrmul", "tile")]
MASK_OPS = [("vrmul", "tile"), ("vadd", "tile")]
LAYERNORM_OPS = [("vrsum", "tile"), ("vmul", "tile"), ("vrsum", "tile"), ("vrmul", "rows"),
                 ("vrmul", "rows"), ("vmul", "rows"), ("vsub", "rows"), ("vbias", "rows"),
                 ("vrsqrt", "rows"), ("vrmul", "tile"), ("vrmul", "col"), ("vrsub", "tile"),
                 ("vrequant", "tile", {"bias": 1})]

# fp16 Targets: the IEEE forms (no fixed-point scaling; gamma is a replicated tile for vmul)
FLOAT_OPS = {"softmax": [("vrmax", "tile"), ("vrsub", "tile"), ("vexp", "tile"),
                         ("vrsum", "tile"), ("vrecip", "rows"), ("vrmul", "tile")],
             "layernorm": [("vrsum", "tile"), ("vrmul", "rows"), ("vrsub", "tile"),
                           ("vmul", "tile"), ("vrsum", "tile"), ("vrmul", "rows"),
                           ("vbias", "rows"), ("vrsqrt", "rows"), ("vrmul", "tile"),
                           ("vmul", "tile"), ("vbias", "tile")]}


@dataclass(frozen=True)
class RowSchedule:
    rows: int          # rows per tile
    est: dict = field(default_factory=dict, compare=False)

    def describe(self) -> str:
        return f"rows/tile={self.rows}"


@dataclass
class RowLayer(OneInput):
    """y (rows x cols, int8) = softmax or layer norm of x's rows; `params` hold the op's
    integer attributes, `mask` the softmax's (P, cols) drop table, `bias/mult/shift` the layer
    norm's per-channel epilogue."""

    name: str
    op: str            # softmax | layernorm
    x: str
    y: str
    rows: int
    cols: int
    params: dict
    mask: np.ndarray | None = None
    bias: np.ndarray | None = None
    mult: np.ndarray | None = None
    shift: np.ndarray | None = None
    schedule: RowSchedule | None = None
    note: str = ""
    quantized: bool = True   # float (fp16 Targets): mask additive, bias/mult = beta/gamma

    @property
    def kind(self) -> str:
        return self.op

    def vector_ops(self) -> list:
        if not self.quantized:
            return FLOAT_OPS[self.op] + ([("vadd", "tile")] if self.mask is not None else [])
        if self.op == "layernorm":
            return LAYERNORM_OPS
        return (MASK_OPS if self.mask is not None else []) + \
            (SOFTMAX_OPS if self.params.get("normalize", True) else UNNORMALIZED_OPS)

    def period(self) -> int:
        """Tiles never cross a multiple of this many rows (the mask's rows repeat)."""
        return self.mask.shape[0] if self.mask is not None else self.rows

    def items(self) -> list:
        """(first row, end row) per tile, within each mask period."""
        t, p = self.schedule.rows, self.period()
        return [(b + r, min(b + r + t, b + p)) for b in range(0, self.rows, p)
                for r in range(0, p, t)]

    def tile_cycles(self, hw: Hw, rows: int) -> int:
        total = 0
        for mnemonic, over, *fields in self.vector_ops():
            if mnemonic in ("vrmax", "vrsum", "vrsub", "vrmul"):
                r, c = {"tile": (rows, self.cols), "rows": (1, rows), "col": (rows, 1)}[over]
                total += hw.cycles(mnemonic, rows=r, cols=c)
            else:
                total += hw.cycles(mnemonic, len=rows * self.cols if over == "tile" else rows,
                                   **(fields[0] if fields else {}))
        return total


def choose_rows(layer: RowLayer, hw: Hw) -> RowSchedule:
    c = layer.cols
    if c > FIELD_MAX["cols"] or (layer.op == "layernorm" and c > FIELD_MAX["channels"]):
        raise CompilerError(f"layer '{layer.name}': rows of {c} elements exceed the row "
                            f"instructions' cols field ({FIELD_MAX['cols']})")
    # per tile row: x and (softmax) the mask row in ibuf/wbuf, the int32 tile in abuf, the
    # output in obuf, each double-buffered; plus a few per-row words
    # float layer norm: a second int32/fp32 tile (the squares) and the replicated gamma rows
    tiles_per_row = 2 * c + 8 if layer.quantized or layer.op == "softmax" else 5 * c + 8
    cap = min(hw.buffer_elems["ibuf"] // (2 * c), hw.buffer_elems["wbuf"] // (2 * c),
              (hw.buffer_elems["abuf"] - 3 * c - 16) // tiles_per_row,
              hw.buffer_elems["obuf"] // (2 * c), FIELD_MAX["len"] // c, FIELD_MAX["rows"])
    if cap < 1:
        raise CompilerError(f"layer '{layer.name}': one row of {c} elements does not fit the "
                            "buffers")
    period = layer.period()
    share = ceil(layer.rows / hw.num_cores)
    rows = max(1, min(cap, period, share))
    per_period = ceil(period / rows)
    rows = ceil(period / per_period)  # balanced tiles: no short last tile to wait for
    tiles = ceil(layer.rows / rows)
    vector = sum(layer.tile_cycles(hw, r1 - r0) for r0, r1 in
                 [(0, rows)] * (tiles - 1) + [(0, layer.rows - (tiles - 1) * rows)])
    eb = hw.act_bytes
    nbytes = layer.rows * c * eb
    mask_bytes = layer.rows * c if layer.mask is not None else 0
    dma = hw.dma_streams({"in": (tiles, nbytes), "w": (tiles if mask_bytes else 0, mask_bytes),
                          "out": (tiles, nbytes)})
    total = max(vector, dma) + hw.dma(rows * c * eb) * 2
    return RowSchedule(rows, {"cycles": total, "vector": vector, "dma": dma,
                              "dram_bytes": 2 * nbytes + mask_bytes,
                              "instructions": tiles * len(layer.vector_ops())})


def _flat(lw, n) -> tuple:
    t = lw.g.type_of(n.inputs[0])
    return t.numel // t.shape[-1], t.shape[-1]


@register_hook("lower", "qnn.softmax", "nn.softmax")
def lower_softmax(lw, n) -> None:
    from ..ops.attention import mask_rows_of
    rows, cols = _flat(lw, n)
    quantized = "in_mult" in n.attrs
    mask = lw.const(n.inputs[1]) if len(n.inputs) > 1 else None
    if not quantized:
        t = lw.g.type_of(n.inputs[0])
        if n.attrs["axis"] % t.rank != t.rank - 1:
            raise CompilerError(f"node '{n.name}': a float softmax over axis {n.attrs['axis']} "
                                f"of {t}; the fp16 path normalizes the last axis only")
        if mask is not None:  # additive, clamped to what fp16 holds
            mask = np.maximum(mask_rows_of(mask, t.shape), -6e4).astype(np.float16)
    notes = ["masked"] * (mask is not None) + \
        ["unnormalized (P.V divides)"] * (not n.attrs.get("normalize", True))
    layer = RowLayer(n.name, "softmax", n.inputs[0], n.output, rows, cols, dict(n.attrs),
                     mask=mask, note=", ".join(notes), quantized=quantized)
    layer.schedule = choose_rows(layer, lw.hw)
    lw.layers.append(layer)


@register_hook("lower", "qnn.layer_norm", "nn.layer_norm")
def lower_layer_norm(lw, n) -> None:
    rows, cols = _flat(lw, n)
    if "mean_mult" not in n.attrs:  # float: gamma and beta
        layer = RowLayer(n.name, "layernorm", n.inputs[0], n.output, rows, cols,
                         dict(n.attrs), bias=lw.const(n.inputs[2]), mult=lw.const(n.inputs[1]),
                         quantized=False)
        layer.schedule = choose_rows(layer, lw.hw)
        return lw.layers.append(layer)
    layer = RowLayer(n.name, "layernorm", n.inputs[0], n.output, rows, cols, dict(n.attrs),
                     bias=lw.const(n.inputs[1]), mult=lw.const(n.inputs[2]),
                     shift=lw.const(n.inputs[3]))
    layer.schedule = choose_rows(layer, lw.hw)
    lw.layers.append(layer)
