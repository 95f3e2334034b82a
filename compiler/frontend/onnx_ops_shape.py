"""ONNX shape handlers: Squeeze/Unsqueeze (axes as attribute before opset 13, as input from
13), Split, Slice, Cast, ReduceMean/GlobalMaxPool over the spatial axes (see onnx_import)."""

from __future__ import annotations

from .onnx_import import _Importer, handler


def _axes(im: _Importer, rank: int, attr_until: int, what: str = "axes") -> list | None:
    """Axes given as attribute (opset < attr_until) or as input 1 (from it), normalized."""
    axes = im.attr(what) if im.opset < attr_until else \
        (im.ints(what, 1) if im.input(1) is not None else None)
    return None if axes is None else sorted(int(a) % rank for a in axes)


@handler("Squeeze", note="axes attribute before opset 13, input from 13")
def _squeeze(im: _Importer):
    x = im.input(0)
    shape = im.type_of(x).shape
    axes = _axes(im, len(shape), 13)
    if axes is None:
        axes = [i for i, d in enumerate(shape) if d == 1]
    bad = [a for a in axes if shape[a] != 1]
    if bad:
        im.fail(f"cannot squeeze axes {bad} of {list(shape)}: their size is not 1")
    im.emit("reshape", [x], shape=tuple(d for i, d in enumerate(shape) if i not in axes))


@handler("Unsqueeze", note="axes attribute before opset 13, input from 13")
def _unsqueeze(im: _Importer):
    x = im.input(0)
    shape = list(im.type_of(x).shape)
    rank = len(shape) + len(im.attr("axes") or []) if im.opset < 13 else \
        len(shape) + len(im.ints("axes", 1))
    axes = _axes(im, rank, 13)
    for a in axes:
        shape.insert(a, 1)
    im.emit("reshape", [x], shape=tuple(shape))


@handler("Split",
         note="split attribute before 13, input from 13, num_outputs (18); strided DMA copies")
def _split(im: _Importer):
    """Split into slices along `axis` (sizes: attribute before opset 13, input 1 from 13,
    or num_outputs / equal parts)."""
    x = im.input(0)
    shape = im.type_of(x).shape
    axis = int(im.attr("axis", 0)) % len(shape)
    outs = list(im.node.output)
    sizes = im.attr("split") if im.opset < 13 else \
        (im.ints("split", 1) if im.input(1) is not None else None)
    if sizes is None:
        n = len(outs)
        step = -(-shape[axis] // n)
        sizes = [min(step, shape[axis] - k * step) for k in range(n)]
    if sum(sizes) != shape[axis] or len(sizes) != len(outs):
        im.fail(f"split sizes {list(sizes)} do not cover axis {axis} of {list(shape)} with "
                f"{len(outs)} outputs")
    start = 0
    for out, size in zip(outs, sizes):
        if out and size:
            im.emit("slice", [x], out, axis=axis, start=start, end=start + int(size))
        start += int(size)


@handler("Slice", note="step 1; attributes before opset 10, inputs from 10")
def _slice(im: _Importer):
    """Slices with step 1 (starts/ends/axes as attributes before opset 10, inputs from 10);
    one slice op per sliced axis."""
    x = im.input(0)
    shape = im.type_of(x).shape
    if im.opset < 10:
        starts, ends = im.attr("starts"), im.attr("ends")
        axes = im.attr("axes", list(range(len(starts))))
        steps = [1] * len(starts)
    else:
        starts, ends = im.ints("starts", 1), im.ints("ends", 2)
        axes = im.ints("axes", 3, list(range(len(starts))))
        steps = im.ints("steps", 4, [1] * len(starts))
    if any(s != 1 for s in steps):
        im.fail(f"steps {list(steps)}: only step 1 slices are supported")
    todo = []
    for a, s, e in zip(axes, starts, ends):
        a = int(a) % len(shape)
        s, e, _ = slice(int(s), int(e)).indices(shape[a])
        if (s, e) != (0, shape[a]):
            todo.append((a, s, e))
    if not todo:
        return im.emit("identity", [x])
    cur = x
    for k, (a, s, e) in enumerate(todo):
        cur = im.emit("slice", [cur], None if k == len(todo) - 1 else im.tmp(f"slice{k}"),
                      axis=a, start=s, end=e)


@handler("Cast", runs="import", note="float to float of an activation; shape casts fold")
def _cast(im: _Importer):
    """A cast between float types of an activation is the identity here (the NPU decides
    the data type); other casts of activations are not supported (shape casts fold)."""
    import onnx
    to = int(im.attr("to"))
    if to not in (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.DOUBLE):
        im.fail(f"cast of an activation to {onnx.TensorProto.DataType.Name(to)}; only float "
                "casts of activations are supported")
    im.emit("identity", [im.input(0)])


@handler("ReduceMean",
         note="over H and W of a 4-D tensor (a global average pool); axes attribute before 18, "
         "input from 18")
def _reduce_mean(im: _Importer):
    """Mean over the spatial axes of a 4-D tensor (TensorFlow's and PyTorch's global
    average pool): a global average pool, reshaped when keepdims=0."""
    x = im.input(0)
    shape = im.type_of(x).shape
    axes = _axes(im, len(shape), 18)
    keep = int(im.attr("keepdims", 1))
    if len(shape) != 4 or axes != [2, 3]:
        im.fail(f"ReduceMean over axes {axes} of {list(shape)}: only the spatial axes (2, 3) "
                "of a 4-D tensor are supported")
    if keep:
        return im.emit("nn.global_avg_pool2d", [x])
    pooled = im.emit("nn.global_avg_pool2d", [x], im.tmp("gap"))
    im.emit("reshape", [pooled], shape=tuple(shape[:2]))


@handler("GlobalMaxPool", note="a max pool over the whole image")
def _global_max(im: _Importer):
    x = im.input(0)
    h, w = im.type_of(x).shape[2:]
    im.emit("nn.max_pool2d", [x], kernel=(h, w))
