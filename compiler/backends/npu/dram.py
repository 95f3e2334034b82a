"""The NPU's DRAM image: the shared memory image (compiler.memory_image) in one address
space - the activation arena at the bottom as the lowered program's memory plan placed it,
then the packed constants - within the Target's DRAM."""

from __future__ import annotations

from ...memory_image import ALIGN, MemoryImage

__all__ = ["ALIGN", "DramMap"]


class DramMap(MemoryImage):
    """Byte addresses of every constant blob and every activation tensor in NPU DRAM."""

    def __init__(self, capacity: int):
        super().__init__(capacity, consts_after_arena=True)

    def place_activations(self, lowered) -> None:
        """Graph inputs live from the start, outputs to the end (the memory plan's rule)."""
        self.place(lowered, lowered.memory_plan())
