"""A SCALE-Sim layer as a one-layer graph for our compiler: a conv with SCALE-Sim's output
size (zero rows/columns below and right where its ceil adds a window), or a GEMM."""

from __future__ import annotations

import numpy as np

from npusim.flow import GraphBuilder

from .topology import Layer


def pads(layer: Layer) -> tuple:
    """(top, left, bottom, right): SCALE-Sim pads nothing, but its ofmap size
    ceil((H - R + S) / S) counts a last window that runs past the input when (H - R) % S != 0;
    zero rows below (columns right) give our conv that window, so both do the same MACs."""
    bottom = (layer.ofmap_h - 1) * layer.stride_h + layer.filter_h - layer.ifmap_h
    right = (layer.ofmap_w - 1) * layer.stride_w + layer.filter_w - layer.ifmap_w
    return (0, 0, max(0, bottom), max(0, right))


LOWERINGS = ("conv", "gemm")


def layer_graph(layer: Layer, seed: int = 0, lowering: str = "conv"):
    """The float graph of one layer, with seeded random weights (timing does not read them).
    lowering "conv": a conv layer is our conv (the array's hardware im2col, one pass per
    kernel tap and block of channels); "gemm": it is SCALE-Sim's own operand matrices, an
    M x K ifmap matrix (im2col'd in DRAM beforehand) times the K x N filters."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder(layer.name.replace(" ", "_") or "layer")
    if layer.kind == "gemm" or lowering == "gemm":
        x = b.input("x", (layer.m, layer.k))
        w = rng.standard_normal((layer.k, layer.n)).astype(np.float32) / np.sqrt(layer.k)
        return b.build([b.dense(x, w, name="gemm")])
    x = b.input("x", (1, layer.channels, layer.ifmap_h, layer.ifmap_w))
    w = rng.standard_normal((layer.filters, layer.channels, layer.filter_h, layer.filter_w))
    w = (w / np.sqrt(layer.k)).astype(np.float32)
    y = b.conv2d(x, w, stride=(layer.stride_h, layer.stride_w), pad=pads(layer), name="conv")
    return b.build([y])
