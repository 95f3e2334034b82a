"""lower(): a quantized (or float) NHWC graph -> scheduled layers.

Backend-neutral: each graph node becomes one or more layers (conv, dense, pool, eltwise, copy)
whose tile sizes and loop order were chosen against the Target by the cost model; alias ops
(reshapes) become aliases. Each op's lowering is its 'lower' hook, registered by name from the
lowering modules of this package (conv_lowering.py, dense.py, pool.py, ...). The NPU backend
turns layers into instructions; others may emit loops."""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod

import numpy as np

from ..errors import CompilerError, did_you_mean
from ..ir.graph import Graph, Node
from ..ops import get_hook, get_op, has_trait, import_package, list_ops
from ..ops.activation import TABLE_OPS
from .cost import Hw
from .epilogue import Epilogue

FLOAT_DTYPES = ("float32", "float16")
# rewrites that suit the NPU's array and DMA only: strided loads for strided 1x1 convs,
# space-to-depth, swapped roles, folded kernel columns (zero taps and copies elsewhere),
# row-Toeplitz depthwise convs (element-strided gathers), stacked kernel rows of swapped convs,
# small-cin convs as im2col'd 1x1 convs, inverted-residual blocks fused on chip (fused_block.py),
# depthwise-mode convs with a transfer per group of channel blocks (dwconv.py)
NPU_REWRITES = ("subsample", "s2d", "swap", "fold", "rowdw", "stack", "im2col", "fuse",
                "dwgroup")


@dataclass(frozen=True)
class TensorInfo:
    shape: tuple
    dtype: str     # the DRAM element type: int8 / int32 / float16

    @property
    def numel(self) -> int:
        return int(prod(self.shape))

    @property
    def nbytes(self) -> int:
        return self.numel * np.dtype(self.dtype).itemsize


@dataclass
class LoweredProgram:
    """Layers in execution order plus every DRAM tensor they touch."""

    name: str
    target: object
    hw: Hw
    layers: list
    tensors: dict                      # name -> TensorInfo (roots and scratch)
    aliases: dict                      # alias -> root tensor name
    inputs: list
    outputs: list
    graph: Graph
    notes: list = field(default_factory=list)
    _plans: dict = field(default_factory=dict, repr=False, compare=False)

    def root(self, name: str) -> str:
        while name in self.aliases:
            name = self.aliases[name]
        return name

    def tensor(self, name: str) -> TensorInfo:
        return self.tensors[self.root(name)]

    @property
    def macs(self) -> int:
        return sum(layer.macs for layer in self.layers)

    def lifetimes(self, hold_inputs: bool = False) -> dict:
        """Root tensor -> (first, last) index of the layers touching it (scratch included);
        graph inputs from -1, graph outputs (and with `hold_inputs` the inputs) to the end."""
        first, last = {}, {}
        for v in self.inputs:
            first[self.root(v)] = last[self.root(v)] = -1
        for i, layer in enumerate(self.layers):
            for v in [*layer.inputs, layer.y, *getattr(layer, "scratch", ())]:
                first.setdefault(self.root(v), i)
                last[self.root(v)] = i
        for v in [*self.inputs, *self.outputs] if hold_inputs else self.outputs:
            first.setdefault(self.root(v), -1)
            last[self.root(v)] = len(self.layers)
        return {r: (first[r], last[r]) for r in first}

    def memory_plan(self, hold_inputs: bool = False, alignment: int = 64):
        """The plan-memory result over these layers (computed once per variant): where each
        activation lives in the arena every backend's memory image places."""
        key = (hold_inputs, alignment)
        if key not in self._plans:
            from ..passes.memory_plan import plan_lowered
            self._plans[key] = plan_lowered(self, alignment, hold_inputs)
        return self._plans[key]

    def min_dram_bytes(self, layer) -> int:
        """Compulsory traffic: each input and the output once, and the model's weights once
        (not the zeros a space-to-depth rewrite adds: a conv's MACs per output pixel)."""
        eb = self.hw.act_bytes
        acts = sum(self.tensor(x).numel for x in layer.inputs) + self.tensor(layer.y).numel + \
            getattr(layer, "const_elems", 0)  # a concat's constant parts
        w = getattr(layer, "weights", None)
        g = getattr(layer, "geom", None)
        if w is not None and g is not None and getattr(layer, "useful_macs", None):
            return acts * eb + layer.useful_macs // (g.n * g.oh * g.ow) * eb
        return acts * eb + (w.size * eb if w is not None else 0)

    def roofline(self, layer) -> float:
        """max(MACs / peak MACs per cycle, minimum DRAM bytes / DRAM bytes per cycle); 0 for a
        layer the compiler introduced (a rewrite's data movement is not in the model)."""
        if getattr(layer, "introduced", False):
            return 0.0
        return roofline_cycles(layer.macs, self.min_dram_bytes(layer), self.target)


