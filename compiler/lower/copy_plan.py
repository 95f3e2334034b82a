"""A copy planned as DMA moves through SRAM slots: the form the conv rewrites' input copies
(fold.py's kernel columns, im2col.py's windows) share, and npu/copy_plan_gen emits."""

from __future__ import annotations

from dataclasses import dataclass, field

from .layer import OneInput


@dataclass(frozen=True)
class Move:
    """One DMA of a piece, in elements: a load from the input (`src` offset, planes x rows x
    cols with their strides, zero `pads` top/bottom/left/right as the load's fields) into
    the piece's slot at `sram`, or a store from the slot (or, `zero`, from the zero slot) to
    the output at `dram`."""

    kind: str            # "load" or "store"
    sram: int
    planes: int
    rows: int
    cols: int
    plane_stride: int    # DRAM elements between planes
    stride: int          # DRAM elements between rows
    dram: int            # element offset in the input (load) or the output (store)
    pads: tuple = (0, 0, 0, 0)
    zero: bool = False

    @property
    def count(self) -> int:
        """SRAM elements the move fills (a load's padding included)."""
        top, bottom, left, right = self.pads
        return self.planes * (self.rows + top + bottom) * (self.cols + left + right)


@dataclass
class PlannedCopy(OneInput):
    """A rewrite's copy of x into y (introduced: not in the model) in pieces: a subclass
    gives pieces(), plan(piece) (its moves, loads before the stores that read them) and
    slot (the elements of one piece's SRAM slot)."""

    name: str
    x: str
    y: str
    kind: str = field(default="copy", kw_only=True)
    introduced: bool = field(default=True, kw_only=True)
    chunks: list = field(default_factory=list, kw_only=True)
