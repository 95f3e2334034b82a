"""Reference executors: the float graph in numpy, the quantized graph in exact integers.

Both walk the graph in order and call each op's registered compute; for qnn.* ops that is
the isa.semantics sequence the NPU runs, so `run_int` is what NPU results are compared to
bit for bit. `run_onnxruntime` runs an exported float graph as an independent reference."""

from __future__ import annotations

import numpy as np

from .errors import CompilerError, GraphError
from .ir.graph import Graph
from .ops import get_op, has_trait


def _bind_inputs(graph: Graph, feeds: dict) -> dict:
    missing = [v for v in graph.inputs if v not in feeds]
    if missing:
        raise CompilerError(f"graph '{graph.name}' needs input(s) {', '.join(missing)}; "
                            f"got {', '.join(feeds) or 'none'}")
    env = {}
    for v in graph.inputs:
        want, got = graph.type_of(v), np.asarray(feeds[v])
        if tuple(got.shape) != want.shape:
            raise CompilerError(f"input '{v}' has shape {got.shape}, the graph expects "
                                f"{want.shape}")
        if want.dtype.startswith("float") and got.dtype.kind == "f":
            got = got.astype(want.dtype, copy=False)
        elif str(got.dtype) != want.dtype:
            raise CompilerError(f"input '{v}' is {got.dtype}, the graph expects {want.dtype} "
                                "(quantize float inputs with QuantizedModule.quantize_inputs)")
        env[v] = got
    return env


def run_graph(graph: Graph, feeds: dict, keep_all: bool = False, observe=None) -> dict:
    """Execute `graph` on `feeds` {input: array}; return {output: array} (all values if
    keep_all, for debugging). observe(name, array), when given, sees each input and each
    computed value as it appears, in graph order (calibration's statistics: no need to keep
    every value alive, as keep_all does)."""
    env = _bind_inputs(graph, feeds)
    if observe is not None:
        for v in graph.inputs:
            observe(v, env[v])
    env.update(graph.constants)
    pending = getattr(graph, "pending", None)  # constants still being filled (compiler.ir.pending)
    last_use = {}
    for i, n in enumerate(graph.nodes):
        for v in n.inputs:
            last_use[v] = i
    for i, n in enumerate(graph.nodes):
        op = get_op(n.op)
        attrs = op.normalize_attrs(n.attrs, n.name)
        if pending is not None:
            pending.wait(*(env[v] for v in n.inputs if v in graph.constants))
        out = np.asarray(op.compute([env[v] for v in n.inputs], attrs))
        want = graph.types.get(n.output)
        if want is not None and (out.shape != want.shape or out.dtype != want.dtype):
            raise GraphError(f"node '{n.name}' ({n.op}) computed {out.dtype}{list(out.shape)}, "
                             f"its type says {want}; this is a bug in the op's compute")
        env[n.output] = out
        if observe is not None:
            observe(n.output, out)
        if not keep_all:  # free activations early: resnet50 at 224 would hold ~1 GB otherwise
            for v in n.inputs:
                if last_use.get(v) == i and v not in graph.outputs and v not in graph.constants:
                    env.pop(v, None)
    if keep_all:
        return {k: v for k, v in env.items() if k not in graph.constants}
    return {v: env[v] for v in graph.outputs}


def run_float(graph: Graph, feeds: dict) -> dict:
    """The float reference (numpy float32) of a float graph."""
    return run_graph(graph, feeds)


def run_int(graph: Graph, feeds: dict) -> dict:
    """The integer reference of a quantized graph: int8 in, int8 out, exact."""
    bad = [n for n in graph.nodes
           if not (get_op(n.op).quantized or has_trait(n.op, "any_dtype"))]
    if bad:
        raise CompilerError(f"run_int needs a quantized graph; node '{bad[0].name}' is "
                            f"{bad[0].op} (run the quantize pass, or use run_float)")
    return run_graph(graph, feeds)


def run_onnxruntime(graph: Graph, feeds: dict) -> dict:
    """Export the float graph to ONNX and run it with onnxruntime's CPU provider."""
    import onnxruntime as ort

    from .frontend.onnx_export import export_onnx
    model = export_onnx(graph)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1  # deterministic and polite on shared machines
    sess = ort.InferenceSession(model.SerializeToString(), opts,
                                providers=["CPUExecutionProvider"])
    outs = sess.run(list(graph.outputs), {k: np.asarray(feeds[k], _ort_dtype(graph, k))
                                          for k in graph.inputs})
    return dict(zip(graph.outputs, outs))


def _ort_dtype(graph: Graph, v: str):
    """The element type an exported input takes: float32, or its own integer type (ids)."""
    dtype = graph.type_of(v).dtype
    return dtype if dtype.startswith("int") else np.float32
