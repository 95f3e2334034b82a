"""The compiler front half: any model (graph, ONNX, zoo name) -> the calibrated int8
QuantizedModule (build_quantized) or the fused float graph (build_float, float_front_half).
Both are target-independent, so build_quantized and float_front_half are cached on disk
(compiler.cache): compiling a model for a second Target reuses them."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import os

from .errors import CompilerError
from .ir.graph import Graph
from .module import QuantizedModule
from .passes import PassContext, PassManager
from .shape_limits import check_npu_fit, npu_fit

DEFAULT_PIPELINE = ("simplify, fold-constants, fold-bn, convert-layout, calibrate, fuse, "
                    "quantize, plan-memory")
FLOAT_PIPELINE = "simplify, fold-constants, fold-bn, convert-layout, fuse, plan-memory"


def load_model(model, *, deferred: bool = False, **model_kwargs) -> Graph:
    """A Graph (copied), a zoo model name, an .onnx path, or an onnx.ModelProto; refused when
    it computes nothing for an output (check_computes). deferred: a zoo model's weights may
    still be being drawn when it returns (graph.pending, compiler.ir.pending: a PassManager
    run waits for them where it must); for the front half, whose first passes and
    calibration start on the first layers' weights while the later ones are drawn."""
    graph = _read_model(model, deferred, **model_kwargs)
    check_computes(graph)
    return graph


def _read_model(model, deferred: bool = False, **model_kwargs) -> Graph:
    if isinstance(model, Graph):
        return model.copy()
    if isinstance(model, (str, os.PathLike)):
        from . import zoo
        text = str(model)
        if text in zoo.MODELS and deferred:
            from .zoo.params import deferring
            with deferring() as pending:
                graph = zoo.get(text, **model_kwargs)
            if pending.queued():
                graph.pending = pending
                pending.start()
            return graph
        if text in zoo.MODELS:
            return zoo.get(text, **model_kwargs)
        if text.endswith(".onnx") or os.path.exists(text):
            from .frontend import import_onnx
            return import_onnx(text, **model_kwargs)
        return zoo.get(text, **model_kwargs)  # raises with did-you-mean
    if type(model).__name__ == "ModelProto":
        from .frontend import import_onnx
        return import_onnx(model, **model_kwargs)
    raise CompilerError(f"cannot build from {type(model).__name__}; pass a Graph, a zoo name "
                        "(compiler.zoo.list()), an .onnx path or an onnx.ModelProto")


def check_computes(g: Graph) -> None:
    """Every graph output is computed by a node: an output that is a model input or a
    constant leaves the NPU nothing to run for it (an ONNX graph with no nodes, or an
    initializer listed among the outputs)."""
    for out in g.outputs:
        if out in g.inputs:
            raise CompilerError(f"model output '{out}' is the model input '{out}' itself: no "
                                "node computes it, so there is nothing to run; give the model "
                                "at least one operation per output")
        if out in g.constants:
            raise CompilerError(f"model output '{out}' is a constant (an initializer), not "
                                "computed by any node; the NPU computes values: drop it from "
                                "the graph outputs (the host has it already)")


def build_quantized(model, calib_inputs=None, *, num_calib: int = 8, seed: int = 0,
                    target=None, pipeline: str | PassManager | None = None,
                    **model_kwargs) -> QuantizedModule:
    """Quantize `model` to int8 for the NPU. calib_inputs: a list of {input: array} feeds
    (or one feed); None generates `num_calib` standard-normal samples from `seed`."""
    if target is not None:
        from isa.target import Target
        target = Target.create(target)
        if getattr(target, "dtype", "int8") != "int8":
            raise CompilerError(f"target '{target}' computes {target.dtype}; int8 quantization "
                                "is for dtype=int8 targets (fp16 targets run the float graph)")
    pm = pipeline if isinstance(pipeline, PassManager) else \
        PassManager.from_string(pipeline or default_pipeline(model))

    @collector_paused()
    def compute() -> QuantizedModule:
        graph = load_model(model, deferred=True, **model_kwargs)
        fit = npu_fit(graph)
        if target is not None:  # refused before calibration, which would take long
            check_npu_fit(fit, getattr(target.derived, "dram_bytes", None))
        ctx = PassContext(calib_inputs=calib_inputs, num_calib=num_calib, seed=seed)
        q = pm.run(graph, ctx)
        if "host" not in q.meta:
            raise CompilerError(f"pipeline '{pm}' does not quantize; include 'quantize'")
        q.meta["npu_fit"] = fit
        if "memory_plan" not in q.meta:
            from .passes.memory_plan import plan_memory
            q.meta["memory_plan"] = plan_memory(q)
        return QuantizedModule(graph=q, float_graph=graph, pipeline=pm, target=None,
                               log=ctx.log)

    from .cache import cached
    source = rebuilt_source(model, model_kwargs)
    module = cached("quantized", model, compute, pipeline=str(pm), calib_inputs=calib_inputs,
                    num_calib=num_calib, seed=seed, model_kwargs=model_kwargs,
                    stored=None if source is None else
                    (lambda m: dataclasses.replace(m, float_graph=None)),
                    restored=None if source is None else
                    (lambda m: dataclasses.replace(m, float_graph=source)))
    _stamp_source(module.float_graph, model)
    if target is not None:  # a cached front half skipped the check: refused alike
        check_npu_fit(module.graph.meta["npu_fit"], getattr(target.derived, "dram_bytes", None))
    # the front half never reads the Target (dtype aside, checked above): one entry serves all
    return dataclasses.replace(module, target=target)


