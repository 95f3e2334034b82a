"""The ONNX file checks before import: onnx's checker and onnxruntime must accept the file,
or it is refused with their reason (OnnxRejectedError), in one line."""

from __future__ import annotations

import re

from ..errors import OnnxRejectedError

# onnxruntime's message carries its status prefix, the load call and the C++ source location
# with the function's signature before its reason: "[ONNXRuntimeError] : 1 : FAIL : Load
# model from m.onnx failed:/onnxruntime_src/.../x.h:46 void f(...) <reason>"
_ORT_PREFIX = re.compile(r"^\[ONNXRuntimeError\]\s*:\s*\d+\s*:\s*\w+\s*:\s*")
_ORT_LOAD = re.compile(r"^Load model from .*? failed:\s*")
_ORT_WHERE = re.compile(r"^\S+\.(?:h|cc|cpp):\d+\s+[^()]*\([^)]*\)\s*(?:const\s*)?")


def one_line(text: str) -> str:
    return " ".join(str(text).split()).rstrip(".")


def onnxruntime_reason(error: Exception) -> str:
    """onnxruntime's reason for refusing a model, without its status, call and source
    location."""
    text = one_line(error)
    for pattern in (_ORT_PREFIX, _ORT_LOAD, _ORT_WHERE):
        text = pattern.sub("", text, count=1)
    return text


def check_model(path: str, what: str) -> None:
    """onnx's checker on the file (structure, opsets, types; without shape inference, whose
    disagreements the importer names more exactly: check_inferred runs that after). By path,
    as onnx asks for models over protobuf's 2 GB."""
    import onnx
    try:
        onnx.checker.check_model(path)
    except onnx.checker.ValidationError as e:
        raise OnnxRejectedError(f"{what} is rejected by onnx's checker: {one_line(e)}; fix "
                                "the file (onnx.checker.check_model names the same)") from None


def check_inferred(path: str, what: str) -> None:
    """onnx's checker with full shape inference (onnx.checker.check_model full_check=True):
    a value declared with a type or shape its op does not produce."""
    import onnx
    try:
        onnx.checker.check_model(path, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as e:
        raise OnnxRejectedError(f"{what} is rejected by onnx's checker (full_check): "
                                f"{one_line(e)}; fix the file's declared types and shapes") \
            from None


def check_onnxruntime(path: str, what: str) -> None:
    """onnxruntime must load the file (it is the float reference results are checked
    against): an opset it does not support, an op or type it lacks."""
    try:
        import onnxruntime as ort
    except ImportError:  # onnxruntime is optional: without it there is nothing to ask
        return
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # load only
    opts.intra_op_num_threads = 1
    opts.log_severity_level = 3  # its shape-merge warnings are the importer's to report
    try:
        ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001 - onnxruntime raises its own Fail/InvalidGraph/...
        raise OnnxRejectedError(f"{what} is rejected by onnxruntime {ort.__version__}: "
                                f"{onnxruntime_reason(e)}") from None
