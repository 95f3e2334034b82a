"""lower(): a quantized (or float) NHWC graph -> scheduled layers.

Backend-neutral: each graph node becomes one or more layers (conv, dense, pool, eltwise, copy)
whose tile sizes and loop order were chosen against the Target by the cost model; reshapes
become aliases. The NPU backend turns layers into instructions; others may emit loops."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from math import prod

import numpy as np

from ..errors import CompilerError, did_you_mean
from ..ir.graph import Graph, Node
from .concat import make_concat
from .conv import ConvLayer, choose_schedule
from .copy import CopyLayer, copy_cycles, plan_copy
from .cost import Hw
from .dense import DenseLayer, choose_dense
from .eltwise import EltwiseLayer, choose_eltwise
from .epilogue import Epilogue
from .fold import FoldCopyLayer, fold, make_fold_copy, with_fold_copy
from .geometry import ConvGeom, space_to_depth, subsample
from .pool import PoolLayer, choose_pool
from .tconv import TConvLayer, choose_tconv, live_passes

ALIAS_OPS = ("flatten", "reshape", "identity", "nn.dropout")
ELTWISE = {"qnn.add": "add", "qnn.relu": "relu", "qnn.clip": "clip", "qnn.lut": "lut",
           "qnn.multiply": "multiply", "add": "add", "nn.relu": "relu", "clip": "clip",
           "multiply": "multiply"}
FLOAT_DTYPES = ("float32", "float16")
SWAP_MARGIN = 0.9
# rewrites that suit the NPU's array and DMA only: strided loads for strided 1x1 convs,
# space-to-depth, swapped roles, folded kernel columns (zero taps and copies elsewhere)
NPU_REWRITES = ("subsample", "s2d", "swap", "fold")


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

    def min_dram_bytes(self, layer) -> int:
        """Compulsory traffic: each input and the output once, and the weights once."""
        eb = self.hw.act_bytes
        acts = sum(self.tensor(x).numel for x in layer.inputs) + self.tensor(layer.y).numel
        w = getattr(layer, "weights", None)
        return acts * eb + (w.size * eb if w is not None else 0)

    def roofline(self, layer) -> float:
        """max(MACs / peak MACs per cycle, minimum DRAM bytes / DRAM bytes per cycle); 0 for a
        layer the compiler introduced (a rewrite's data movement is not in the model)."""
        if getattr(layer, "introduced", False):
            return 0.0
        t = self.target
        return max(layer.macs / t.derived.peak_macs_per_cycle,
                   self.min_dram_bytes(layer) / t.dram_bw)


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

    def run(self) -> LoweredProgram:
        g = self.g
        for v in g.inputs:
            self.add_tensor(v)
        for n in g.nodes:
            self.node(n)
        return LoweredProgram(g.name, self.t, self.hw, self.layers, self.tensors, self.aliases,
                              list(g.inputs), list(g.outputs), g, self.notes)

    def add_tensor(self, v: str, shape=None, dtype=None) -> str:
        t = self.g.type_of(v) if shape is None else None
        self.tensors[v] = TensorInfo(tuple(shape if shape is not None else t.shape),
                                     _dram_dtype(dtype or t.dtype, self.fp16))
        return v

    def const(self, v: str) -> np.ndarray:
        return self.g.constants[v]

    # ---------------------------------------------------------------- dispatch
    def node(self, n: Node) -> None:
        op = n.op
        if op in ALIAS_OPS:
            self.aliases[n.output] = n.inputs[0]
            return
        self.add_tensor(n.output)
        if op in ("qnn.conv2d", "fused.conv2d"):
            self.conv(n)
        elif op in ("qnn.dense", "fused.dense"):
            self.dense(n)
        elif op in ("qnn.max_pool2d", "nn.max_pool2d", "qnn.avg_pool2d", "nn.avg_pool2d",
                    "qnn.global_avg_pool2d", "nn.global_avg_pool2d"):
            self.pool(n)
        elif op in ELTWISE:
            self.eltwise(n)
        elif op in ("transpose", "layout_transform"):
            self.transpose(n)
        elif op in ("concat", "qnn.concat"):
            self.concat(n)
        else:
            supported = ["qnn.conv2d", "qnn.dense", "qnn.*pool2d", *ELTWISE, *ALIAS_OPS,
                         "transpose", "layout_transform", "fused.conv2d", "fused.dense",
                         "concat", "qnn.concat"]
            raise CompilerError(f"node '{n.name}': op '{n.op}' has no NPU lowering; "
                                f"{did_you_mean(n.op, supported)}")

    # ---------------------------------------------------------------- epilogues
    def epilogue(self, n: Node, channels: int) -> Epilogue:
        a, ins = n.attrs, n.inputs
        if n.op.startswith("qnn."):
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

    # ---------------------------------------------------------------- layers
    def conv(self, n: Node) -> None:
        a = n.attrs
        x = self.g.type_of(n.inputs[0])
        w = self.weights(n.inputs[1])
        if a.get("layout", "NHWC") != "NHWC" or a.get("kernel_layout", "HWIO") != "HWIO":
            raise CompilerError(f"node '{n.name}': conv must be NHWC/HWIO (run convert-layout)")
        nb, h, wd, cin = x.shape
        geom = ConvGeom(nb, h, wd, cin, w.shape[3], w.shape[0], w.shape[1], *a["strides"],
                        tuple(a["pads"]), *a.get("dilations", (1, 1)), a.get("groups", 1))
        epi = self.epilogue(n, geom.cout)
        x_in = n.inputs[0]
        sub = subsample(geom) if "subsample" in self.rewrites else None
        if sub is not None:  # strided 1x1: the loads subsample, the conv runs at stride 1
            cost, layers = self.plain_or_swapped(n, x_in, sub, w, epi, "strided loads",
                                                 sub=(geom.h, geom.w, geom.sh, geom.sw))
            self.layers += layers
            for name, (shape, dtype) in getattr(layers[0], "scratch_types", {}).items():
                self.add_tensor(name, shape, dtype)
            return
        # candidates: (estimated cycles, layers); the cheapest is kept
        cands = [self.plain_or_swapped(n, x_in, geom, w, epi, note="")]
        rewrite = space_to_depth(geom) if "s2d" in self.rewrites else None
        if rewrite is not None:
            shape, perm = rewrite.permute()
            chunks = plan_copy(shape, perm, self.hw.buffer_elems["ibuf"] // 2, n.name)
            xs = f"{x_in}.s2d.{n.name}"
            copy = CopyLayer(f"{n.name}.s2d", x_in, xs, shape, perm, chunks,
                             note="space-to-depth", introduced=True)
            cost, layers = self.plain_or_swapped(n, xs, rewrite.new, rewrite.weights(w), epi,
                                                 note=f"space-to-depth {geom.sh}x{geom.sw}",
                                                 useful=geom.macs)
            cands.append((cost + copy_cycles(chunks, self.hw), [copy] + layers))
        folded = fold(geom) if "fold" in self.rewrites else None
        if folded is not None:
            copy = make_fold_copy(f"{n.name}.fold", x_in, f"{x_in}.fold.{n.name}", folded,
                                  self.hw)
            cost, layers = self.plain_or_swapped(n, copy.y, folded.new, folded.weights(w), epi,
                                                 note="kernel columns folded into channels"
                                                 + (", space-to-depth" if folded.s2d else ""),
                                                 useful=geom.macs)
            cands.append((with_fold_copy(copy, layers[0].schedule.est, self.hw),
                           [copy] + layers))
        cost, layers = min(cands, key=lambda c: c[0])
        for layer in layers:  # register the DRAM tensors of the chosen candidate only
            if isinstance(layer, (CopyLayer, FoldCopyLayer)):
                new = layer.f.new if isinstance(layer, FoldCopyLayer) else rewrite.new
                self.add_tensor(layer.y, (new.n, new.h, new.w, new.cin), x.dtype)
            for name, (shape, dtype) in getattr(layer, "scratch_types", {}).items():
                self.add_tensor(name, shape, dtype)
            self.layers.append(layer)

    def per_core(self, geom: ConvGeom, rows: bool = True) -> ConvGeom:
        """The share of one core, which sizes the tiles when layers are split over cores
        (by output-channel blocks when there are enough, else by output rows)."""
        cores = self.hw.num_cores
        if cores == 1:
            return geom
        blocks = -(-geom.cout // self.hw.cols)
        if blocks >= cores or not rows or geom.groups > 1:
            cout = -(-blocks // cores) * self.hw.cols if blocks >= cores else geom.cout
            return replace(geom, cout=min(cout, geom.cout), groups=1) if geom.groups == 1 \
                else geom
        oh = -(-geom.oh // cores)
        h = min(geom.h, (oh - 1) * geom.sh + (geom.kh - 1) * geom.dh + 1)
        return replace(geom, h=h, pads=(geom.pads[0], geom.pads[1], 0, geom.pads[3]))

    def plain_or_swapped(self, n: Node, x_in: str, geom: ConvGeom, w, epi: Epilogue,
                         note: str, useful: int | None = None, sub=None) -> tuple:
        """(cycles, [layer]) of the cheaper of the usual and the swapped-roles schedule."""
        sched = choose_schedule(self.per_core(geom), epi, self.hw, n.name)
        best = (sched.est["cycles"], [ConvLayer(n.name, x_in, n.output, geom, w, epi, sched,
                                                note=note, useful_macs=useful, sub=sub)])
        swapped = None
        if "swap" in self.rewrites:
            swapped = choose_tconv(self.per_core(geom, rows=False), epi, self.hw,
                                   len(live_passes(w, self.hw.rows)))
        # its estimate is the rougher one (DRAM round trips, tails): demand a clear win
        if swapped is not None and swapped.est["cycles"] < SWAP_MARGIN * best[0]:
            wg = geom.w + geom.pads[1] + geom.pads[3]
            hg = geom.h + geom.pads[0] + geom.pads[2]
            grid, acc = f"{n.name}.grid", f"{n.name}.acc"
            layer = TConvLayer(n.name, x_in, n.output, geom, w, epi, grid, acc, swapped)
            layer.scratch_types = {
                grid: ((hg, wg, geom.cin), self.g.type_of(n.inputs[0]).dtype),
                acc: (((geom.oh - 1) * wg + geom.ow, geom.cout),
                      "float32" if self.fp16 else "int32")}
            layer.note = "swapped roles" + (f", {note}" if note else "")
            layer.useful_macs = useful
            layer.sub = sub
            best = (swapped.est["cycles"], [layer])
        return best

    def dense(self, n: Node) -> None:
        x = self.g.type_of(n.inputs[0])
        w = self.weights(n.inputs[1])
        k, nout = w.shape
        m = x.numel // k
        epi = self.epilogue(n, nout)
        if m == 1:
            layer = DenseLayer(n.name, n.inputs[0], n.output, k, nout, w, epi)
            layer.schedule = choose_dense(k, nout, epi, self.hw, n.name)
        else:  # batched: a 1x1 conv over an (m, 1, k) image
            geom = ConvGeom(1, m, 1, k, nout, 1, 1)
            layer = ConvLayer(n.name, n.inputs[0], n.output, geom,
                              w.reshape(1, 1, k, nout), epi, note="dense as 1x1 conv")
            layer.schedule = choose_schedule(geom, epi, self.hw, n.name)
        self.layers.append(layer)

    def pool(self, n: Node) -> None:
        a, x = n.attrs, self.g.type_of(n.inputs[0])
        if a.get("layout", "NHWC") != "NHWC":
            raise CompilerError(f"node '{n.name}': pooling must be NHWC (run convert-layout)")
        nb, h, wd, c = x.shape
        glob = "global" in n.op
        kernel = (h, wd) if glob else tuple(a["kernel"])
        strides = (1, 1) if glob else tuple(a["strides"])
        pads = (0, 0, 0, 0) if glob else tuple(a["pads"])
        geom = ConvGeom(nb, h, wd, c, c, *kernel, *strides, pads, groups=c)
        kind = "max" if "max" in n.op else "avg"
        layer = PoolLayer(n.name, n.inputs[0], n.output, geom, kind)
        if kind == "avg":
            if n.op.startswith("qnn."):
                layer.mult, layer.shift = int(a["mult"]), int(a["shift"])
            else:
                if any(pads) and not a.get("count_include_pad", False):
                    raise CompilerError(
                        f"node '{n.name}': average pooling with padding that excludes the pad "
                        "from the count divides by a different number per output; the NPU "
                        "scales every output by one constant")
                layer.scale = 1.0 / (kernel[0] * kernel[1])
        layer.schedule = choose_pool(geom, kind, self.hw, n.name)
        self.layers.append(layer)

    def eltwise(self, n: Node) -> None:
        op = ELTWISE[n.op]
        acts = [v for v in n.inputs if v not in self.g.constants]
        consts = [v for v in n.inputs if v in self.g.constants]
        if op == "lut":
            table = self.const(n.inputs[1])
            acts = [n.inputs[0]]
        elif consts:
            raise CompilerError(f"node '{n.name}': {n.op} with a constant operand has no NPU "
                                "lowering (fold it into a conv/dense, or make it an input)")
        else:
            table = None
        shapes = {self.g.type_of(v).shape for v in acts}
        if len(shapes) > 1:
            raise CompilerError(f"node '{n.name}': {n.op} needs equal operand shapes (no "
                                f"broadcasting on the NPU); got {sorted(shapes)}")
        attrs = dict(n.attrs)
        if op == "clip" and not n.op.startswith("qnn."):
            lo, hi = attrs.get("min", -np.inf), attrs.get("max", np.inf)
            if not (np.isinf(lo) or lo == int(lo)) or not (np.isinf(hi) or hi == int(hi)):
                raise CompilerError(f"node '{n.name}': clip bounds ({lo}, {hi}) are not "
                                    "integers; vclip takes integer bounds")
            attrs = {"lo": int(max(lo, -32768)), "hi": int(min(hi, 32767))}
        layer = EltwiseLayer(n.name, op, acts, n.output, self.g.type_of(n.output).numel, attrs,
                             table)
        layer.schedule = choose_eltwise(layer, self.hw)
        self.layers.append(layer)

    def concat(self, n: Node) -> None:
        shapes = [self.g.type_of(v).shape for v in n.inputs]
        q = n.op.startswith("qnn.")
        self.layers.append(make_concat(
            n.name, list(n.inputs), n.output, shapes, n.attrs.get("axis", 1), self.hw,
            list(n.attrs["mults"]) if q else None, list(n.attrs["shifts"]) if q else None))

    def transpose(self, n: Node) -> None:
        x = self.g.type_of(n.inputs[0])
        if n.op == "transpose":
            perm = tuple(n.attrs["axes"])
        else:
            perm = {("NCHW", "NHWC"): (0, 2, 3, 1), ("NHWC", "NCHW"): (0, 3, 1, 2)}[
                (n.attrs["src_layout"], n.attrs["dst_layout"])]
        chunks = plan_copy(x.shape, perm, self.hw.buffer_elems["ibuf"] // 2, n.name)
        self.layers.append(CopyLayer(n.name, n.inputs[0], n.output, x.shape, perm, chunks))


def lower(graph: Graph, target, hw: Hw | None = None, *, npu_rewrites: bool = True,
          subsample: bool = True, s2d: bool = True, swap: bool = True,
          fold: bool = True) -> LoweredProgram:
    """Lower a quantized graph, or a float NHWC graph (fp16 in DRAM when hw.dtype is fp16),
    for a Target of any kind.

    Tiles are sized for `hw` (default: the npu Target's own); a backend for another kind
    passes an Hw describing its memories (e.g. caches as buffers) to reuse the schedules.
    npu_rewrites=False turns off every NPU_REWRITES entry (what cpu/gpu backends want);
    subsample, s2d, swap, fold turn off one each (each is used only where the cost model says
    it is faster)."""
    from isa.target import Target
    target = Target.create(target)
    if hw is None:
        if target.kind != "npu":
            raise CompilerError(f"lower() derives tile sizes from npu Targets; for a "
                                f"{target.kind} target pass hw=Hw(...) describing its memories")
        hw = Hw.from_target(target)
    flags = {"subsample": subsample, "s2d": s2d, "swap": swap, "fold": fold}
    rewrites = frozenset(r for r in NPU_REWRITES if npu_rewrites and flags[r])
    return _Lowerer(graph, target, hw, rewrites).run()
