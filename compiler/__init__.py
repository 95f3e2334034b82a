"""The NPU compiler: frontends -> graph IR -> passes -> int8 quantization -> hand-off to codegen.

Entry points: `build_quantized(model, calib_inputs)` -> QuantizedModule; `zoo.get(name)`;
`frontend.GraphBuilder`, `frontend.import_onnx`; `passes.PassManager`."""

from .build import DEFAULT_PIPELINE, FLOAT_PIPELINE, build_float, build_quantized, load_model
from .errors import (CompilerError, FrontendError, GraphError, OpError, PassError,
                     QuantizationError, ZooError)
from .ir import Graph, Node, TensorType, verify
from .module import InputBinding, LayerParams, OutputBinding, QuantizedModule

__all__ = ["build_quantized", "build_float", "load_model", "DEFAULT_PIPELINE", "FLOAT_PIPELINE",
           "QuantizedModule",
           "InputBinding", "OutputBinding", "LayerParams", "Graph", "Node", "TensorType",
           "verify", "CompilerError", "FrontendError", "GraphError", "OpError", "PassError",
           "QuantizationError", "ZooError"]
