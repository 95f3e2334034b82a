"""Quantize: the calibrated, fused NHWC float graph -> an int8 graph of qnn.* ops."""

from __future__ import annotations

import numpy as np

from .. import qscheme as qs
from ..errors import QuantizationError
from ..ir.graph import Graph, Node
from .base import Pass, register_pass

MOVE_OPS = ("flatten", "reshape", "transpose", "layout_transform", "identity", "nn.dropout")
SCALE_PRESERVING = MOVE_OPS + ("nn.relu", "clip", "nn.max_pool2d")
HOST_TAIL = ("nn.softmax", "layout_transform")  # may run on the host after the NPU's output


class _Quantizer:
    def __init__(self, graph: Graph, absmax: dict):
        self.f, self.absmax = graph, absmax
        self.q = Graph(graph.name)
        self.scale: dict = {}

    # ---------------------------------------------------------------- scales
    def calibrated(self, v: str) -> float:
        if v not in self.absmax:
            raise QuantizationError(
                f"value '{v}' has no calibration statistics; run 'calibrate' after "
                "'convert-layout' and before 'fuse' and 'quantize'")
        return qs.act_scale(self.absmax[v])

    def const(self, base: str, array) -> str:
        return self.q.add_constant(base, array)

    def emit(self, n: Node, op: str, inputs, scale: float, **attrs) -> None:
        self.q.add_node(Node(op, inputs, n.output, attrs, n.name))
        self.scale[n.output] = scale

    def need_act(self, n: Node, v: str) -> str:
        if v in self.f.constants:
            raise QuantizationError(f"node '{n.name}' ({n.op}) has constant operand '{v}'; "
                                    "only activation operands are supported after quantize "
                                    "(run fold-constants, or fold it into a conv/dense)")
        return v

    def need_nhwc(self, n: Node) -> None:
        if n.attrs.get("layout", "NHWC") != "NHWC":
            raise QuantizationError(f"node '{n.name}' ({n.op}) is NCHW; run 'convert-layout' "
                                    "before 'quantize' (the NPU computes NHWC)")

    # ---------------------------------------------------------------- ops
    def linear(self, n: Node) -> None:
        """fused.conv2d / fused.dense -> qnn.conv2d / qnn.dense with integer parameters."""
        a = n.attrs
        x, w_name, b_name = n.inputs[:3]
        if w_name not in self.f.constants:
            raise QuantizationError(f"node '{n.name}': weights '{w_name}' are computed, not "
                                    "constant; only constant weights are quantized")
        is_conv = n.op == "fused.conv2d"
        if is_conv:
            self.need_nhwc(n)
            if a["kernel_layout"] != "HWIO":
                raise QuantizationError(f"node '{n.name}' has {a['kernel_layout']} weights; run "
                                        "'convert-layout' first")
        w = self.f.constants[w_name]
        w_q, s_w = qs.quantize_weights(w, axis=-1)  # HWIO and (in, out): channel is last
        s_in = self.scale[x]
        residual = n.inputs[3] if len(n.inputs) > 3 else None
        s_out = self.calibrated(n.output)
        s_pre = self.calibrated(a["pre_add"]) if residual else s_out
        bias_q = qs.quantize_bias(self.f.constants[b_name], s_in * s_w)
        mult, shift = qs.quantize_multipliers(s_in * s_w / s_pre)
        # bounds matter only for clip (relu is vrequant's flag); others keep the int8 range
        act_lo, act_hi = qs.clip_bounds(a["act_min"], a["act_max"], s_pre) \
            if a["act"] == "clip" else (-128, 127)
        attrs = {"act": a["act"], "act_lo": act_lo, "act_hi": act_hi, "out_zp": 0}
        if is_conv:
            attrs.update(strides=a["strides"], pads=a["pads"], dilations=a["dilations"],
                         groups=a["groups"])
        inputs = [x, self.const(f"{n.name}.w_q", w_q), self.const(f"{n.name}.bias_q", bias_q),
                  self.const(f"{n.name}.mult", mult), self.const(f"{n.name}.shift", shift)]
        if residual:
            lm, rm, sh = qs.add_params(s_pre / s_out, self.scale[residual] / s_out)
            post_lo, post_hi = qs.clip_bounds(a["post_min"], a["post_max"], s_out) \
                if a["post_act"] == "clip" else (-128, 127)
            attrs.update(lhs_mult=lm, rhs_mult=rm, add_shift=sh, post_act=a["post_act"],
                         post_lo=post_lo, post_hi=post_hi)
            inputs.append(residual)
        self.emit(n, "qnn.conv2d" if is_conv else "qnn.dense", inputs, s_out, **attrs)
        self.q.meta.setdefault("weight_scales", {})[n.name] = s_w.astype(np.float32)

    def visit(self, n: Node) -> None:
        op, a = n.op, n.attrs
        if op in ("fused.conv2d", "fused.dense"):
            return self.linear(n)
        if op in ("nn.conv2d", "nn.dense"):
            raise QuantizationError(f"node '{n.name}' ({op}) is not fused; run 'fuse' before "
                                    "'quantize' (it makes the bias/requantize epilogue)")
        x = self.need_act(n, n.inputs[0])
        s_in = self.scale[x]
        if op in MOVE_OPS:
            if op in ("identity", "nn.dropout"):
                return self.emit(n, "identity", [x], s_in)
            return self.emit(n, op, [x], s_in, **a)
        if op == "nn.relu":
            return self.emit(n, "qnn.relu", [x], s_in)
        if op == "clip":
            lo, hi = qs.clip_bounds(a["min"], a["max"], s_in)
            return self.emit(n, "qnn.clip", [x], s_in, lo=lo, hi=hi)
        if op == "nn.max_pool2d":
            self.need_nhwc(n)
            return self.emit(n, "qnn.max_pool2d", [x], s_in, kernel=a["kernel"],
                             strides=a["strides"], pads=a["pads"])
        if op in ("nn.avg_pool2d", "nn.global_avg_pool2d"):
            return self.pool(n, x, s_in)
        if op in ("add", "multiply"):
            y = self.need_act(n, n.inputs[1])
            if self.f.type_of(x) != self.f.type_of(y):
                raise QuantizationError(f"node '{n.name}' ({op}) broadcasts {self.f.type_of(x)} "
                                        f"with {self.f.type_of(y)}; the NPU needs equal shapes")
            s_out = self.calibrated(n.output)
            if op == "add":
                lm, rm, sh = qs.add_params(s_in / s_out, self.scale[y] / s_out)
                return self.emit(n, "qnn.add", [x, y], s_out, lhs_mult=lm, rhs_mult=rm,
                                 shift=sh)
            m, s = qs.quantize_multiplier(s_in * self.scale[y] / s_out)
            return self.emit(n, "qnn.multiply", [x, y], s_out, mult=m, shift=s)
        if op == "sigmoid":
            s_out = qs.SIGMOID_OUT_SCALE
            table = self.const(f"{n.name}.table", qs.sigmoid_table(s_in, s_out))
            return self.emit(n, "qnn.lut", [x, table], s_out)
        if op == "concat":
            ins = [self.need_act(n, v) for v in n.inputs]
            s_out = max(self.scale[v] for v in ins)  # nothing saturates
            pairs = [qs.quantize_multiplier(self.scale[v] / s_out) for v in ins]
            return self.emit(n, "qnn.concat", ins, s_out, axis=a["axis"],
                             mults=tuple(p[0] for p in pairs), shifts=tuple(p[1] for p in pairs))
        hint = {"nn.batch_norm": "run 'fold-bn' first",
                "nn.bias_add": "a bias must follow a conv/dense to be fused",
                "nn.softmax": "softmax runs on the host only as a graph's last op",
                "nn.matmul": "only constant-weight dense layers are quantized"}.get(op, "")
        raise QuantizationError(f"node '{n.name}': op '{op}' cannot be quantized for the NPU"
                                + (f"; {hint}" if hint else ""))

    def pool(self, n: Node, x: str, s_in: float) -> None:
        self.need_nhwc(n)
        a = n.attrs
        s_out = self.calibrated(n.output)
        if n.op == "nn.global_avg_pool2d":
            _, h, w, _ = self.f.type_of(x).shape
            m, s = qs.quantize_multiplier(s_in / (s_out * h * w))
            return self.emit(n, "qnn.global_avg_pool2d", [x], s_out, mult=m, shift=s)
        if any(a["pads"]) and not a["count_include_pad"]:
            raise QuantizationError(
                f"node '{n.name}': avg_pool2d with pads {a['pads']} and count_include_pad=0 "
                "divides border windows by fewer elements; vrequant has one divisor per "
                "channel (use count_include_pad=1 or no padding)")
        kh, kw = a["kernel"]
        m, s = qs.quantize_multiplier(s_in / (s_out * kh * kw))
        self.emit(n, "qnn.avg_pool2d", [x], s_out, kernel=a["kernel"], strides=a["strides"],
                  pads=a["pads"], mult=m, shift=s)


