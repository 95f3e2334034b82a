"""What lowered layers share: those that do no array work have no MACs and most read one tensor
x; the depthwise convs read x and do their geometry's MACs."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from .epilogue import Epilogue
    from .geometry import ConvGeom


class NoMacs:
    """A layer of data movement or vector work: the roofline counts only its DRAM bytes."""

    @property
    def macs(self) -> int:
        return 0


class OneInput(NoMacs):
    """A NoMacs layer whose only input tensor is its field x."""

    @property
    def inputs(self) -> list:
        return [self.x]


@dataclass
class DepthwiseWork:
    """A depthwise conv layer's fields (each lowering names its schedule's type and its note):
    it reads x, does its ConvGeom's MACs."""

    name: str
    x: str
    y: str
    geom: ConvGeom
    weights: np.ndarray          # (kh, kw, 1, channels), as the conv's HWIO weights
    epilogue: Epilogue
    schedule: Any = None
    kind: str = "conv"
    note: str = ""
    useful_macs: int | None = None
    sub: tuple | None = None

    @property
    def inputs(self) -> list:
        return [self.x]

    @property
    def macs(self) -> int:
        return self.geom.macs
