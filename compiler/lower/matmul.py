"""Matmul of two activations (attention's Q.K^T and P.V), batched over heads: per batch
element the whole B operand is loaded into wbuf as array-sized k x n (or, transposed, n x k)
sub-tiles, then row tiles of A stream through ibuf; each row tile's accumulators are
requantized once and stored. Operands are read through strided views (Views), so a head
split (reshape + transpose) before the matmul and the merge after it need no copies."""

from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil, prod

import numpy as np

from ..errors import CompilerError
from ..ops import register_hook
from .cost import FIELD_MAX, Hw


@dataclass(frozen=True)
class View:
    """A 2-D block per batch element of a DRAM tensor: element (i, j) of batch t is at
    base[t] + i * row + j * col (elements); the matmul's A and Y need col == 1, B either
    col == 1 (k x n rows) or row == 1 (stored n x k: the gemm's wt = 1)."""

    tensor: str
    base: tuple
    row: int
    col: int


def plain_view(tensor: str, shape: tuple, batch_index: np.ndarray) -> View:
    """A contiguous (..., r, c) tensor; batch_index: each broadcast batch element's own."""
    r, c = shape[-2:]
    return View(tensor, tuple(int(b) * r * c for b in batch_index), c, 1)


@dataclass(frozen=True)
class MatmulSchedule:
    m_tile: int
    est: dict = field(default_factory=dict, compare=False)

    def describe(self) -> str:
        return f"m_tile={self.m_tile}"


@dataclass
class MatmulLayer:
    """y[t] = requant(a[t] @ b[t]) for each batch element t, one (mult, shift)."""

    name: str
    a: View
    b: View
    yv: View            # where each batch element's m x n result is stored
    batch: int
    m: int
    k: int
    n: int
    mult: int | None    # int8: vrequant's (mult, shift); float (fp16): None, alpha scales
    shift: int | None
    y: str              # the output tensor (yv's)
    alpha: float = 1.0
    schedule: MatmulSchedule | None = None
    kind: str = "matmul"
    note: str = ""
    # int8 P.V of an unnormalized softmax: qnn.matmul's norm_mult, norm_shift, norm_frac,
    # recip_frac (each row divided by its A row's sum instead of the vrequant)
    row_norm: dict | None = None

    @property
    def inputs(self) -> list:
        return list(dict.fromkeys([self.a.tensor, self.b.tensor]))

    @property
    def macs(self) -> int:
        return self.batch * self.m * self.k * self.n

    @property
    def wt(self) -> bool:
        """B is stored n x k (its rows are the output columns): gemm wt = 1."""
        return self.b.col != 1

    def items(self) -> list:
        """(batch element, first row, end row) per row tile."""
        mt = self.schedule.m_tile
        return [(t, m0, min(m0 + mt, self.m)) for t in range(self.batch)
                for m0 in range(0, self.m, mt)]


def blocks(total: int, size: int) -> list:
    return [(i, min(i + size, total)) for i in range(0, total, size)]


