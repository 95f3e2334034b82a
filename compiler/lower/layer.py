"""What lowered layers share: those that do no array work have no MACs and most read one tensor
x; the depthwise convs read x and do their geometry's MACs."""
from __future__ import annotations


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


class DepthwiseWork:
    """A depthwise conv layer: reads its field x, does its ConvGeom's MACs."""

    @property
    def inputs(self) -> list:
        return [self.x]

    @property
    def macs(self) -> int:
        return self.geom.macs
