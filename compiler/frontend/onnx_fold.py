"""Import-time constant folding: shape subgraphs (Shape, Gather, Concat, ...) become constants."""

from __future__ import annotations

import numpy as np

# Ops evaluated at import when every input is a constant: exporters compute reshape targets,
# pads and scales with them from the (now known) input shape. Data ops of constants fold too
# (a Conv of two initializers is a constant), through onnx's reference evaluator.
_NEVER = {"Constant", "Dropout", "RandomNormal", "RandomUniform", "RandomNormalLike",
          "RandomUniformLike", "Multinomial", "Bernoulli"}


def _shape_of(im, node) -> np.ndarray | None:
    """Shape (start/end from opset 15) or Size of a value whose type the importer knows."""
    x = node.input[0]
    if x not in im.consts and not im.g.defines(x):
        return None
    shape = list(im.type_of(x).shape)
    if node.op_type == "Size":
        return np.asarray(int(np.prod(shape, dtype=np.int64)), np.int64)
    start, end = im.attr("start", 0), im.attr("end", None)
    return np.asarray(shape[start:end] if end is not None else shape[start:], np.int64)


def _evaluate(node, inputs: list, opset: int) -> list | None:
    """The node's outputs from onnx's reference implementation, or None where it has none."""
    try:
        from onnx import helper
        from onnx.reference import ReferenceEvaluator
    except ImportError:  # an onnx without the reference evaluator folds Shape only
        return None
    names = [f"i{k}" for k in range(len(inputs))]
    ins = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
           for n, a in zip(names, inputs)]
    it = iter(names)
    renamed = helper.make_node(node.op_type, [next(it) if v else "" for v in node.input],
                               [f"o{k}" for k in range(len(node.output))], domain=node.domain)
    renamed.attribute.extend(node.attribute)
    outs = [helper.make_empty_tensor_value_info(f"o{k}") for k in range(len(node.output))]
    graph = helper.make_graph([renamed], "fold", ins, outs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    try:
        ev = ReferenceEvaluator(model)
        return [np.asarray(v) for v in ev.run(None, dict(zip(names, inputs)))]
    except Exception:  # noqa: BLE001  (no reference kernel: the op's handler decides)
        return None


def fold(im, node) -> bool:
    """Fold `node` into im.consts when its outputs are known at import; True if it did."""
    if node.op_type in ("Shape", "Size") and node.domain in ("", "ai.onnx"):
        value = _shape_of(im, node)
        if value is None:
            return False
        im.consts[node.output[0]] = value
        return True
    if node.op_type in _NEVER or not node.input or node.domain not in ("", "ai.onnx"):
        return False
    if not all(v in im.consts for v in node.input if v):
        return False
    if any(im.g.defines(v) and v not in im.consts for v in node.input if v):
        return False
    values = _evaluate(node, [im.consts[v] for v in node.input if v], im.opset)
    if values is None:
        return False
    for name, v in zip(node.output, values):
        if name:
            im.consts[name] = v.astype(np.float32) if v.dtype == np.float64 else v
    return True