def choose_matmul(layer: MatmulLayer, hw: Hw) -> MatmulSchedule:
    k, n, m = layer.k, layer.n, layer.m
    if k * n > hw.buffer_elems["wbuf"] // 2:
        raise CompilerError(f"layer '{layer.name}': the B operand ({k} x {n}) of one batch "
                            f"element needs {k * n} wbuf elements, past half of its "
                            f"{hw.buffer_elems['wbuf']} (two are double-buffered); split the "
                            "heads smaller or use a Target with a larger wbuf")
    cap = min(hw.buffer_elems["ibuf"] // (2 * k), (hw.buffer_elems["abuf"] - 8) // (2 * n),
              hw.buffer_elems["obuf"] // (2 * n), FIELD_MAX["m"], FIELD_MAX["len"] // n)
    if cap < 1:
        raise CompilerError(f"layer '{layer.name}': one row of {k} + {n} elements does not fit "
                            "the buffers")
    share = ceil(layer.batch * m / hw.num_cores)
    mt = max(1, min(cap, m, share))
    tiles = layer.batch * ceil(m / mt)
    kb, nb = blocks(k, hw.rows), blocks(n, hw.cols)
    matrix = sum(hw.gemm(min(mt, m - m0), k1 - k0, n1 - n0) for m0 in range(0, m, mt)
                 for k0, k1 in kb for n0, n1 in nb) * layer.batch
    vector = tiles * hw.cycles("vrequant", len=mt * n)
    if layer.row_norm is not None:  # per tile: vrsum per k-block, vadds, and the row steps
        vector = tiles * (sum(hw.cycles("vrsum", rows=mt, cols=k1 - k0) for k0, k1 in kb) +
                          (len(kb) - 1) * hw.cycles("vadd", len=mt) +
                          hw.cycles("vrmul", rows=mt, cols=1) + hw.cycles("vrecip", len=mt) +
                          sum(hw.cycles("vrmul", rows=mt, cols=n1 - n0) for n0, n1 in nb))
    eb = hw.act_bytes
    dma = hw.dma_streams({"in": (tiles * len(kb), layer.batch * m * k * eb),
                          "w": (layer.batch * len(nb), layer.batch * k * n * eb),
                          "out": (tiles, layer.batch * m * n * eb)})
    head = hw.dma(k * n * eb) + hw.dma(mt * k * eb)
    total = max(matrix, vector, dma) + head + hw.cycles("vrequant", len=mt * n) + \
        hw.dma(mt * n * eb)
    return MatmulSchedule(mt, {"cycles": total, "matrix": matrix, "vector": vector, "dma": dma,
                               "dram_bytes": layer.batch * (m * k + k * n + m * n) * eb,
                               "instructions": tiles * len(kb) * len(nb)})


def _batch_index(shape: tuple, batch: tuple) -> np.ndarray:
    """Each element of the broadcast `batch` shape's index into an operand's own batch axes."""
    own = shape[:-2]
    idx = np.arange(int(prod(own)) or 1).reshape(own) if own else np.zeros((), np.int64)
    return np.broadcast_to(idx, batch).reshape(-1)


@register_hook("lower", "qnn.matmul", "nn.matmul")
def lower_matmul(lw, n) -> None:
    """One matmul layer over every batch element, through the operands' strided views."""
    from .views import operand_view, output_view
    ta, tb, ty = (lw.g.type_of(v) for v in (n.inputs[0], n.inputs[1], n.output))
    batch = ty.shape[:-2]
    a = operand_view(lw, n, n.inputs[0], _batch_index(ta.shape, batch))
    b = operand_view(lw, n, n.inputs[1], _batch_index(tb.shape, batch), transposable=True)
    y = output_view(lw, n, int(prod(batch)))
    m, k = ta.shape[-2:]
    quantized = "mult" in n.attrs
    layer = MatmulLayer(n.name, a, b, y, int(prod(batch)), m, k, tb.shape[-1],
                        n.attrs["mult"] if quantized else None,
                        n.attrs["shift"] if quantized else None, y.tensor,
                        alpha=1.0 if quantized else n.attrs["alpha"],
                        note=", ".join(k for k, on in (("A strided", a.tensor != n.inputs[0]),
                                                       ("B^T rows (wt=1)", b.col != 1),
                                                       ("B strided", b.tensor != n.inputs[1]),
                                                       ("Y strided", y.tensor != n.output))
                                       if on))
    if n.attrs.get("row_norm"):
        layer.row_norm = {key: n.attrs[key] for key in ("norm_mult", "norm_shift", "norm_frac",
                                                         "recip_frac")}
        layer.note = ", ".join(filter(None, [layer.note, "rows divided by A's row sums"]))
    layer.schedule = choose_matmul(layer, lw.hw)
    lw.layers.append(layer)
