"""Elementwise layers (add, multiply, relu, clip, table lookup) over flat chunks on the vector
unit; the operands are streamed through SRAM with double buffering."""

from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil

import numpy as np

from ..errors import CompilerError
from .cost import FIELD_MAX, Hw

# vector ops per element of each kind: (int8 path, float path)
OPS = {"add": (["vmul", "vmul", "vadd", "vshr"], ["vadd"]),
       "multiply": (["vmul", "vrequant"], ["vmul"]),
       "relu": (["vrelu"], ["vrelu"]), "clip": (["vclip"], ["vclip"]),
       "lut": (["vlut"], None)}


@dataclass(frozen=True)
class EltSchedule:
    chunk: int
    est: dict = field(default_factory=dict, compare=False)

    def describe(self) -> str:
        return f"chunk={self.chunk}"


@dataclass
class EltwiseLayer:
    """y = op(x[, x2]) elementwise; attrs hold the integer (or float) parameters."""

    name: str
    op: str
    xs: list
    y: str
    numel: int
    attrs: dict
    table: np.ndarray | None = None
    schedule: EltSchedule | None = None
    kind: str = "eltwise"
    note: str = ""

    @property
    def inputs(self) -> list:
        return list(self.xs)

    @property
    def macs(self) -> int:
        return 0

    def chunks(self) -> list:
        c = self.schedule.chunk
        return [(i, min(i + c, self.numel)) for i in range(0, self.numel, c)]

    def vector_ops(self, quantized: bool) -> list:
        ops = OPS[self.op][0 if quantized else 1]
        act = self.attrs.get("act", "none")
        if act != "none":
            ops = ops + ["vrelu" if act == "relu" else "vclip"]
        return ops


def choose_eltwise(layer: EltwiseLayer, hw: Hw) -> EltSchedule:
    quantized = hw.dtype == "int8"
    if OPS[layer.op][0 if quantized else 1] is None:
        raise CompilerError(f"layer '{layer.name}': {layer.op} has no {hw.dtype} vector "
                            "instruction (vlut is int8 only)")
    k = len(layer.xs)
    # per chunk element: inputs in ibuf/wbuf (x2 slots), output in obuf (x2), int32 in abuf
    cap = min(hw.buffer_elems["ibuf"] // 2, hw.buffer_elems["wbuf"] // 2,
              hw.buffer_elems["obuf"] // 2, (hw.buffer_elems["abuf"] - 16) // 3,
              FIELD_MAX["len"])
    cap = max(1, cap)
    chunk = min(cap, layer.numel)
    n = ceil(layer.numel / chunk)
    ops = layer.vector_ops(quantized)
    vec = n * sum(hw.requant(chunk) if o == "vrequant" else hw.vector(chunk) for o in ops)
    nbytes = (k + 1) * layer.numel * hw.act_bytes
    dma = hw.dma_time(n * (k + 1), nbytes)
    total = max(vec, dma) + hw.dma(chunk * hw.act_bytes) * 2
    return EltSchedule(chunk, {"cycles": total, "vector": vec, "dma": dma, "dram_bytes": nbytes,
                               "instructions": n * len(ops)})
