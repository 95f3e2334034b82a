"""The host's steps around a device run: before it, the embedding lookups of token-id inputs
(rows of the quantized, or fp16, table gathered into the NPU's input tensor); after it,
dequantize (int8 outputs), then the peeled tail ops (layout transposes, softmax) in order - one
helper for the NPU, the C-like backends and the integer reference alike."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import qscheme as qs
from .errors import CompilerError, QuantizationError
from .ops import get_hook
from .ops.elementwise import softmax
from .ops.embedding import take_rows


@dataclass(frozen=True)
class HostOutput:
    """Device tensor `device` gives model output `model`: dequantized by `scale` (int8; None
    for float outputs, which are widened to float32), then the `post` steps."""

    device: str
    model: str
    scale: float | None
    post: tuple = ()     # ("transpose", perm) / ("softmax", axis), applied in order

    @classmethod
    def of(cls, entry) -> "HostOutput":
        """From an artifact TensorEntry (name, model_name, scale, post)."""
        return cls(entry.name, entry.model_name, entry.scale, tuple(entry.post or ()))

    def finish(self, y: np.ndarray) -> np.ndarray:
        y = qs.dequantize(y, self.scale) if self.scale is not None else \
            np.asarray(y).astype(np.float32)
        return apply_post(y, self.post)


def apply_post(y: np.ndarray, post) -> np.ndarray:
    for kind, arg in post:
        if kind == "transpose":
            y = np.ascontiguousarray(y.transpose(arg))
        elif kind == "softmax":
            y = softmax(y, arg)
        else:
            raise CompilerError(f"unknown host step '{kind}' (arg {arg!r}); the host runs "
                                "transpose and softmax")
    return y


def host_outputs(outputs: dict, specs) -> dict:
    """Device outputs (by device name) -> float outputs named as the model's."""
    missing = [s.device for s in specs if s.device not in outputs]
    if missing:
        raise CompilerError(f"device output(s) {', '.join(missing)} missing; got "
                            f"{', '.join(outputs) or 'none'}")
    return {s.model: s.finish(outputs[s.device]) for s in specs}


def apply_pre(x, pre, tables: dict, what: str = "input") -> np.ndarray:
    """The host steps before a device run of model input `what` (its `pre`, in order):
    ("gather", (table, axis)) picks the rows of tables[table] (as the device stores it:
    int8 quantized, or fp16) that the token ids `x` name, so the NPU reads embedded tokens."""
    y = np.asarray(x)
    for kind, arg in pre:
        if kind != "gather":
            raise CompilerError(f"unknown host input step '{kind}' (arg {arg!r}) of '{what}'; "
                                "the host runs gather (an embedding lookup) before the NPU")
        table, axis = arg
        if table not in tables:
            raise CompilerError(f"input '{what}': the host's embedding table '{table}' is not "
                                f"at hand (have {', '.join(tables) or 'none'}); compile the "
                                "model again")
        y = take_rows(tables[table], y, axis, what=f"input '{what}' (token ids)")
    return y


def describe_step(kind: str, arg, tables: dict | None = None) -> str:
    """One host step in words: 'gather emb.word_table (30522x128 int8)', 'softmax axis -1'."""
    if kind == "gather":
        table, axis = arg
        t = (tables or {}).get(table)
        shape = f" ({'x'.join(map(str, t.shape))} {t.dtype})" if t is not None else ""
        return f"gather {table}{shape}" + (f" axis {axis}" if axis else "")
    if kind == "softmax":
        return f"softmax axis {arg}"
    if kind == "transpose":
        return f"transpose {list(arg)}"
    return f"{kind} {arg}" if arg is not None else kind


def host_lookups(g, v: str) -> list:
    """[(node, (kind, (table, axis)))] of integer model input `v` (token ids): each reader is
    an embedding lookup of a constant table (the op's host_input hook), which the host runs
    before the NPU; [] for a float input. An integer input read otherwise is refused."""
    t = g.type_of(v)
    if not t.dtype.startswith("int"):
        return []
    readers = g.consumers().get(v, [])
    out = []
    for n in readers:
        hook = get_hook(n.op, "host_input")
        step = hook(n) if hook is not None and list(n.inputs[1:]) == [v] else None
        if step is None or n.inputs[0] not in g.constants:
            raise QuantizationError(
                f"model input '{v}' ({t}) is read by node '{n.name}' ({n.op}); an integer "
                "input runs only as the token ids of embedding lookups (ONNX Gather of a "
                "constant table), which the host does before the NPU")
        out.append((n, (step[0], (n.inputs[0], step[1]))))
    if v in g.outputs or not out:
        raise QuantizationError(f"model input '{v}' ({t}) is "
                                f"{'a model output' if out else 'read by no node'}; an integer "
                                "input runs only as the token ids of embedding lookups")
    return out


def split_host_lookups(g) -> None:
    """A float graph's embedding lookups of model inputs go to the host (as the quantize pass
    does for int8): each lookup's output becomes a graph input in place of the token ids;
    g.meta['host_inputs'] = {device input: (model input, pre steps)} and
    g.meta['host_tables'] = {table: fp16 array} say what the host gathers."""
    host, tables, inputs = {}, {}, []
    for v in g.inputs:
        lookups = host_lookups(g, v)
        if not lookups:
            inputs.append(v)
        for n, step in lookups:
            g.nodes.remove(n)
            inputs.append(n.output)
            host[n.output] = (v, (step,))
            tables[n.inputs[0]] = np.asarray(g.constants[n.inputs[0]], np.float16)
    if host:
        g.inputs = inputs
        g.prune()
        g.meta["host_inputs"], g.meta["host_tables"] = host, tables
