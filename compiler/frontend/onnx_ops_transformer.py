"""ONNX transformer handlers: LayerNormalization, Gelu, Where and Add of a constant mask,
Gather (slices, and embedding lookups of token ids), and the masked Softmax they feed (see
onnx_import; onnx_patterns turns the decomposed LayerNorm and GELU forms older exporters emit
into these ops first)."""

from __future__ import annotations

import numpy as np

from .onnx_import import _Importer, handler

# an additive mask entry at or below this drops its score (exporters use -1e4 .. -inf)
MASK_DROP = -1e4


@handler("LayerNormalization",
         note="opset 17; over the last axis (axis -1); also the ReduceMean/Sub/Pow/Sqrt/Div "
         "pattern older exporters emit (onnx_patterns)")
def _layer_norm(im: _Importer):
    x = im.input(0)
    xt = im.type_of(x)
    axis = int(im.attr("axis", -1)) % xt.rank
    if axis != xt.rank - 1:
        im.fail(f"LayerNormalization over axes {axis}.. of {list(xt.shape)}; only the last "
                "axis is supported")
    if im.attr("stash_type", 1) != 1:
        im.fail("stash_type other than 1 (float32 statistics)")
    used = [o for o in im.node.output[1:] if o and o in im.read]
    if used:
        im.fail(f"only the first output is supported; the model reads {used} (the mean and "
                "inverse standard deviation outputs of training)")
    n = xt.shape[-1]
    gamma = im.input(1) if im.input(1) is not None else \
        im.constant(np.ones(n, np.float32), "ln_gamma")
    beta = im.input(2) if im.input(2) is not None else \
        im.constant(np.zeros(n, np.float32), "ln_beta")
    for name, v in (("Scale", gamma), ("B", beta)):
        if not (im.is_const(v) or v in im.g.constants):
            im.fail(f"{name} must be a constant initializer")
    g, b = (_vector(im, v, n, what) for v, what in ((gamma, "Scale"), (beta, "B")))
    im.emit("nn.layer_norm", [x, g, b], epsilon=float(im.attr("epsilon", 1e-5)))


def _vector(im: _Importer, v: str, n: int, what: str) -> str:
    """Constant `v` as a 1-D vector of the normalized axis' `n` elements."""
    a = im.consts[v] if im.is_const(v) else im.g.constants[v]
    if a.size != n:
        im.fail(f"{what} {list(a.shape)} must hold one value per element of the last axis "
                f"({n})")
    return v if a.shape == (n,) else im.constant(a.reshape(n).astype(np.float32), f"{v}__vec")


@handler("Gelu", runs="int8",
         note="opset 20, approximate none or tanh; also the Erf and Tanh patterns PyTorch "
         "exports (onnx_patterns)")
def _gelu(im: _Importer):
    approx = im.attr("approximate", b"none")
    approx = approx.decode() if isinstance(approx, bytes) else str(approx)
    if approx not in ("none", "tanh"):
        im.fail(f"approximate='{approx}' is not 'none' or 'tanh'")
    im.emit("gelu", [im.input(0)], approximate=approx)


def mask_of(c: np.ndarray) -> bool:
    """Whether constant `c` is an additive attention mask: only 0 and values that drop a
    score (<= MASK_DROP, -inf included), at least one of each not required."""
    c = np.asarray(c, np.float64)
    return c.size > 1 and bool(np.all((c == 0) | (c <= MASK_DROP)))


def add_mask(im: _Importer, x: str, c: str) -> str:
    """x + constant mask: an `add` with the constant, which a Softmax reading it folds into
    its mask input (nn.softmax(x, mask)); anywhere else the quantizer refuses it."""
    return im.emit("add", [x, c])


@handler("Where",
         note="constant condition and a constant fill <= -1e4 (a causal or padding mask): an "
         "additive mask the Softmax after it absorbs; constant operands fold")
def _where(im: _Importer):
    cond, x, y = im.input(0), im.input(1), im.input(2)
    if not im.is_const(cond):
        im.fail("the condition must be a constant (a mask); a computed condition has no NPU "
                "form")
    keep = np.asarray(im.consts[cond], bool)
    if im.is_const(x) and not im.is_const(y):  # Where(cond, fill, scores): cond marks drops
        keep, x, y = ~keep, y, x
    if im.is_const(x) or not im.is_const(y):
        im.fail("one operand must be the scores (an activation) and the other a constant "
                "fill")
    fill = np.asarray(im.consts[y], np.float64)
    if fill.size != 1 or float(fill.reshape(-1)[0]) > MASK_DROP:
        im.fail(f"the fill {fill.reshape(-1)[:4].tolist()} must be one value <= {MASK_DROP:g} "
                "(a mask that drops scores); other selections have no NPU form")
    mask = np.where(keep, 0.0, max(float(fill.reshape(-1)[0]), -1e9)).astype(np.float32)
    add_mask(im, x, im.constant(mask, "mask"))


@handler("Gather",
         note="a constant index of an activation (a slice: ViT's class token); a constant "
         "table by run-time indices (an embedding lookup of int64 token ids, a model input): "
         "the host gathers the quantized rows into the NPU's input; constant operands fold")
def _gather(im: _Importer):
    x, idx = im.input(0), im.input(1)
    if not im.is_const(idx):
        if not (im.is_const(x) or x in im.g.constants):
            im.fail("indices computed at run time select rows of an activation; only a "
                    "constant table (an embedding lookup of token ids) is gathered at run "
                    "time, on the host")
        im.emit("embedding", [x, idx], axis=int(im.attr("axis", 0)))
        return
    shape = im.type_of(x).shape
    axis = int(im.attr("axis", 0)) % len(shape)
    ind = np.asarray(im.consts[idx], np.int64)
    flat = [int(i) % shape[axis] for i in ind.reshape(-1)]
    if flat != list(range(flat[0], flat[0] + len(flat))):
        im.fail(f"indices {flat[:8]} are not one contiguous run; only slices are supported")
    sl = im.emit("slice", [x], im.tmp("gather"), axis=axis, start=flat[0],
                 end=flat[0] + len(flat))
    out = list(shape[:axis]) + list(ind.shape) + list(shape[axis + 1:])
    im.emit("reshape", [sl], shape=tuple(out))


def unscaled(im: _Importer, v: str) -> tuple:
    """(the value before a scalar scale, the scale): a MatMul operand that is x * k (SDPA
    exports scale q and k by sqrt(1/sqrt(d)) each) reads x, and k joins the matmul's alpha."""
    prod = im.g.producers().get(v)
    if prod is None or prod.op != "nn.channel_affine":
        return v, 1.0
    scale, shift = (im.g.constants.get(c) for c in prod.inputs[1:])
    if scale is None or shift is None or np.any(shift != 0) or np.ptp(scale) != 0:
        return v, 1.0
    return prod.inputs[0], float(scale.reshape(-1)[0])


def scale_matmul(im: _Importer, x: str, k: float, output=None) -> str | None:
    """x * k for x = matmul(a, b) read only here: the matmul's alpha absorbs k (attention's
    scores / sqrt(d)); None when x is no such matmul."""
    prod = im.g.producers().get(x)
    if prod is None or prod.op != "nn.matmul" or x in im.read_twice:
        return None
    im.g.nodes.remove(prod)
    return im.emit("nn.matmul", prod.inputs, output, alpha=prod.attrs["alpha"] * k)
