"""Finds MobileNetV2-style inverted-residual chains (1x1 expand -> depthwise -> 1x1 project) in
a quantized NHWC graph, for the lowering's fused-block rewrite (compiler/lower/fused_block.py)."""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.graph import Graph, Node
from .rewrite import single_user

CONV_OPS = ("qnn.conv2d",)


@dataclass(frozen=True)
class BlockChain:
    """The nodes of one chain; `expand` is None for a block without one (MobileNetV2's first,
    expansion 1). Every intermediate tensor has one reader, the next link, so a fused block
    need never write it to DRAM."""

    expand: Node | None
    dw: Node
    project: Node

    @property
    def nodes(self) -> list:
        return [n for n in (self.expand, self.dw, self.project) if n is not None]


def _nhwc(g: Graph, n: Node) -> bool:
    return n.op in CONV_OPS and g.type_of(n.inputs[0]).rank == 4 and \
        n.attrs.get("layout", "NHWC") == "NHWC"


def _pointwise(g: Graph, n: Node) -> bool:
    """A dense 1x1 stride-1 unpadded conv of one image."""
    if not _nhwc(g, n):
        return False
    a = n.attrs
    w = g.constants.get(n.inputs[1])
    return (w is not None and w.shape[:2] == (1, 1)
            and a.get("groups", 1) == 1 and tuple(a["strides"]) == (1, 1)
            and tuple(a["pads"]) == (0, 0, 0, 0) and g.type_of(n.inputs[0]).shape[0] == 1)


def _depthwise(g: Graph, n: Node) -> bool:
    """A depthwise conv (one channel per group) without dilation or a residual."""
    if not _nhwc(g, n):
        return False
    a = n.attrs
    cin = g.type_of(n.inputs[0]).shape[3]
    return (a.get("groups", 1) == cin == g.type_of(n.output).shape[3] > 1
            and tuple(a.get("dilations", (1, 1))) == (1, 1) and len(n.inputs) == 5
            and g.type_of(n.inputs[0]).shape[0] == 1)


def find_blocks(g: Graph) -> list:
    """Every chain [expand ->] depthwise -> project whose links read their predecessor only
    (the project may add a residual: the block's input, or any tensor made earlier)."""
    users = g.consumers()
    producer = g.producers()
    out = []
    for dw in g.nodes:
        if not _depthwise(g, dw):
            continue
        proj = single_user(g, dw.output, users)
        if proj is None or proj.inputs[0] != dw.output or not _pointwise(g, proj) \
                or dw.output in proj.inputs[1:]:
            continue
        exp = producer.get(dw.inputs[0])
        if exp is None or not _pointwise(g, exp) or len(exp.inputs) != 5 \
                or single_user(g, exp.output, users) is not dw:
            exp = None
        out.append(BlockChain(exp, dw, proj))
    return out
