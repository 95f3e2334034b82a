"""The whole programs the RTL core runs: an assembly file under examples/ and its random inputs.

They run on the Target the test names (npu-tiny), whatever their .target says: of the examples
written for npu-edge only maxpool.s fits npu-tiny (one DMA channel, 4x4 array), so the others
have tiny_*.s variants."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from isa.asm import Program, assemble_file

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _int8(rng, shape):
    return rng.integers(-128, 128, size=shape, dtype=np.int64).astype(np.int8)


def _requant_table(rng, channels: int, shifts=(14, 18)) -> np.ndarray:
    """(mult, shift) per channel that maps int32 sums of int8 products into int8 range for
    most elements (so saturation is exercised, not everywhere); longer sums, larger shifts."""
    mult = rng.integers(1, 1 << 10, size=channels)
    shift = rng.integers(*shifts, size=channels)
    return np.stack([mult, shift], axis=1).astype(np.int32)


def _tensors_int8(*names):
    """Inputs that are plain int8 tensors of their declared shapes."""
    def build(rng, program: Program) -> dict:
        return {n: _int8(rng, program.tensors[n].shape) for n in names}
    return build


def _gemm_requant(rng, program: Program) -> dict:
    return {"A": _int8(rng, (8, 4)), "W": _int8(rng, (4, 4)), "RQ": _requant_table(rng, 4)}


def _conv(rng, program: Program) -> dict:
    cout = program.tensors["B"].shape[0]
    return {"X": _int8(rng, program.tensors["X"].shape), "Wt": _int8(rng, program.tensors["Wt"].shape),
            "B": rng.integers(-2000, 2000, size=cout).astype(np.int32),
            "RQ": _requant_table(rng, cout, shifts=(17, 20))}


@dataclass(frozen=True)
class CoreProgram:
    """One program: its assembly file and a builder of its inputs (name -> array)."""

    name: str
    inputs: Callable[[np.random.Generator, Program], dict]
    what: str

    @property
    def path(self) -> Path:
        return EXAMPLES / f"{self.name}.s"

    def assemble(self) -> Program:
        return assemble_file(self.path)


PROGRAMS = {p.name: p for p in [
    CoreProgram("tiny_gemm_requant", _gemm_requant,
                "gemm + vrequant, semaphores between dma0/matrix/vector, dma0 queue full"),
    CoreProgram("tiny_conv", _conv,
                "3x3 conv layer (pad 1, 6 input channels: 2 blocks per tap) + bias + requant/relu"),
    CoreProgram("tiny_conv_strided", _tensors_int8("X", "Wa", "Wb"),
                "im2col corners: stride 2x1, dilation 2x1, uneven padding, accumulate"),
    CoreProgram("tiny_pool", _tensors_int8("X"),
                "vmaxpool 3x3/2 with padding and vsumpool 2x2/2 after pool_* cfg"),
    CoreProgram("tiny_double_buffered", _tensors_int8("A", "W"),
                "double-buffered gemm tiles on one DMA channel, barrier, nop"),
    CoreProgram("maxpool", _tensors_int8("X"),
                "the npu-edge example unchanged (one DMA channel, vector only) run on npu-tiny"),
    CoreProgram("tiny_shared_semaphore", _tensors_int8("X", "W"),
                "two units blocked on one semaphore: the longer waiter is released first"),
]}


def get_program(name: str) -> CoreProgram:
    if name not in PROGRAMS:
        raise KeyError(f"no core program named '{name}'; known: {', '.join(PROGRAMS)}")
    return PROGRAMS[name]
