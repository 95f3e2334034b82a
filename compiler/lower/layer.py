"""What the lowered layers that do no array work share: no MACs, and most read one tensor x."""
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