def _host_boundaries(f: Graph) -> tuple:
    """(input bindings, output bindings, nodes to skip): layout transforms right after an
    input and softmax/layout transforms right before an output run on the host."""
    users, producers = f.consumers(), f.producers()
    skip, inputs, outputs = set(), [], []
    for v in f.inputs:
        readers = users.get(v, [])
        perm, qname = None, v
        if len(readers) == 1 and readers[0].op == "layout_transform" and v not in f.outputs:
            skip.add(readers[0].output)
            perm, qname = (0, 2, 3, 1), readers[0].output
        inputs.append({"name": v, "qname": qname, "perm": perm})
    for v in f.outputs:
        post, cur = [], v
        while cur in producers and producers[cur].op in HOST_TAIL and \
                len(users.get(producers[cur].inputs[0], [])) == 1:
            n = producers[cur]
            if n.op == "nn.softmax":
                post.insert(0, ("softmax", n.attrs["axis"]))
            else:
                post.insert(0, ("transpose", (0, 3, 1, 2)))
            skip.add(cur)
            cur = n.inputs[0]
        outputs.append({"name": v, "qname": cur, "post": post})
    return inputs, outputs, skip


@register_pass("quantize")
class Quantize(Pass):
    """int8 post-training quantization (the scheme in compiler/qscheme.py). Needs
    graph.meta['calibration'] (from 'calibrate') and fused conv/dense ops. The result holds
    only int8/int32 values; host steps at the edges (quantize + NCHW->NHWC of inputs,
    dequantize + NHWC->NCHW / softmax of outputs) are described in graph.meta['host']."""

    def run(self, graph: Graph, ctx) -> Graph:
        calib = graph.meta.get("calibration")
        if calib is None:
            raise QuantizationError("graph has no calibration; run 'calibrate' before "
                                    "'quantize'")
        qz = _Quantizer(graph, calib["absmax"])
        inputs, outputs, skip = _host_boundaries(graph)
        for b in inputs:
            b["scale"] = qz.calibrated(b["name"])
            qz.scale[b["qname"]] = b["scale"]
            qz.q.add_input(b["qname"], graph.type_of(b["qname"]).with_dtype("int8"))
        for n in graph.nodes:
            if n.output not in skip:
                qz.visit(n)
        q = qz.q
        for b in outputs:
            b["scale"] = qz.scale[b["qname"]]
        q.outputs = [b["qname"] for b in outputs]
        q.meta.update(host={"inputs": inputs, "outputs": outputs}, scales=dict(qz.scale),
                      calibration=calib)
        return q
