"""The ISA's instruction-field limits a model's shapes must fit on the NPU, checked from the
float graph's shapes alone, before calibration spends its minutes and gigabytes on a model
that no tiling can run (lowering would refuse it, after all that, for the same field); and a
lower bound of the DRAM an int8 model needs, against the Target's (check_npu_fit)."""

from __future__ import annotations

from .errors import CompilerError
from .ir.graph import Graph
from .ops import get_hook, has_trait
from .ops.common import nchw

class ShapeLimitError(CompilerError):
    """A layer's shape exceeds an instruction field that no tiling of it can avoid."""


def _field(mnemonic: str, name: str):
    from isa.spec import load_spec
    return load_spec().instruction(mnemonic).field_map[name]


def _register(name: str):
    from isa.spec import load_spec
    return load_spec().registers[name]


def check_shape_limits(g: Graph) -> None:
    """Refuse the first conv or pool whose shape no tiling fits: a tile always holds whole
    rows (the input width goes into a 10-bit in_w field), and padding and pooling windows go
    into registers. Limits that depend on the Target's buffers are left to lowering."""
    for n in g.nodes:  # (a conv of a constant is folded away, never lowered)
        if has_trait(n.op, "windowed") and n.inputs[0] not in g.constants:
            _check_window(g, n)


def _check_window(g: Graph, n) -> None:
    """A windowed op: a conv (it has weights), a pool (a kernel attribute), or a global
    pool (neither, and a 1x1 output: lowered as one pool whose window is the whole image, so
    the image must fit the pool_kh/pool_kw registers); the other windowed ops (upsample,
    depth_to_space) are DMA copies with no such field."""
    from isa.semantics import conv_out_size
    a = n.attrs
    conv = len(n.inputs) > 1
    layout = a.get("layout", "NCHW")
    _, c, h, w = nchw(g.type_of(n.inputs[0]), layout)
    glob = not conv and "kernel" not in a and nchw(g.type_of(n.output), layout)[2:] == (1, 1)
    if not conv and "kernel" not in a and not glob:
        return
    kernel = (h, w) if glob else a.get("kernel")
    pads = tuple(a.get("pads", (0, 0, 0, 0)))
    where = f"layer '{n.name}' ({n.op}, input {c}x{h}x{w})"
    mnemonic = "conv" if conv else "vmaxpool"
    width = w
    if conv:
        kh, kw = _kernel(g, n)
        strided_1x1 = (kh, kw) == (1, 1) and tuple(a["strides"]) != (1, 1) and not any(pads) \
            and a.get("groups", 1) == 1
        if strided_1x1:  # lowering loads every stride-th column: the conv sees the output width
            width = conv_out_size(w, 1, a["strides"][1], 0, 0, 1)
    field = _field(mnemonic, "in_w")
    if width > field.range[1]:
        loaded = "" if width == w else f" (its stride-{a['strides'][1]} columns: {width})"
        raise ShapeLimitError(
            f"{where}: its input is {w} wide{loaded}, but the {field.name} field of the "
            f"{'conv instruction' if conv else 'pooling instructions (vmaxpool, vsumpool)'} "
            f"({field.doc}) is {field.width} bits, at most {field.range[1]}, and a tile "
            f"always spans the whole width; needed: {field.name} = "
            f"{width}. Give this layer an input at most {field.range[1]} wide (--resolution for "
            "a zoo model; a smaller export or --input-shape for an ONNX file); larger buffers "
            "do not help")
    prefix = "conv_pad" if conv else "pool_pad"
    for side, pad in zip(("top", "left", "bottom", "right"), pads):
        reg = _register(f"{prefix}_{side}")
        if pad > reg.range[1]:
            raise ShapeLimitError(
                f"{where}: padding {pad} on the {side} exceeds the {reg.name} register "
                f"(at most {reg.range[1]}); needed: {pad}. Pad the input explicitly in the "
                "model instead")
    if not conv:
        for dim, k in zip(("kh", "kw"), kernel):
            reg = _register(f"pool_{dim}")
            if k > reg.range[1]:
                what = f"pooling window {kernel[0]}x{kernel[1]}" + (
                    " (a global pool's window is its whole map)" if glob else "")
                hint = (f"Give the pool a map at most {reg.range[1]} on a side (a smaller "
                        "export or --input-shape for an ONNX file, --resolution for a zoo "
                        "model)" if glob else "Pool in several smaller steps")
                raise ShapeLimitError(
                    f"{where}: {what} exceeds the {reg.name} register (at most "
                    f"{reg.range[1]}); needed: {k}. {hint}")


def _kernel(g: Graph, n) -> tuple:
    from .ops.nn import kernel_dims
    kh, kw, _, _ = kernel_dims(g.type_of(n.inputs[1]), n.attrs.get("kernel_layout", "OIHW"))
    return kh, kw


def npu_fit(g: Graph) -> tuple:
    """(the shape-limit refusal's message or None, dram_lower_bound(g)): what check_npu_fit
    needs, from the float graph's shapes; a cached front half keeps it (its meta['npu_fit']),
    so that a cache hit is refused exactly as a fresh compile is."""
    try:
        check_shape_limits(g)
        refusal = None
    except ShapeLimitError as e:
        refusal = str(e)
    return refusal, dram_lower_bound(g)


def check_npu_fit(fit: tuple, capacity: int | None) -> None:
    """Refuse, before calibrating, a model whose shapes no tiling fits (check_shape_limits) or
    whose int8 DRAM image cannot fit `capacity` bytes (ResNet-18 at 1000x1000 on npu-tiny:
    104 s and 1.5 GB of calibration, then the memory image refused it)."""
    refusal, (w_bytes, a_bytes) = fit
    if refusal is not None:
        raise ShapeLimitError(refusal)
    if capacity is not None and w_bytes + a_bytes > capacity:
        raise ShapeLimitError(
            f"the model needs at least {w_bytes + a_bytes:,} bytes of DRAM ({w_bytes:,} of "
            f"int8 conv/dense weights, {a_bytes:,} of its inputs or outputs), more than the "
            f"Target's {capacity:,}; use a Target with larger dram-mb (or a smaller input)")


def dram_lower_bound(g: Graph) -> tuple:
    """(weight bytes, activation bytes) an int8 build of `g` holds in DRAM at least: its conv
    and dense weights, one byte each (packed after the activations; biases and tables not
    counted), and the larger of its float inputs' and its outputs' bytes (they live in the
    activation arena). What it refuses, the memory image would refuse too."""
    weights = {n.inputs[1] for n in g.nodes if get_hook(n.op, "fused_as") is not None
               and len(n.inputs) > 1 and n.inputs[1] in g.constants
               and n.inputs[0] not in g.constants}  # the linear ops: conv2d, dense
    ends = ([v for v in g.inputs if g.type_of(v).dtype.startswith("float")],
            [v for v in g.outputs if v not in g.constants])
    return (sum(_elems(g, w) for w in weights),
            max(sum(_elems(g, v) for v in vs) for vs in ends))


def _elems(g: Graph, v: str) -> int:
    n = 1
    for d in g.type_of(v).shape:
        n *= int(d)
    return n
