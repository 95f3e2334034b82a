"""The C-like backends' front half: the model quantized to int8 (the NPU's own integer graph,
checked bit for bit) or kept float32 (checked within FLOAT_TOLERANCE), then the shared
lowering without the NPU-only rewrites, tiled for the machine's memories as the renderer
describes them."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...errors import CompilerError
from ...host import HostOutput, host_outputs
from ...lower.program import lower

DTYPES = ("int8", "float32")
# max |ref - got| / max |ref| of float32 C against the numpy float32 reference: only the
# summation order differs (observed <= 2e-6 on the zoo models at 32x32)
FLOAT_TOLERANCE = 1e-4


@dataclass(frozen=True)
class HostTensor:
    """A tensor the host writes (input) or reads (output) in the arena."""

    name: str          # the lowered graph's value
    model_name: str    # the float model's input/output
    shape: tuple
    dtype: str         # numpy dtype


@dataclass
class Prepared:
    module: object            # QuantizedModule (int8) or None (float32)
    graph: object             # the graph the kernels compute
    float_graph: object       # the float model: the float reference
    lowered: object
    dtype: str
    inputs: list
    outputs: list
    post: dict = field(default_factory=dict)   # float: output -> (model name, host steps)

    def device_inputs(self, feeds: dict) -> dict:
        """Float model inputs -> the arena's input tensors (int8 quantized, or float32)."""
        if self.module is not None:
            return self.module.quantize_inputs(feeds)
        return {t.name: np.asarray(feeds[t.model_name], np.float32) for t in self.inputs}

    @property
    def host_specs(self) -> list:
        """What the host does with each arena output (compiler.host)."""
        if self.module is not None:
            return self.module.host_specs
        return [HostOutput(t.name, t.model_name, None, self.post.get(t.name, (t.name, ()))[1])
                for t in self.outputs]

    def host_outputs(self, outputs: dict) -> dict:
        """Arena outputs -> float outputs named as the model's (dequantize, host steps)."""
        return host_outputs(outputs, self.host_specs)

    def check(self, feeds: dict, dev_in: dict, outputs: dict) -> dict:
        """int8: bit-exact against QuantizedModule.run_int; float32: max relative error
        against the numpy float reference within FLOAT_TOLERANCE."""
        from ...metrics import max_rel_error
        from ...verify import float_reference, integer_mismatches
        if self.module is not None:
            diff = integer_mismatches(self.module, dev_in, outputs)
            return {"verified": diff == 0, "bit_exact": diff == 0, "mismatches": diff,
                    "reference": "integer reference (QuantizedModule.run_int)"}
        ref, _ = float_reference(self.float_graph, feeds)
        got = self.host_outputs(outputs)
        err = max(max_rel_error(ref[k], got[k]) for k in ref)
        return {"verified": err <= FLOAT_TOLERANCE, "bit_exact": None,
                "max_rel_error": err, "tolerance": FLOAT_TOLERANCE,
                "reference": "numpy float32 reference"}


def prepare(model, target, renderer, dtype: str = "int8", calib_inputs=None,
            num_calib: int = 8, seed: int = 0, **model_kwargs) -> Prepared:
    """model: zoo name, .onnx path, Graph or QuantizedModule (reused as is for int8)."""
    from ...build import build_quantized
    from ...module import QuantizedModule
    if dtype not in DTYPES:
        raise CompilerError(f"dtype '{dtype}' is not one the C-like backends compute; "
                            f"use one of {', '.join(DTYPES)}")
    hw = renderer.hw(dtype)
    if dtype == "int8":
        module = model if isinstance(model, QuantizedModule) else build_quantized(
            model, calib_inputs, num_calib=num_calib, seed=seed, **model_kwargs)
        lowered = lower(module.graph, target, hw, npu_rewrites=False)
        g = module.graph
        inputs = [HostTensor(b.qname, b.name, g.type_of(b.qname).shape, "int8")
                  for b in module.inputs]
        outputs = [HostTensor(b.qname, b.name, g.type_of(b.qname).shape, "int8")
                   for b in module.outputs]
        return Prepared(module, g, module.float_graph, lowered, dtype, inputs, outputs)
    from ...build import float_front_half
    source, g, post = float_front_half(model, **model_kwargs)
    lowered = lower(g, target, hw, npu_rewrites=False)
    inputs = [HostTensor(v, v, g.type_of(v).shape, "float32") for v in g.inputs]
    outputs = [HostTensor(v, post.get(v, (v,))[0], g.type_of(v).shape, "float32")
               for v in g.outputs]
    return Prepared(None, g, source, lowered, dtype, inputs, outputs, post)
