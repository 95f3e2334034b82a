"""The inputs of a run: seeded random float feeds of the model, and the host step that turns
float feeds into the tensors the NPU reads (int8 quantized, or fp16)."""

from __future__ import annotations

import numpy as np


def random_inputs(compiled, seed: int = 0) -> dict:
    """Standard-normal float32 feeds {model input: array} of the float model's input shapes
    (an int8 build reads them from its module: a cached front half rebuilds its float model
    only when something needs its values); token-id inputs (an embedding lookup's) are int64
    ids uniform over the table's rows."""
    rng = np.random.default_rng(seed)
    if compiled.quantized:
        shapes = compiled.module.input_shapes()
        bounds = compiled.module.index_bounds()
    else:
        from compiler.ops.embedding import index_bound
        g = compiled.float_graph
        shapes = {v: g.type_of(v).shape for v in g.inputs}
        bounds = {v: index_bound(g, v) for v in g.inputs
                  if g.type_of(v).dtype.startswith("int")}
    return {v: rng.integers(0, bounds[v] or 1, shape).astype(np.int64) if v in bounds else
            rng.standard_normal(shape).astype(np.float32) for v, shape in shapes.items()}


def device_inputs(compiled, feeds: dict) -> dict:
    """Host step: feeds -> {artifact input: NPU tensor} (int8 quantized, or fp16); token ids
    become the rows of their embedding table the host gathers (compiler.host.apply_pre)."""
    if compiled.quantized:
        return compiled.module.quantize_inputs(feeds)
    missing = sorted({e.model_name for e in compiled.artifact.inputs} - set(feeds))
    if missing:
        from npusim.flow.errors import FlowError
        raise FlowError(f"missing input(s) {', '.join(missing)}; the model takes "
                        f"{', '.join(dict.fromkeys(e.model_name for e in compiled.artifact.inputs))}")
    out = {}
    for e in compiled.artifact.inputs:
        if e.pre:
            from compiler.host import apply_pre
            out[e.name] = apply_pre(feeds[e.model_name], e.pre, compiled.built.host_tables,
                                    e.model_name).astype(np.float16)
        else:
            out[e.name] = np.asarray(feeds[e.model_name], np.float16)
    return out


def random_device_inputs(artifact, seed: int = 0) -> dict:
    """For an artifact without its model: int8 tensors over the full range, floats normal."""
    rng = np.random.default_rng(seed)
    return {e.name: (rng.integers(-128, 128, e.shape).astype(np.int8) if e.dtype == "int8"
                     else rng.standard_normal(e.shape).astype(e.dtype)) for e in artifact.inputs}
