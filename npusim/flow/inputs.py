"""The inputs of a run: seeded random float feeds of the model, and the host step that turns
float feeds into the tensors the NPU reads (int8 quantized, or fp16)."""

from __future__ import annotations

import numpy as np


def random_inputs(compiled, seed: int = 0) -> dict:
    """Standard-normal float32 feeds {model input: array} of the float model's input shapes
    (an int8 build reads them from its module: a cached front half rebuilds its float model
    only when something needs its values)."""
    rng = np.random.default_rng(seed)
    if compiled.quantized:
        shapes = compiled.module.input_shapes()
    else:
        g = compiled.float_graph
        shapes = {v: g.type_of(v).shape for v in g.inputs}
    return {v: rng.standard_normal(shape).astype(np.float32) for v, shape in shapes.items()}


def device_inputs(compiled, feeds: dict) -> dict:
    """Host step: float feeds -> {artifact input: NPU tensor} (int8 quantized, or fp16)."""
    if compiled.quantized:
        return compiled.module.quantize_inputs(feeds)
    return {e.name: np.asarray(feeds[e.model_name], np.float16) for e in compiled.artifact.inputs}


def random_device_inputs(artifact, seed: int = 0) -> dict:
    """For an artifact without its model: int8 tensors over the full range, floats normal."""
    rng = np.random.default_rng(seed)
    return {e.name: (rng.integers(-128, 128, e.shape).astype(np.int8) if e.dtype == "int8"
                     else rng.standard_normal(e.shape).astype(e.dtype)) for e in artifact.inputs}