def roofline_cycles(macs: int, min_dram_bytes: int, target) -> float:
    """A layer's roofline on `target`: max(MACs / peak MACs per cycle, minimum DRAM bytes /
    DRAM bytes per cycle). The compiler stores it in the artifact; a run on another Target
    (npusim.flow) recomputes it from the stored MACs and bytes with this same function."""
    return max(macs / target.derived.peak_macs_per_cycle, min_dram_bytes / target.dram_bw)


def _dram_dtype(dtype: str, fp16: bool) -> str:
    if dtype in FLOAT_DTYPES:
        return "float16" if fp16 else dtype
    return dtype


class _Lowerer:
    def __init__(self, graph: Graph, target, hw: Hw, rewrites: frozenset):
        self.g = graph
        self.t = target
        self.hw = hw
        self.fp16 = hw.dtype == "fp16"  # float tensors live in DRAM as fp16 (else as given)
        self.rewrites = rewrites
        self.layers: list = []
        self.aliases: dict = {}
        self.tensors: dict = {}
        self.notes: list = []
        self.absorbed: set = set()  # outputs a layer already writes (a matmul's strided store)

    def run(self) -> LoweredProgram:
        g = self.g
        for v in g.inputs:
            self.add_tensor(v)
        spans = {}  # node name -> (first, end) index of its layers
        for n in g.nodes:
            first = len(self.layers)
            self.node(n)
            spans[n.name] = (first, len(self.layers))
        if "fuse" in self.rewrites:
            from ..passes.inverted_residual import find_blocks
            from .fused_block import fuse_blocks
            fuse_blocks(self, find_blocks(g), spans)
        return LoweredProgram(g.name, self.t, self.hw, self.layers, self.tensors, self.aliases,
                              list(g.inputs), list(g.outputs), g, self.notes)

    def add_tensor(self, v: str, shape=None, dtype=None, *, in_dram: bool = False) -> str:
        """Register DRAM tensor `v` (its graph type unless shape/dtype are given). A graph
        dtype is mapped to its DRAM element type (float tensors are float16 on an fp16
        datapath); in_dram: `dtype` already is one (a scratch such as an accumulator spill,
        whose float32/int32 words must keep their 4 bytes)."""
        t = self.g.type_of(v) if shape is None else None
        dtype = dtype or t.dtype
        self.tensors[v] = TensorInfo(tuple(shape if shape is not None else t.shape),
                                     dtype if in_dram else self.dram_dtype(dtype))
        return v

    def dram_dtype(self, dtype: str) -> str:
        return _dram_dtype(dtype, self.fp16)

    def const(self, v: str) -> np.ndarray:
        return self.g.constants[v]

    # ---------------------------------------------------------------- dispatch
    def node(self, n: Node) -> None:
        if has_trait(n.op, "alias"):
            self.aliases[n.output] = n.inputs[0]
            return
        self.add_tensor(n.output)
        lowering = get_hook(n.op, "lower")
        if lowering is None and self.fp16 and n.op in TABLE_OPS:
            raise CompilerError(  # LRN's power, AveragePool's count table, Gelu
                f"node '{n.name}': op '{n.op}' runs on the NPU as an int8 table (vlut), and "
                "fp16 Targets have no table instruction nor a float program for it; compile "
                "for an int8 Target (-dtype=int8)")
        if lowering is None:
            supported = [op for op in list_ops()
                         if get_hook(op, "lower") is not None or has_trait(op, "alias")]
            raise CompilerError(f"node '{n.name}': op '{n.op}' has no NPU lowering; "
                                f"{did_you_mean(n.op, supported)}")
        lowering(self, n)

    # ---------------------------------------------------------------- epilogues
    def epilogue(self, n: Node, channels: int) -> Epilogue:
        a, ins = n.attrs, n.inputs
        if get_op(n.op).quantized:
            return Epilogue(
                bias=self.const(ins[2]), mult=self.const(ins[3]), shift=self.const(ins[4]),
                act=a.get("act", "none"), act_lo=a.get("act_lo", -128),
                act_hi=a.get("act_hi", 127), out_zp=a.get("out_zp", 0),
                residual=ins[5] if len(ins) > 5 else None, lhs_mult=a.get("lhs_mult", 0),
                rhs_mult=a.get("rhs_mult", 0), add_shift=a.get("add_shift", 0),
                post_act=a.get("post_act", "none"), post_lo=a.get("post_lo", -128),
                post_hi=a.get("post_hi", 127))
        for key in ("act", "post_act"):
            lo, hi = (a.get("act_min", 0.0), a.get("act_max", 6.0)) if key == "act" else \
                (a.get("post_min", 0.0), a.get("post_max", 6.0))
            if a.get(key, "none") == "clip" and (lo != int(lo) or hi != int(hi)):
                raise CompilerError(f"node '{n.name}': clip bounds ({lo}, {hi}) are not "
                                    "integers; vclip takes integer bounds in fp16 mode")
        return Epilogue(bias=self.const(ins[2]).astype(np.float32), act=a.get("act", "none"),
                        act_lo=a.get("act_min", 0.0), act_hi=a.get("act_max", 6.0),
                        residual=ins[3] if len(ins) > 3 else None,
                        post_act=a.get("post_act", "none"), post_lo=a.get("post_min", 0.0),
                        post_hi=a.get("post_max", 6.0))

    def weights(self, v: str) -> np.ndarray:
        w = self.const(v)
        return w.astype(np.float16) if self.fp16 else w


