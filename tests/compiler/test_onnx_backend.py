"""ONNX conformance: our compiler + NPU simulator as an onnx.backend, run on ONNX's own node
tests for the operators we lower. Float cases run on an fp16 Target (fp16 data, fp32
accumulation); int8 quantization could not meet any float tolerance, so it is not used here.

Weights that a node test passes as graph inputs (Conv W/B, Gemm B/C, BatchNormalization
statistics) are bound as initializers at run time: an inference compiler needs them at compile
time, and the data input stays an input. Tolerances: fp16 keeps 11 significant bits (unit
roundoff 2^-11 = 4.9e-4); inputs, weights and outputs are each rounded once, so elementwise
results are within ~1e-3 relative, and sums of products within ~1e-3 of their magnitude."""

import re

import numpy as np
import onnx
import onnx.backend.base
import onnx.backend.test
from onnx import numpy_helper

TARGET = "npu-edge -dtype=fp16"

# input positions that are weights, per op type
WEIGHTS = {"Conv": (1, 2), "Gemm": (1, 2), "BatchNormalization": (1, 2, 3, 4), "MatMul": (1,),
           "Clip": (1, 2), "Reshape": (1,), "Squeeze": (1,), "Unsqueeze": (1,), "Split": (1,),
           "Slice": (1, 2, 3, 4), "Pad": (1, 2, 3), "ReduceMean": (1,), "Resize": (1, 2, 3),
           "Upsample": (1,), "PRelu": (1,), "Dropout": (1, 2),
           "ConvTranspose": (1, 2)}

INCLUDE = [
    r"test_relu_", r"test_add_cpu", r"test_mul_cpu", r"test_mul_example_", r"test_clip_",
    r"test_conv_with_", r"test_gemm_", r"test_matmul_2d_", r"test_maxpool_2d_",
    r"test_averagepool_2d_", r"test_globalaveragepool", r"test_flatten_", r"test_reshape_",
    r"test_identity_cpu", r"test_dropout_default_cpu", r"test_batchnorm_e", r"test_softmax_",
    r"test_basic_conv_", r"test_sigmoid", r"test_concat_", r"test_transpose_",
    r"test_sum_", r"test_sub_", r"test_div_", r"test_neg", r"test_squeeze(_negative_axes)?_cpu", r"test_unsqueeze",
    r"test_split_", r"test_slice", r"test_constant", r"test_shape", r"test_size",
    r"test_maxpool_", r"test_averagepool_", r"test_globalmaxpool", r"test_lrn", r"test_pad",
    r"test_constant_pad", r"test_leakyrelu", r"test_hardswish", r"test_hardsigmoid",
    r"test_elu", r"test_tanh", r"test_prelu", r"test_reduce_mean_", r"test_resize_upsample",
    r"test_upsample_nearest", r"test_cast_FLOAT_to_FLOAT16", r"test_gemm_",
    r"test_batchnorm_", r"test_dropout_", r"test_convtranspose", r"test_depthtospace",
    # PyTorch exports of its 2-D modules and operators (onnx's pytorch-converted and
    # pytorch-operator model tests)
    r"test_(AvgPool|MaxPool|Conv|ConvTranspose|BatchNorm|ConstantPad|ZeroPad)2d",
    r"test_(ReLU|LeakyReLU|PReLU_2d|Linear|PixelShuffle|Softmax|softmax_lastdim)",
    r"test_operator_(add|addconstant|basic|chunk|clip|concat2|conv|convtranspose|flatten|"
    r"maxpool|pad|params|permute2|reduced_mean|view|mm|addmm)"
]

