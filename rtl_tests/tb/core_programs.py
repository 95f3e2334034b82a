"""The whole programs the RTL core runs: assembly files under examples/ with random inputs, and
a conv layer compiled for npu-tiny by the compiler's npu backend.

They run on the Target the test names (npu-tiny), whatever their .target says: of the examples
written for npu-edge only maxpool.s fits npu-tiny (one DMA channel, 4x4 array), so the others
have tiny_*.s variants."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from isa.asm import Program, assemble_file

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@dataclass
class Case:
    """A program ready to run: its words, the DRAM bytes to write before it starts, and
    (optionally) what an independent reference says some DRAM ranges must hold after it."""

    program: Program
    dram_writes: list[tuple[int, np.ndarray]]                   # (address, array) before
    expected: list[tuple[str, int, np.ndarray]] = field(default_factory=list)  # (what, addr, array)


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


def _attention(rng, program: Program) -> dict:
    """Q, K, V int8 and the Softmax's per-row scale 2^32 / 256 (docs/transformer.md)."""
    return {"Q": _int8(rng, (4, 4)), "K": _int8(rng, (4, 4)), "V": _int8(rng, (4, 4)),
            "SX": np.full(4, 1 << 24, dtype=np.int32)}


def _conv(rng, program: Program) -> dict:
    cout = program.tensors["B"].shape[0]
    return {"X": _int8(rng, program.tensors["X"].shape),
            "Wt": _int8(rng, program.tensors["Wt"].shape),
            "B": rng.integers(-2000, 2000, size=cout).astype(np.int32),
            "RQ": _requant_table(rng, cout, shifts=(17, 20))}


@dataclass(frozen=True)
class AsmProgram:
    """examples/<name>.s and a builder of its input tensors (name -> array)."""

    name: str
    inputs: Callable[[np.random.Generator, Program], dict]
    what: str

    def prepare(self, rng: np.random.Generator, target: str) -> Case:
        program = assemble_file(EXAMPLES / f"{self.name}.s")
        writes = []
        for tensor, value in self.inputs(rng, program).items():
            decl = program.tensors[tensor]
            writes.append((decl.dram, np.asarray(value).astype(decl.dtype).reshape(decl.shape)))
        return Case(program, writes)


@dataclass(frozen=True)
class CompiledConvLayer:
    """conv 3x3 (pad 1) + bias + relu on a 1x6x5x5 float input, quantized and compiled for the
    Target by compiler.backends (3-D DMA loads, two conv passes over channel slices, vrequant
    adding the bias, bias=1); its output must also equal the compiler's integer reference."""

    name: str = "compiled_conv_relu"
    what: str = "a conv layer compiled by the npu backend (3-D DMA, conv acc, vrequant bias=1)"

    def prepare(self, rng: np.random.Generator, target: str) -> Case:
        from compiler.backends import build
        from compiler.frontend.builder import GraphBuilder
        from compiler.zoo.params import ParamGen
        from npusim.flow import device_inputs
        b, p = GraphBuilder("conv_layer"), ParamGen(0)
        x = b.input("input", (1, 6, 5, 5))
        y = b.conv2d(x, p.conv(4, 6, 3), np.linspace(-0.2, 0.2, 4), pad=1, name="conv")
        compiled = build(b.build(b.relu(y, name="relu")), target, num_calib=2)
        art = compiled.artifact
        feeds = {v: rng.standard_normal(compiled.float_graph.type_of(v).shape).astype(np.float32)
                 for v in compiled.float_graph.inputs}
        dev_in = device_inputs(compiled, feeds)
        want = compiled.module.run_int(dev_in)
        writes = [(art.const_base, np.frombuffer(art.constants, np.uint8))]
        writes += [(e.dram, np.asarray(dev_in[e.name]).astype(e.dtype).reshape(e.shape))
                   for e in art.inputs]
        expected = [(f"output '{e.name}' vs the compiler's integer reference", e.dram,
                     np.asarray(want[e.name]).astype(e.dtype)) for e in art.outputs]
        return Case(art.program, writes, expected)


PROGRAMS = {p.name: p for p in [
    AsmProgram("tiny_gemm_requant", _gemm_requant,
               "gemm + vrequant, semaphores between dma0/matrix/vector, dma0 queue full"),
    AsmProgram("tiny_conv", _conv,
               "3x3 conv layer (pad 1, 6 input channels: 2 blocks per tap) + bias + requant/relu"),
    AsmProgram("tiny_conv_strided", _tensors_int8("X", "Wa", "Wb"),
               "im2col corners: stride 2x1, dilation 2x1, uneven padding, accumulate"),
    AsmProgram("tiny_pool", _tensors_int8("X"),
               "vmaxpool 3x3/2 with padding and vsumpool 2x2/2 after pool_* cfg"),
    AsmProgram("tiny_double_buffered", _tensors_int8("A", "W"),
               "double-buffered gemm tiles on one DMA channel, barrier, nop"),
    AsmProgram("maxpool", _tensors_int8("X"),
               "the npu-edge example unchanged (one DMA channel, vector only) run on npu-tiny"),
    AsmProgram("tiny_shared_semaphore", _tensors_int8("X", "W"),
               "two units blocked on one semaphore: the longer waiter is released first"),
    AsmProgram("tiny_attention", _attention,
               "one attention head: Q.K^T with gemm wt=1, integer Softmax (vrmax, vrsub, vrmul, "
               "vexp, vrsum, vrecip), P.V"),
    CompiledConvLayer(),
]}


def get_program(name: str):
    if name not in PROGRAMS:
        raise KeyError(f"no core program named '{name}'; known: {', '.join(PROGRAMS)}")
    return PROGRAMS[name]
