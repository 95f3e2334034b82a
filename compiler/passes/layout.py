"""ConvertLayout: NCHW activations -> NHWC, conv weights OIHW -> HWIO (the NPU's layout)."""

from __future__ import annotations

import numpy as np

from ..ir.graph import Graph, Node
from ..ir.pending import fill, pending_of
from ..parallel import over_rows
from ..ops import has_trait
from .base import Pass, register_pass
from .rewrite import single_user

# NCHW axis -> NHWC axis
AXIS_TO_NHWC = {0: 0, 1: 3, 2: 1, 3: 2}


def hwio_copy(w: np.ndarray, tile: int = 64, graph: Graph | None = None) -> np.ndarray:
    """OIHW weights copied to C-ordered HWIO, tile by tile of (I, O): a plain transposed
    copy of a large 1x1 or 3x3 kernel strides through memory and runs several times slower.
    graph: where `w` may be one of its pending constants, the copy is made once it is filled
    (compiler.ir.pending) and the array is returned at once."""
    src = w.transpose(2, 3, 1, 0)
    out = np.empty(src.shape, w.dtype)
    dst = out.view()  # writable, whatever the graph makes of `out`
    cin, cout = src.shape[2:]

    def copy_tiles(lo: int, hi: int) -> None:  # input-channel tiles [lo, hi)
        for i in range(lo * tile, min(hi * tile, cin), tile):
            for o in range(0, cout, tile):
                dst[:, :, i:i + tile, o:o + tile] = src[:, :, i:i + tile, o:o + tile]
    fill(graph, [w], [out], lambda: over_rows(-(-cin // tile),
                                              w.size // max(1, -(-cin // tile)), copy_tiles))
    return out


def _copy(graph: Graph, source: np.ndarray, view: np.ndarray) -> np.ndarray:
    """A C-ordered copy of `view` (a view of `source`), or `view` itself where it is one
    (np.ascontiguousarray); made once `source` is filled where it is a pending constant."""
    pending = pending_of(graph)
    if pending is None or not pending.is_pending(source):
        return np.ascontiguousarray(view)
    out = np.empty(view.shape, view.dtype)
    dst = out.view()
    pending.derive([source], [out], lambda: np.copyto(dst, view))
    return out


class _Rewriter:
    def __init__(self, graph: Graph):
        self.g = graph
        self.layout = {v: "NCHW" for v in graph.inputs if graph.type_of(v).rank == 4}
        self.nodes: list = []
        self.cache: dict = {}

    def is4d(self, v: str) -> bool:
        return v not in self.g.constants and self.g.type_of(v).rank == 4

    def convert(self, v: str, dst: str) -> str:
        """`v` in layout `dst`, inserting (once) a layout_transform if needed."""
        src = self.layout.get(v)
        if src is None or src == dst:
            return v
        key = (v, dst)
        if key not in self.cache:
            out = self.g.fresh_name(f"{v}.{dst.lower()}")
            while any(n.output == out for n in self.nodes):
                out = self.g.fresh_name(out + "_")
            self.nodes.append(Node("layout_transform", [v], out,
                                   {"src_layout": src, "dst_layout": dst}))
            self.layout[out] = dst
            self.cache[key] = out
        return self.cache[key]

    def const_nhwc(self, v: str) -> str:
        """A broadcasting NCHW constant (rank <= 4) re-laid out for NHWC operands."""
        a = self.g.constants[v]
        if a.ndim > 4 or a.size == 1:
            return v
        key = (v, "const")
        if key not in self.cache:
            a4 = a.reshape((1,) * (4 - a.ndim) + a.shape).transpose(0, 2, 3, 1)
            self.cache[key] = self.g.add_constant(f"{v}.nhwc", _copy(self.g, a, a4))
        return self.cache[key]

    def weights_hwio(self, v: str) -> str:
        key = (v, "hwio")
        if key not in self.cache:
            if v in self.g.constants:
                w = hwio_copy(self.g.constants[v], graph=self.g)
                self.cache[key] = self.g.add_constant(f"{v}.hwio", w)
            else:
                out = self.g.fresh_name(f"{v}.hwio")
                self.nodes.append(Node("transpose", [v], out, {"axes": (2, 3, 1, 0)}))
                self.cache[key] = out
        return self.cache[key]

    def visit(self, n: Node) -> None:
        elementwise = has_trait(n.op, "elementwise")
        if has_trait(n.op, "windowed"):
            n.inputs[0] = self.convert(n.inputs[0], "NHWC")
            if n.attrs.get("kernel_layout") == "OIHW":
                n.inputs[1] = self.weights_hwio(n.inputs[1])
                n.attrs["kernel_layout"] = "HWIO"
            n.attrs["layout"] = "NHWC"
            self.layout[n.output] = "NHWC"
        elif (elementwise or has_trait(n.op, "channel_axis")) and self._follows_nhwc(n):
            acts = [v for v in n.inputs if self.is4d(v)]
            n.inputs = [self.convert(v, "NHWC") if v in acts else
                        self.const_nhwc(v) if elementwise and v in self.g.constants
                        else v for v in n.inputs]
            if "axis" in n.attrs:
                n.attrs["axis"] = AXIS_TO_NHWC[n.attrs["axis"] % 4]
            self.layout[n.output] = "NHWC"
        else:
            if has_trait(n.op, "reshape") and self._spatial_is_1x1(n.inputs[0]):
                pass  # (N,1,1,C) and (N,C,1,1) hold the same bytes in the same order
            else:
                n.inputs = [self.convert(v, "NCHW") for v in n.inputs]
            if n.output in self.g.types and self.g.type_of(n.output).rank == 4:
                self.layout[n.output] = "NCHW"
        self.nodes.append(n)

    def _follows_nhwc(self, n: Node) -> bool:
        """Elementwise/axis ops go NHWC when an input is NHWC and every other activation
        input is 4-D (a lower-rank activation broadcasting against it keeps NCHW)."""
        acts = [v for v in n.inputs if v not in self.g.constants]
        if not any(self.layout.get(v) == "NHWC" for v in acts):
            return False
        if not all(self.is4d(v) for v in acts):
            return False
        axis_ok = "axis" not in n.attrs or self.g.type_of(n.inputs[0]).rank == 4
        return axis_ok

    def _spatial_is_1x1(self, v: str) -> bool:
        if self.layout.get(v) != "NHWC":
            return False
        return self.g.type_of(v).shape[2:] == (1, 1)  # types still hold the NCHW shapes


def _fold_flatten_permutation(graph: Graph) -> None:
    """transform(NHWC->NCHW) -> flatten -> dense(W const): permute W's rows instead, so the
    NPU flattens its NHWC tensor directly (row c*H*W + h*W + w moves to h*W*C + w*C + c)."""
    users, producers = graph.consumers(), graph.producers()
    for flat in [n for n in graph.nodes if n.op == "flatten" and n.attrs["axis"] == 1]:
        tr = producers.get(flat.inputs[0])
        dense = single_user(graph, flat.output, users)
        if tr is None or tr.op != "layout_transform" or tr.attrs["dst_layout"] != "NCHW" or \
                single_user(graph, tr.output, users) is not flat or dense is None or \
                dense.op != "nn.dense" or dense.inputs[1] not in graph.constants:
            continue
        n_, c, h, w = graph.type_of(tr.output).shape
        wt = graph.constants[dense.inputs[1]]
        perm = wt.reshape(c, h, w, -1).transpose(1, 2, 0, 3)  # a view: rows h, w, c
        dense.inputs[1] = graph.add_constant(f"{dense.inputs[1]}.nhwc_rows",
                                             _copy(graph, wt, perm).reshape(c * h * w, -1))
        flat.inputs[0] = tr.inputs[0]
        graph.nodes.remove(tr)


@register_pass("convert-layout")
class ConvertLayout(Pass):
    """Windowed ops (conv, pools) run NHWC with HWIO weights; elementwise and channel-axis
    ops follow their inputs; layout-sensitive shape ops get a layout_transform back to NCHW
    (or, for flatten -> dense, a row permutation of the dense weights). Graph inputs and
    outputs keep their NCHW names and shapes: layout_transform nodes mark the boundary."""

    OPTIONS = {"layout": "NHWC"}
    reads_pending = True  # re-lays out pending weights once drawn (compiler.ir.pending)

    def run(self, graph: Graph, ctx) -> Graph:
        if self.options["layout"] != "NHWC":
            from ..errors import PassError
            raise PassError(f"convert-layout supports layout=NHWC only (the NPU's), got "
                            f"{self.options['layout']}")
        rw = _Rewriter(graph)
        for n in list(graph.nodes):
            rw.visit(n)
        graph.nodes = rw.nodes
        for i, out in enumerate(graph.outputs):
            if rw.layout.get(out) == "NHWC":
                inner = graph.fresh_name(f"{out}.nhwc")
                graph.rename(out, inner)
                graph.outputs[i] = out
                graph.nodes.append(Node("layout_transform", [inner], out,
                                        {"src_layout": "NHWC", "dst_layout": "NCHW"}))
        from .infer import infer_types
        _fold_flatten_permutation(infer_types(graph))
        graph.prune()
        return graph