# excluded on purpose, with the reason (each is a pattern on the test name)
EXCLUDE = {
    r"test_clip_min_greater_than_max": "the importer refuses min > max",
    r"test_clip_default_int8": "int8 tensors in a float test: the fp16 Target holds fp16 data",
    r"^(?!test_(hardswish|depthtospace_example|depthtospace_crd_mode_example|"
    r"clip_default_inbounds)_expanded).*_expanded": "the function-expanded variants use ops "
        "(Less, Where, CastLike, ReduceMax, ...) outside the imported set",
    r"test_softmax_axis_[01]_cpu": "a softmax over a leading axis: the fp16 path normalizes the "
        "last axis only (int8 normalizes any axis)",
    r"test_softmax_large_number_cpu": "inputs near 1e4, where fp16's spacing is 8: the "
        "differences the softmax needs are rounded away",
    r"test_averagepool_2d_(pads|precomputed_pads|same_lower|same_upper|precomputed_same_upper)"
    r"_cpu": "padding excluded from the divisor (count_include_pad=0) is corrected by a "
             "table of window size / count (int8 vlut); fp16 has no table op",
    r"test_averagepool_2d_dilations": "dilated average pooling is not imported (the pool "
        "registers have no dilation; dilated MaxPool runs as undilated pools per phase)",
    r"test_(max|average)pool_(1d|3d)": "1-D and 3-D pooling: the NPU pools 2-D windows",
    r"test_averagepool_3d_dilations": "3-D dilated pooling: the NPU pools 2-D windows",
    r"test_averagepool_2d_ceil_cpu": "ceil_mode's partial window, averaged over its valid elements "
        "only (count_include_pad=0), is corrected by a table (int8 vlut); fp16 has no table op",
    r"test_convtranspose_(1d|3d)": "1-D and 3-D transposed convolutions: the NPU convolves 2-D",
    r"test_convtranspose_dilations": "dilated ConvTranspose is not imported",
    r"test_operator_(add_broadcast|add_size1|addconstant)": "float64 inputs (the fp16 Target "
        "holds fp16 data)",
    r"test_operator_basic": "a constant scale of an activation with no conv to fold into "
        "(nn.channel_affine) has no NPU lowering",
    r"test_operator_params": "a constant added over every axis of its operand (not a scalar or "
        "one value per channel)",
    r"test_operator_maxpool": "1-D pooling: the NPU pools 2-D windows",
    r"test_operator_clip": "fp16 vclip takes integer bounds; the test clips to +-0.5",
    r"test_operator_reduced_mean": "ReduceMean over one axis of a 4-D tensor (the NPU reduces "
        "H and W, as a global average pool)",
    r"test_maxpool_with_argmax": "the test reads MaxPool's Indices output",
    r"test_dropout_default_mask": "the test reads Dropout's mask output",
    r"test_lrn": "LRN's normalizer (k + alpha/n sum x^2) ** -beta is a 256-entry int8 table "
        "(vlut) on the NPU; fp16 has no power program (compiler/lower/vecfn.py)",
    r"test_(neg|sub|div)_(example_)?cpu|test_(sub|div)_bcast": "a per-channel scale of a 3-D "
        "tensor (Neg, Sub of an activation) has no conv to fold into, and Div of two "
        "activations has no NPU instruction",
    r"test_(sub|div)_(u?int(8|16|32|64)|int32_trunc)": "integer tensors; the fp16 Target holds "
        "fp16 data",
    r"test_prelu_(broadcast|example)": "the slope varies over all axes, not per channel (one "
        "value per channel is supported)",
    r"test_reduce_mean_": "ReduceMean over non-spatial axes of 3-D tensors (the NPU reduces H "
        "and W of 4-D ones, as a global average pool)",
    r"test_resize_upsample_(scales|sizes)_nearest_axes": "Resize's 'axes' attribute (opset 18)",
    r"test_resize_upsample_sizes_nearest_cpu": "non-integer upsampling factors (7/2, 8/2): "
        "nearest upsampling repeats each pixel an integer number of times",
    r"test_resize_upsample_sizes_nearest_(ceil_half_pixel|floor_align_corners|"
    r"round_prefer_ceil_asymmetric)": "these coordinate and rounding modes at these sizes do "
        "not repeat each pixel an integer number of times",
    r"test_resize_upsample_sizes_nearest_not_(larger|smaller)": "Resize's 'axes' attribute "
        "(opset 18) with keep_aspect_ratio_policy",
    r"test_(shape|size)_": "int64 outputs: a shape computed at compile time is a constant, not an "
        "NPU output",
    r"test_constant_cpu|test_constantofshape": "the graph output is a constant (folded at "
        "import); the NPU computes nothing for it",
    r"test_split_to_sequence": "SplitToSequence (sequence outputs) is not imported",
    r"test_split_zero_size_splits": "a zero-sized output of a dynamic 1-D input",
    r"test_slice_neg_steps": "slices with step != 1",
    r"test_slice_start_out_of_bounds": "an empty (zero-sized) output",
    r"test_cast_FLOAT_to_FLOAT16": "a float16 graph output; the host returns float32",
    r"test_maxpool_2d_uint8": "uint8 tensors; the fp16 Target holds fp16 data",
    r"test_batchnorm_e.*training": "training-mode batch norm (outputs running statistics)",
    r"test_reshape_allowzero": "its input has a dynamic (zero-sized) dimension",
    r"test_gemm_default_matrix_bias":
        "a bias that is not one value per output feature becomes a broadcast add of a "
        "constant, which has no NPU instruction",
}
EXCLUDE = {k: v for k, v in EXCLUDE.items() if v}


