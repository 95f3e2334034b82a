"""Elementwise layers (add, multiply, relu, clip, table lookup) over flat chunks on the vector
unit; the operands are streamed through SRAM with double buffering."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from math import ceil

import numpy as np

from ..errors import CompilerError
from ..ops import register_hook
from .cost import FIELD_MAX, Hw
from .layer import NoMacs

# vector ops per element of each kind: (int8 path, float path)
OPS = {"add": (["vmul", "vmul", "vadd", "vshr"], ["vadd"]),
       "multiply": (["vmul", "vrequant"], ["vmul"]),
       "relu": (["vrelu"], ["vrelu"]), "clip": (["vclip"], ["vclip"]),
       "lut": (["vlut"], None)}

# abuf vectors per chunk element where an int8 kind needs more than three: the add's two
# products and two broadcast multipliers
INT8_ABUF_VECTORS = {"add": 4}


@dataclass(frozen=True)
class EltSchedule:
    chunk: int
    est: dict = field(default_factory=dict, compare=False)

    def describe(self) -> str:
        return f"chunk={self.chunk}"


@dataclass
class EltwiseLayer(NoMacs):
    """y = op(x[, x2]) elementwise; attrs hold the integer (or float) parameters."""

    name: str
    op: str
    xs: list
    y: str
    numel: int
    attrs: dict
    table: np.ndarray | None = None
    schedule: EltSchedule | None = None
    rhs_const: np.ndarray | None = None  # a constant second operand, streamed from DRAM
    kind: str = "eltwise"
    note: str = ""

    @property
    def inputs(self) -> list:
        return list(self.xs)

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
    k = len(layer.xs) + (layer.rhs_const is not None)
    # per chunk element: inputs in ibuf/wbuf (x2 slots), output in obuf (x2), int32 in abuf
    words = INT8_ABUF_VECTORS.get(layer.op, 3) if quantized else 3
    cap = min(hw.buffer_elems["ibuf"] // 2, hw.buffer_elems["wbuf"] // 2,
              hw.buffer_elems["obuf"] // 2, (hw.buffer_elems["abuf"] - 16) // words,
              FIELD_MAX["len"])
    cap = max(1, cap)
    chunk = min(cap, layer.numel)
    n = ceil(layer.numel / chunk)
    ops = layer.vector_ops(quantized)
    vec = n * sum(hw.cycles(o, len=chunk) for o in ops)
    nbytes = (k + 1) * layer.numel * hw.act_bytes
    part = layer.numel * hw.act_bytes
    dma = hw.dma_streams({"in": (n, part), "res": (n * (k - 1), (k - 1) * part),
                          "out": (n, part)})
    total = max(vec, dma) + hw.dma(chunk * hw.act_bytes) * 2
    return EltSchedule(chunk, {"cycles": total, "vector": vec, "dma": dma, "dram_bytes": nbytes,
                               "instructions": n * len(ops)})


def _activations(lw, n) -> list:
    acts = [v for v in n.inputs if v not in lw.g.constants]
    if len(acts) < len(n.inputs):
        raise CompilerError(f"node '{n.name}': {n.op} with a constant operand has no NPU "
                            "lowering (fold it into a conv/dense, or make it an input)")
    return acts


def _append(lw, n, kind: str, acts: list, attrs: dict, table) -> None:
    shapes = {lw.g.type_of(v).shape for v in acts}
    if len(shapes) > 1:
        raise CompilerError(f"node '{n.name}': {n.op} needs equal operand shapes (no "
                            f"broadcasting on the NPU); got {sorted(shapes)}")
    layer = EltwiseLayer(n.name, kind, acts, n.output, lw.g.type_of(n.output).numel, attrs,
                         table)
    layer.schedule = choose_eltwise(layer, lw.hw)
    lw.layers.append(layer)


def lower_eltwise(lw, n, kind: str) -> None:
    """An elementwise layer of `kind` (add, multiply, relu, clip) over equal shapes; an add's
    second operand may be a constant of the output's shape (a position embedding)."""
    if kind == "add" and len(n.inputs) == 2 and n.inputs[1] in lw.g.constants and \
            lw.g.type_of(n.inputs[1]).shape == lw.g.type_of(n.output).shape:
        layer = EltwiseLayer(n.name, kind, [n.inputs[0]], n.output,
                             lw.g.type_of(n.output).numel, dict(n.attrs),
                             rhs_const=lw.weights(n.inputs[1]))
        layer.schedule = choose_eltwise(layer, lw.hw)
        return lw.layers.append(layer)
    _append(lw, n, kind, _activations(lw, n), dict(n.attrs), None)


def lower_lut(lw, n) -> None:
    """qnn.lut: the table is a constant operand, read by the vector unit's lookup."""
    _append(lw, n, "lut", [n.inputs[0]], dict(n.attrs), lw.const(n.inputs[1]))


def lower_float_clip(lw, n) -> None:
    """Float clip: vclip takes integer bounds (fp16 mode), saturated to the int16 range."""
    acts = _activations(lw, n)
    lo, hi = n.attrs.get("min", -np.inf), n.attrs.get("max", np.inf)
    if not (np.isinf(lo) or lo == int(lo)) or not (np.isinf(hi) or hi == int(hi)):
        raise CompilerError(f"node '{n.name}': clip bounds ({lo}, {hi}) are not "
                            "integers; vclip takes integer bounds")
    _append(lw, n, "clip", acts, {"lo": int(max(lo, -32768)), "hi": int(min(hi, 32767))}, None)


for _op, _kind in (("qnn.add", "add"), ("qnn.relu", "relu"), ("qnn.clip", "clip"),
                   ("qnn.multiply", "multiply"), ("add", "add"), ("nn.relu", "relu"),
                   ("multiply", "multiply")):
    register_hook("lower", _op, value=partial(lower_eltwise, kind=_kind))
register_hook("lower", "qnn.lut", value=lower_lut)
register_hook("lower", "clip", value=lower_float_clip)
