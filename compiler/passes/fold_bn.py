"""FoldBatchNorm: fold inference batch norm into the preceding conv/dense weights and bias."""

from __future__ import annotations

import numpy as np

from ..ir.graph import Graph, Node
from ..ir.pending import fill, wait_for
from ..ops import get_hook, has_trait
from ..ops.common import per_channel
from ..parallel import over_rows
from .base import Pass, register_pass
from .infer import infer_types
from .rewrite import channel_axis, single_user

# Output-channel axis of the weights, by kernel layout (dense weights, (in, out), have none).
_WEIGHT_AXIS = {"OIHW": 0, "HWIO": 3, None: 1}


def _scale_shift(graph: Graph, n: Node) -> tuple:
    """The float64 per-channel (scale, shift) of an affine op (its 'affine' hook)."""
    return get_hook(n.op, "affine")([graph.constants[v] for v in n.inputs[1:]], n.attrs)


@register_pass("fold-bn")
class FoldBatchNorm(Pass):
    """conv/dense (+ bias_add) + batch_norm -> conv/dense + bias_add with
    w' = w * gamma / sqrt(var + eps) (per output channel) and b' = (b - mean) * that + beta.
    A batch norm with no conv before it becomes a depthwise 1x1 conv + bias (standalone=
    'depthwise'), which the NPU runs like any conv, or stays (standalone='keep'). Every op
    with an 'affine' hook folds the same way (channel_affine: an ONNX Mul/Sub/Div by a
    constant; a bias_add with no conv/dense before it, which fuse would leave unfused)."""

    OPTIONS = {"standalone": "depthwise"}
    reads_pending = True  # folds pending weights once drawn (compiler.ir.pending)

    def run(self, graph: Graph, ctx) -> Graph:
        for bn in [n for n in graph.nodes if get_hook(n.op, "affine") is not None]:
            if not all(v in graph.constants for v in bn.inputs[1:]) or \
                    self._fused_later(graph, bn):
                continue
            if not self._fold(graph, bn) and self.options["standalone"] == "depthwise":
                self._to_depthwise(graph, bn)
                infer_types(graph)  # a later affine op may fold into this new conv
        graph.prune()
        return graph

    @staticmethod
    def _fused_later(graph: Graph, n: Node) -> bool:
        """A bias_add right after its conv/dense: fuse makes it that op's bias."""
        if not has_trait(n.op, "bias_add"):
            return False
        lin = graph.producers().get(n.inputs[0])
        return lin is not None and get_hook(lin.op, "fused_as") is not None and \
            single_user(graph, n.inputs[0], graph.consumers()) is n

    def _fold(self, graph: Graph, bn: Node) -> bool:
        users, producers = graph.consumers(), graph.producers()
        x = bn.inputs[0]
        bias_node = producers.get(x)
        if bias_node is not None and has_trait(bias_node.op, "bias_add"):
            if single_user(graph, x, users) is not bn or bias_node.inputs[1] not in graph.constants:
                return False
            lin = producers.get(bias_node.inputs[0])
            if lin is None or single_user(graph, bias_node.inputs[0], users) is not bias_node:
                return False
        else:
            lin, bias_node = bias_node, None
            if lin is None or single_user(graph, x, users) is not bn:
                return False
        if get_hook(lin.op, "fused_as") is None or lin.inputs[1] not in graph.constants:
            return False
        axis = channel_axis(graph, lin)
        rank = graph.type_of(lin.output).rank
        if bn.attrs["axis"] % rank != axis:
            return False
        if bias_node is not None and bias_node.attrs["axis"] % rank != axis:
            return False

        w = graph.constants[lin.inputs[1]]
        waxis = _WEIGHT_AXIS[lin.attrs.get("kernel_layout")]
        params = [graph.constants[v] for v in bn.inputs[1:]]
        b = graph.constants[bias_node.inputs[1]] if bias_node is not None else 0.0
        affine, attrs = get_hook(bn.op, "affine"), bn.attrs
        # the folded arrays' shapes, known before the values (which may still be being
        # drawn: compiler.ir.pending): per-channel vectors of one length, as a batch norm's
        shapes = {np.shape(a) for a in params} | ({np.shape(b)} - {()})
        if len(shapes) == 1 and len(next(iter(shapes))) == 1:
            b_shape = next(iter(shapes))
        else:  # another affine op's: from its values
            wait_for(graph, [*bn.inputs[1:], *(bias_node.inputs[1:2] if bias_node else [])])
            scale, shift = affine(params, attrs)
            b_shape = np.broadcast_shapes(np.shape(b), np.shape(scale), np.shape(shift))
        w_new = np.empty(w.shape, w.dtype)
        b_new = np.empty(b_shape, w.dtype)
        w_out, b_out = w_new.view(), b_new.view()  # writable, whatever add_constant does

        def fold() -> None:
            scale, shift = affine(params, attrs)
            # w * scale in float64, rounded once to w's dtype: one ufunc pass, no float64
            # copy, in row blocks over the cores (compiler.parallel)
            s = per_channel(scale, waxis, w.ndim)

            def fold_rows(lo: int, hi: int) -> None:
                np.multiply(w[lo:hi], s[lo:hi] if s.shape[0] > 1 else s, dtype=np.float64,
                            out=w_out[lo:hi], casting="same_kind")
            over_rows(w.shape[0], w[:1].size, fold_rows)
            b_out[...] = (np.asarray(b, np.float64) * scale + shift).astype(w.dtype)
        fill(graph, [w, *params, b], [w_new, b_new], fold)
        lin.inputs[1] = graph.add_constant(f"{lin.name}.weight_bn", w_new)
        b_name = graph.add_constant(f"{lin.name}.bias_bn", b_new)
        graph.nodes.remove(bn)
        if bias_node is not None:
            bias_node.inputs[1] = b_name
            # The folded bias_add takes the batch norm's name, so readers and outputs keep it.
            graph.types.pop(bn.output, None)
            graph.rename(bias_node.output, bn.output)
        else:
            graph.add_node(Node("nn.bias_add", [lin.output, b_name], bn.output,
                                {"axis": axis}, bn.name))
        return True

    def _to_depthwise(self, graph: Graph, bn: Node) -> None:
        x = graph.type_of(bn.inputs[0])
        if x.rank != 4 or bn.attrs["axis"] % 4 not in (1, 3):
            return
        layout = "NCHW" if bn.attrs["axis"] % 4 == 1 else "NHWC"
        c = x.shape[1 if layout == "NCHW" else 3]
        wait_for(graph, bn.inputs[1:])
        scale, shift = _scale_shift(graph, bn)
        kl = "OIHW" if layout == "NCHW" else "HWIO"
        w = scale.astype(x.dtype).reshape((c, 1, 1, 1) if kl == "OIHW" else (1, 1, 1, c))
        w_name = graph.add_constant(f"{bn.name}.dw_weight", w)
        b_name = graph.add_constant(f"{bn.name}.dw_bias", shift.astype(x.dtype))
        conv_out = graph.fresh_name(f"{bn.output}.dw")
        i = graph.nodes.index(bn)
        graph.nodes[i:i + 1] = [
            Node("nn.conv2d", [bn.inputs[0], w_name], conv_out,
                 {"groups": c, "layout": layout, "kernel_layout": kl}, f"{bn.name}.dw"),
            Node("nn.bias_add", [conv_out, b_name], bn.output, {"axis": 1 if layout == "NCHW"
                                                                 else 3}, bn.name)]
