"""lower() for every Target kind (the element types come from the Hw, not an npu attribute) and
its one switch for the NPU-only rewrites (strided-load subsample, space-to-depth, swapped
roles, folded columns), which the cpu/gpu backends turn off."""

import dataclasses

import numpy as np
import pytest

from compiler import build_quantized
from compiler.backends.clike import emit, prepare
from compiler.backends.cpu.renderer import CRenderer
from compiler.backends.gpu.renderer import CudaRenderer
from compiler.errors import CompilerError
from compiler.frontend import GraphBuilder
from compiler.ir.graph import Graph, Node
from compiler.ir.types import TensorType
from compiler.lower.program import NPU_REWRITES, lower
from compiler.passes.infer import infer_types
from isa.target import Target
from test_codegen_models import run_and_compare
from test_lower_tiling import qconv_graph


def relu_graph():
    g = Graph("relu")
    g.add_input("x", TensorType((1, 4, 4, 8), "float32"))
    g.add_node(Node("nn.relu", ["x"], "y", {}))
    g.outputs = ["y"]
    return infer_types(g)


@pytest.mark.parametrize("tag,renderer", [("cpu-host", CRenderer), ("gpu-a100", CudaRenderer)])
def test_lower_takes_any_kind_with_its_hw(tag, renderer):
    target = Target.create(tag)
    for dtype, graph in (("int8", qconv_graph(1, 8, 8, 8, 8, 3, 1, 1)),
                         ("float32", relu_graph())):
        prog = lower(graph, target, renderer(target).hw(dtype), npu_rewrites=False)
        assert prog.target.kind == target.kind and str(prog.target) == str(target)
        assert {t.dtype for t in prog.tensors.values()} == {dtype}
    with pytest.raises(CompilerError, match=f"for a {target.kind} target pass hw=Hw"):
        lower(relu_graph(), target)


def test_fp16_dram_types_follow_the_npu_targets_dtype():
    g = relu_graph()
    assert {t.dtype for t in lower(g, "npu-edge").tensors.values()} == {"float32"}
    fp16 = Target.create("npu-edge").with_attrs(dtype="fp16")
    assert {t.dtype for t in lower(g, fp16).tensors.values()} == {"float16"}


def test_strided_1x1_subsample_has_a_switch_and_pays_on_the_npu():
    g = qconv_graph(1, 16, 16, 32, 64, 1, 2, 0)
    sub, fast = run_and_compare(g, "npu-edge")
    (layer,) = sub.layers
    assert layer.sub == (16, 16, 2, 2) and (layer.geom.h, layer.geom.sh) == (8, 1)
    for off in ({"npu_rewrites": False}, {"subsample": False}):
        plain, slow = run_and_compare(g, "npu-edge", **off)  # bit-exact without it too
        (layer,) = plain.layers
        assert layer.sub is None and (layer.geom.h, layer.geom.sh) == (16, 2)
        assert fast.cycles < slow.cycles


def test_one_switch_turns_off_every_npu_rewrite():
    stem = qconv_graph(1, 64, 64, 3, 16, 7, 2, 3)  # chooses fold + space-to-depth on the NPU
    ONE_BANK = "npu-edge -weight-buffers=1"  # (two banks take space-to-depth alone here)
    kinds = [type(x).__name__ for x in lower(stem, ONE_BANK).layers]
    assert kinds == ["FoldCopyLayer", "ConvLayer"]
    off = lower(stem, ONE_BANK, npu_rewrites=False)
    assert [type(x).__name__ for x in off.layers] == ["ConvLayer"]
    assert set(NPU_REWRITES) == {"subsample", "s2d", "swap", "fold", "rowdw", "stack",
                                 "im2col", "fuse", "dwgroup"}
    # npu_rewrites=False wins over a flag left on
    assert lower(stem, ONE_BANK, npu_rewrites=False, fold=True).layers[0].geom.kh == 7


def test_cpu_backend_lowers_without_them_and_refuses_a_subsampled_layer():
    r = np.random.default_rng(0)
    b = GraphBuilder("down")
    x = b.input("x", (1, 8, 8, 8))
    y = b.conv2d(x, r.standard_normal((16, 8, 1, 1)).astype(np.float32), stride=2, name="ds")
    q = build_quantized(b.build([y]), num_calib=1)
    target = Target.create("cpu-host")
    renderer = CRenderer(target)
    prepared = prepare(q, target, renderer)
    (layer,) = prepared.lowered.layers
    assert layer.sub is None and layer.geom.sh == 2 and prepared.lowered.target.kind == "cpu"
    npu_style = lower(q.graph, target, renderer.hw("int8"))  # rewrites on: subsampled
    assert npu_style.layers[0].sub == (8, 8, 2, 2)
    with pytest.raises(CompilerError, match="'ds' was lowered with the NPU's strided-load"):
        emit(dataclasses.replace(prepared, lowered=npu_style), CRenderer(target))
