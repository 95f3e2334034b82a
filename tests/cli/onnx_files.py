"""Small ONNX files the CLI tests generate in code (onnx.helper; nothing is downloaded)."""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def conv_onnx(path, shape=(1, 3, 16, 16), opset=17, dims=None, out_dims="auto",
              value_info=()):
    """x -> Conv(8 filters, 3x3, pad 1) -> Relu -> y, saved to `path`."""
    w = np.random.default_rng(0).standard_normal((8, shape[1], 3, 3)).astype(np.float32)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, dims or list(shape))
    y = helper.make_tensor_value_info(
        "y", TensorProto.FLOAT, [shape[0], 8, *shape[2:]] if out_dims == "auto" else out_dims)
    g = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
                           helper.make_node("Relu", ["c"], ["y"])], "probe", [x], [y],
                          [numpy_helper.from_array(w, "w")], value_info=list(value_info))
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]), path)
    return path