def lower(graph: Graph, target, hw: Hw | None = None, *, npu_rewrites: bool = True,
          subsample: bool = True, s2d: bool = True, swap: bool = True,
          fold: bool = True, rowdw: bool = True, stack: bool = True,
          im2col: bool = True, fuse: bool = True, dwgroup: bool = True) -> LoweredProgram:
    """Lower a quantized graph, or a float NHWC graph (fp16 in DRAM when hw.dtype is fp16),
    for a Target of any kind.

    Tiles are sized for `hw` (default: the npu Target's own); a backend for another kind
    passes an Hw describing its memories (e.g. caches as buffers) to reuse the schedules.
    npu_rewrites=False turns off every NPU_REWRITES entry (what cpu/gpu backends want);
    subsample, s2d, swap, fold, rowdw, stack, im2col, fuse, dwgroup turn off one each (each is used
    only where the cost model says it is faster)."""
    from isa.target import Target
    import_package(__package__)  # every lowering module registers its ops' 'lower' hooks
    target = Target.create(target)
    if hw is None:
        if target.kind != "npu":
            raise CompilerError(f"lower() derives tile sizes from npu Targets; for a "
                                f"{target.kind} target pass hw=Hw(...) describing its memories")
        hw = Hw.from_target(target)
    flags = {"subsample": subsample, "s2d": s2d, "swap": swap, "fold": fold, "rowdw": rowdw,
             "stack": stack, "im2col": im2col, "fuse": fuse, "dwgroup": dwgroup}
    rewrites = frozenset(r for r in NPU_REWRITES if npu_rewrites and flags[r])
    return _Lowerer(graph, target, hw, rewrites).run()