class NpuRep(onnx.backend.base.BackendRep):
    def __init__(self, model: onnx.ModelProto):
        self.model = model

    def run(self, inputs, **kwargs):
        from compiler.backends import build
        from npusim.flow import execute
        graph = self.model.graph
        init = {i.name for i in graph.initializer}
        names = [i.name for i in graph.input if i.name not in init]
        feeds = dict(zip(names, inputs))
        weights = {n.input[k] for n in graph.node for k in WEIGHTS.get(n.op_type, ())
                   if k < len(n.input) and n.input[k] in feeds}
        model = onnx.ModelProto()
        model.CopyFrom(self.model)
        for name in weights:
            model.graph.initializer.append(numpy_helper.from_array(np.asarray(feeds[name]), name))
        keep = [i for i in model.graph.input if i.name not in weights]
        del model.graph.input[:]
        model.graph.input.extend(keep)
        compiled = build(model, TARGET)
        dev = {e.name: np.asarray(feeds[e.model_name], np.float16)
               for e in compiled.artifact.inputs}
        _, out = execute(compiled.artifact, dev)
        by_model = {}
        for e in compiled.artifact.outputs:
            y = out[e.name].astype(np.float32)
            for kind, arg in e.post:
                from compiler.ops.elementwise import softmax
                y = softmax(y, arg)
            by_model[e.model_name] = y
        return [by_model[o.name] for o in graph.output]


class NpuOnnxBackend(onnx.backend.base.Backend):
    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        return NpuRep(model)

    @classmethod
    def supports_device(cls, device):
        return device == "CPU"


TOLERANCE = {"rtol": 2e-3, "atol": 2e-3}


def _names() -> list:
    from onnx.backend.test.loader import load_model_tests
    return [t.name for kind in ("node", "pytorch-converted", "pytorch-operator")
            for t in load_model_tests(kind=kind)]


backend_test = onnx.backend.test.BackendTest(NpuOnnxBackend, __name__,
                                             test_kwargs={n: TOLERANCE for n in _names()})
for pattern in INCLUDE:
    backend_test.include(pattern)
for pattern in EXCLUDE:
    backend_test.exclude(pattern)
cases = backend_test.test_cases
for case in cases.values():  # drop the thousands of ops we do not lower (not even as skips)
    for name in [n for n in vars(case) if n.startswith("test_")]:
        if not any(re.search(p, name) for p in INCLUDE) or name.endswith("_cuda"):
            delattr(case, name)
del case  # (the loop variable is a test class too: it would be collected twice)
globals().update(cases)


def test_every_exclusion_names_a_reason_and_matches_a_case():
    """An exclusion that no longer matches any case (renamed upstream, or a pattern typo)
    would silently stop counting; each one also says why."""
    for pattern, reason in EXCLUDE.items():
        assert len(reason) > 20, pattern
        assert any(re.search(pattern, n + "_cpu") for n in _names()
                   if any(re.search(p, n) for p in INCLUDE)), pattern


def test_docs_count_the_cases_that_run():
    """docs/onnx.md and the README quote the number of cases that pass: every included case
    that no exclusion names runs above and must pass, so that number is this count."""
    from compiler.frontend.onnx_docs import NODE_TESTS_ONNX, NODE_TESTS_PASSING
    if not onnx.__version__.startswith(NODE_TESTS_ONNX + "."):
        import pytest
        pytest.skip(f"counted on onnx {NODE_TESTS_ONNX}; this is {onnx.__version__}")
    run = [n for n in (m + "_cpu" for m in _names())
           if any(re.search(p, n) for p in INCLUDE) and not any(re.search(p, n) for p in EXCLUDE)]
    assert len(run) == NODE_TESTS_PASSING, \
        f"{len(run)} cases run: set NODE_TESTS_PASSING and regenerate docs/onnx.md"
