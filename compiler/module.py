"""QuantizedModule: the hand-off from the compiler front half to lowering and NPU codegen."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import qscheme as qs
from .errors import CompilerError
from .host import HostOutput, apply_pre, describe_step, host_outputs
from .ir.graph import Graph
from .metrics import max_rel_error, snr_db, top1_agreement
from .reference import run_float, run_int

PARAM_ROLES = ("weight", "bias", "mult", "shift", "table")


@dataclass(frozen=True)
class InputBinding:
    """Float input `name` becomes int8 NPU input `qname`: sat8(rint(x.transpose(perm) / scale));
    or, with `pre` steps (token ids), the host gathers rows of the quantized table into it."""

    name: str
    qname: str
    scale: float
    perm: tuple | None  # (0, 2, 3, 1) = NCHW -> NHWC on the host, or None
    pre: tuple = ()     # (("gather", (table, axis)),): an embedding lookup on the host


@dataclass(frozen=True)
class OutputBinding:
    """NPU output `qname` (int8) gives float output `name`: dequantize, then the host steps."""

    name: str
    qname: str
    scale: float
    post: tuple  # ("transpose", perm) / ("softmax", axis), applied in order on the host


@dataclass(frozen=True)
class LayerParams:
    """Everything codegen needs for one quantized node."""

    name: str
    op: str
    inputs: tuple           # activation inputs (DRAM tensors), in order
    output: str
    attrs: dict             # integer attributes (strides, pads, act_lo/hi, add mults, ...)
    params: dict            # role -> constant array (weight int8, bias/mult/shift int32, ...)
    param_names: dict       # role -> constant name (its key in memory_plan.constants)
    in_scales: tuple
    out_scale: float
    zero_point: int = 0     # every tensor is symmetric: zero point 0


@dataclass
class QuantizedModule:
    """The quantized, fused, NHWC int8 graph with its integer parameters, host bindings,
    DRAM memory plan, and both references (integer: bit-exact; float: the original)."""

    graph: Graph
    float_graph: Graph
    pipeline: Any = None
    target: Any = None
    log: list = field(default_factory=list)

    # ---------------------------------------------------------------- hand-off data
    @property
    def inputs(self) -> list:
        return [InputBinding(b["name"], b["qname"], b["scale"], b["perm"],
                             tuple(b.get("pre", ())))
                for b in self.graph.meta["host"]["inputs"]]

    @property
    def host_tables(self) -> dict:
        """{table: int8 array} the host's embedding lookups read (quantized at their scale)."""
        return self.graph.meta["host"].get("tables", {})

    def index_bounds(self) -> dict:
        """{token-id input: the rows of its smallest table}: ids below it are valid."""
        return {b["name"]: b["index_bound"] for b in self.graph.meta["host"]["inputs"]
                if "index_bound" in b}

    @property
    def outputs(self) -> list:
        return [OutputBinding(b["name"], b["qname"], b["scale"], tuple(b["post"]))
                for b in self.graph.meta["host"]["outputs"]]

    @property
    def memory_plan(self):
        return self.graph.meta["memory_plan"]

    @property
    def scales(self) -> dict:
        """Scale of every int8 activation (real = scale * q)."""
        return self.graph.meta["scales"]

    def layers(self) -> list:
        return [self.layer(n.name) for n in self.graph.nodes]

    def layer(self, name: str) -> LayerParams:
        from .ops import get_op
        n = self.graph.node(name)
        opdef = get_op(n.op)
        acts, params, names = [], {}, {}
        for role, v in zip(opdef.inputs, n.inputs):
            role = role.rstrip("?")
            if v in self.graph.constants:
                params[role] = self.graph.constants[v]
                names[role] = v
            else:
                acts.append(v)
        return LayerParams(n.name, n.op, tuple(acts), n.output, dict(n.attrs), params, names,
                           tuple(self.scales[v] for v in acts), self.scales[n.output])

    # ---------------------------------------------------------------- execution
    def input_shapes(self) -> dict:
        """{float model input: its shape}, read from the int8 graph (the inverse of each
        input's layout permutation), so callers need not build the float model for it."""
        shapes = {}
        for raw, b in zip(self.graph.meta["host"]["inputs"], self.inputs):
            if b.pre:  # token ids: their own shape (the lookup adds the table's row axes)
                shapes[b.name] = tuple(raw["shape"])
                continue
            q = self.graph.type_of(b.qname).shape
            shape = list(q)
            for axis, src in enumerate(b.perm or ()):
                shape[src] = q[axis]
            shapes[b.name] = tuple(shape)
        return shapes

    def quantize_inputs(self, feeds: dict) -> dict:
        """Host step: float NCHW inputs (float graph names) -> int8 NPU inputs (qnames)."""
        out = {}
        for b in self.inputs:
            if b.name not in feeds:
                raise CompilerError(f"missing input '{b.name}'; the model takes "
                                    f"{', '.join(x.name for x in self.inputs)}")
            if b.pre:
                out[b.qname] = apply_pre(feeds[b.name], b.pre, self.host_tables, b.name)
                continue
            x = np.asarray(feeds[b.name], np.float32)
            out[b.qname] = qs.quantize(x.transpose(b.perm) if b.perm else x, b.scale)
        return out

    def run_int(self, int_feeds: dict) -> dict:
        """The integer reference: int8 NPU inputs -> int8 NPU outputs, bit-exact."""
        return run_int(self.graph, int_feeds)

    @property
    def host_specs(self) -> list:
        """What the host does with each int8 NPU output (compiler.host)."""
        return [HostOutput(b.qname, b.name, b.scale, b.post) for b in self.outputs]

    def dequantize_outputs(self, int_outputs: dict) -> dict:
        """Host step: int8 NPU outputs -> float outputs named as in the float graph."""
        return host_outputs(int_outputs, self.host_specs)

    def run(self, feeds: dict) -> dict:
        """Float in, float out, through the integer reference."""
        return self.dequantize_outputs(self.run_int(self.quantize_inputs(feeds)))

    def run_float(self, feeds: dict) -> dict:
        return run_float(self.float_graph, feeds)

    def compare(self, feeds: dict, reference: str = "float") -> dict:
        """Per output: SNR (dB), top-1 agreement and max relative error of the dequantized
        integer result against the float reference ('float' = ours, or 'onnxruntime')."""
        if reference == "onnxruntime":
            from .reference import run_onnxruntime
            ref = run_onnxruntime(self.float_graph, feeds)
        elif reference == "float":
            ref = self.run_float(feeds)
        else:
            raise CompilerError(f"reference '{reference}' is not 'float' or 'onnxruntime'")
        got = self.run(feeds)
        return {k: {"snr_db": snr_db(ref[k], got[k]), "top1": top1_agreement(ref[k], got[k]),
                    "max_rel_error": max_rel_error(ref[k], got[k])} for k in ref}

    def summary(self) -> str:
        g = self.graph
        ops = ", ".join(f"{k} x{v}" for k, v in sorted(g.ops().items()))
        lines = [f"QuantizedModule '{g.name}': {len(g.nodes)} nodes ({ops})",
                 f"pipeline: {self.pipeline}"]
        for b in self.inputs:
            pre = "".join(f" after host {describe_step(k, a, self.host_tables)}"
                          for k, a in b.pre)
            lines.append(f"input  {b.name} -> {b.qname} {g.type_of(b.qname)} scale "
                         f"{b.scale:.6g}" + (f" perm {b.perm}" if b.perm else "") + pre)
        for b in self.outputs:
            post = " then " + ", ".join(k for k, _ in b.post) if b.post else ""
            lines.append(f"output {b.qname} {g.type_of(b.qname)} scale {b.scale:.6g} -> "
                         f"{b.name}{post}")
        if "memory_plan" in g.meta:
            lines.append(self.memory_plan.report())
        return "\n".join(lines)
