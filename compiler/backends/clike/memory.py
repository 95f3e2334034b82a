"""Host memory of a C-like program: the shared memory image (compiler.memory_image) with
the activation arena as the lowered program's memory plan placed it and the constants in a
blob of their own (weights and epilogue tables, packed in the order the kernels need them)."""

from __future__ import annotations

from ...memory_image import ALIGN, MemoryImage

__all__ = ["ALIGN", "Layout"]


class Layout(MemoryImage):
    """Byte offsets of every activation (arena) and every constant (consts blob)."""

    def __init__(self, lowered):
        super().__init__()
        # graph inputs and outputs live throughout, so a program can run again on the same
        # arena (warm-up and timing repeats) and give the same outputs
        self.place(lowered, lowered.memory_plan(hold_inputs=True, alignment=ALIGN))