def default_pipeline(model) -> str:
    """DEFAULT_PIPELINE, with a zoo model's own calibration where it names one
    (compiler.zoo.CALIBRATION: vit-tiny's percentile)."""
    from . import zoo
    if isinstance(model, str) and model in zoo.CALIBRATION:
        return DEFAULT_PIPELINE.replace("calibrate", zoo.CALIBRATION[model])
    return DEFAULT_PIPELINE


def build_float(model, pipeline: str | None = None, **model_kwargs) -> Graph:
    """The unquantized hand-off (fp16 targets): the simplified, BN-folded, NHWC, fused float
    graph, with graph.meta['memory_plan'] sized for its float32 tensors."""
    return PassManager.from_string(pipeline or FLOAT_PIPELINE).run(
        load_model(model, **model_kwargs))


def float_front_half(model, *, shape_limits: bool = False, **model_kwargs) -> tuple:
    """(the float model, the graph a float backend computes, its host tail): the float
    pipeline (build_float) with the final softmax(es) peeled for the host
    (split_host_softmax) - the NPU's fp16 path and the C-like float32 path both start here.
    model: anything load_model takes, or a QuantizedModule (its float graph). Cached.
    shape_limits: the NPU's instruction-field limits are checked first (compiler.shape_limits)."""
    if isinstance(model, QuantizedModule):
        model = model.float_graph

    @collector_paused()
    def compute() -> tuple:
        source = load_model(model, **model_kwargs)
        fit = npu_fit(source)
        if shape_limits:
            check_npu_fit(fit, None)
        g = build_float(source)
        g.meta["npu_fit"] = fit
        from .host import split_host_lookups
        split_host_lookups(g)  # token ids: the host's embedding lookups, before the NPU
        return source, g, split_host_softmax(g)

    from .cache import cached
    source = rebuilt_source(model, model_kwargs)
    value = cached("float", model, compute, pipeline=FLOAT_PIPELINE, model_kwargs=model_kwargs,
                   stored=None if source is None else (lambda v: (None,) + v[1:]),
                   restored=None if source is None else (lambda v: (source,) + v[1:]))
    _stamp_source(value[0], model)
    if shape_limits:  # a cached entry (the C backend's, say) skipped the check: refused alike
        check_npu_fit(value[1].meta["npu_fit"], None)
    return value


def _stamp_source(float_graph, model) -> None:
    """A model read from an ONNX file keeps that file's path and hash on its float graph, so
    verification runs onnxruntime on the user's own file (compiler.frontend.onnx_source). It
    is stamped after the cache, whose entry is keyed by the file's bytes, not its path."""
    if not isinstance(model, (str, os.PathLike)) or not os.path.isfile(str(model)):
        return  # a zoo name, a Graph or ModelProto: the reference runs our export
    from . import zoo
    if str(model) not in zoo.MODELS:
        from .frontend.onnx_source import stamp
        stamp(float_graph, model)


def rebuilt_source(model, model_kwargs: dict):
    """For a zoo model, its float model as a LazyGraph (built on first use), so a cache entry
    need not store it: the zoo's code, in the cache key, pins its content. None otherwise
    (an imported model is stored: its file may change after the compile)."""
    from . import zoo
    if not (isinstance(model, str) and model in zoo.MODELS):
        return None
    from .ir.lazy import LazyGraph
    return LazyGraph(functools.partial(load_model, model, **model_kwargs))


@contextlib.contextmanager
def collector_paused(promote: bool = False):
    """Python's cyclic garbage collector off while a compile stage runs (back on, if it was,
    afterwards): a front half's nodes and types, and lowering's and codegen's 10^5 ops,
    instructions and dependency lists, all stay alive to the end, so the collector's passes
    over them find nothing (~2% of a front half, a fifth of codegen). `promote`: what the
    stage made lives on (the program, its listing's notes), so it goes straight to the oldest
    generation (freeze then unfreeze moves every tracked object there) and the next young pass
    does not walk it to find no garbage; not where the process froze objects of its own."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            if promote and gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def split_host_softmax(g: Graph) -> dict:
    """Hand a float graph's final softmax(es) to the host, as the quantized pipeline does:
    re-points those outputs at the softmax inputs, prunes, and returns
    {npu output: (model output, (("softmax", axis),))} for the host to apply."""
    from .ops import get_hook
    post = {}
    producers = g.producers()
    for i, out in enumerate(list(g.outputs)):
        node = producers.get(out)
        host = get_hook(node.op, "host_step") if node is not None else None
        step = host(node) if host is not None else None
        # layout changes stay on the NPU; so does a softmax of a graph input (the NPU would
        # have nothing to compute, its output the input itself)
        if step is not None and step[0] == "softmax" and node.inputs[0] not in g.inputs:
            g.outputs[i] = node.inputs[0]
            post[node.inputs[0]] = (out, (step,))
    g.prune()
    return post
