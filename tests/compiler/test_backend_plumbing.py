"""Shared backend plumbing: one memory image (from the lowered program's memory plan), one
host-output helper, one float front half, one verification path."""

import numpy as np
import pytest

from compiler import build_quantized
from compiler.backends.clike.memory import Layout
from compiler.backends.npu.dram import DramMap
from compiler.build import float_front_half
from compiler.errors import CompilerError
from compiler.host import HostOutput, apply_post, host_outputs
from compiler.lower.program import lower
from compiler.memory_image import ALIGN, MemoryImage
from compiler.ops.elementwise import softmax
from compiler.verify import float_agreement, float_reference, integer_mismatches
from isa.target import Target


@pytest.fixture(scope="module")
def small_q():
    return build_quantized("mlp", num_calib=2)


def test_host_output_dequantizes_then_runs_the_steps_in_order():
    q = np.array([[[[1, 2]]]], np.int8)  # NHWC (1, 1, 1, 2)
    spec = HostOutput("y_q", "y", 0.5, (("transpose", (0, 3, 1, 2)), ("softmax", 1)))
    got = host_outputs({"y_q": q}, [spec])
    want = softmax(np.array([[[[0.5, 1.0]]]], np.float32).transpose(0, 3, 1, 2), 1)
    np.testing.assert_array_equal(got["y"], want)
    assert got["y"].dtype == np.float32
    floats = host_outputs({"z": np.ones(3, np.float16)}, [HostOutput("z", "out", None)])
    assert floats["out"].dtype == np.float32


def test_host_output_errors_name_the_thing():
    with pytest.raises(CompilerError, match="device output.* y_q missing; got z"):
        host_outputs({"z": np.zeros(1)}, [HostOutput("y_q", "y", 1.0)])
    with pytest.raises(CompilerError, match="unknown host step 'gelu'"):
        apply_post(np.zeros(2, np.float32), (("gelu", None),))


def test_quantized_module_and_clike_use_the_one_host_helper(small_q):
    from compiler.backends.clike import prepare
    from compiler.backends.cpu.renderer import CRenderer
    feeds = {v: np.random.default_rng(1).standard_normal(small_q.float_graph.type_of(v).shape)
             .astype(np.float32) for v in small_q.float_graph.inputs}
    ints = small_q.run_int(small_q.quantize_inputs(feeds))
    want = host_outputs(ints, small_q.host_specs)
    for k, v in small_q.dequantize_outputs(ints).items():
        np.testing.assert_array_equal(v, want[k])
    p = prepare(small_q, "cpu-host", CRenderer(Target.create("cpu-host")))
    assert p.host_specs == small_q.host_specs
    assert integer_mismatches(small_q, small_q.quantize_inputs(feeds), ints) == 0


def test_both_backends_place_the_arena_from_the_memory_plan(small_q):
    target = Target.create("npu-tiny")
    lowered = lower(small_q.graph, target)
    dram = DramMap(target.derived.dram_bytes)
    dram.place_activations(lowered)
    plan = lowered.memory_plan()
    assert lowered.memory_plan() is plan  # computed once, not again per backend
    assert dram.arena_bytes == plan.arena_bytes
    for v in lowered.tensors:
        assert dram.addr(lowered, v) == plan.offset(v)
    assert dram.const_base == -(-plan.arena_bytes // ALIGN) * ALIGN
    a = dram.const("w", np.arange(3, dtype=np.int32))
    assert (a, dram.const("w", np.zeros(1))) == (dram.const_base, dram.const_base)
    assert dram.const("b", np.ones(1, np.int8)) == dram.const_base + ALIGN
    lay = Layout(lowered)  # C-like: inputs held to the end, constants in their own blob
    held = lowered.memory_plan(hold_inputs=True)
    assert lay.arena_bytes == held.arena_bytes and lay.const_base == 0
    assert all(lay.tensor(v) == held.offset(v) for v in lowered.tensors)
    lay.const("w", np.arange(3, dtype=np.int32))
    assert lay.constants().tobytes()[:12] == np.arange(3, dtype="<i4").tobytes()
    assert lay.constants().size == ALIGN


def test_memory_image_capacity_errors_say_what_to_do(small_q):
    lowered = lower(small_q.graph, "npu-tiny")
    with pytest.raises(CompilerError, match="activations need .* use a Target with larger"):
        DramMap(16).place_activations(lowered)
    img = MemoryImage(capacity=lowered.memory_plan().arena_bytes + 64, consts_after_arena=True)
    img.place(lowered, lowered.memory_plan())
    with pytest.raises(CompilerError, match="needs more than .* bytes of DRAM"):
        img.const("big", np.zeros(1024, np.int8))


def test_one_float_front_half_for_fp16_npu_and_clike_float(small_q):
    from compiler.backends import build
    from compiler.backends.clike import prepare
    from compiler.backends.cpu.renderer import CRenderer
    source, g, post = float_front_half("mlp")
    npu = build("mlp", "npu-tiny -dtype=fp16")
    c = prepare("mlp", "cpu-host", CRenderer(Target.create("cpu-host")), dtype="float32")
    ops = [n.op for n in g.nodes]
    assert [n.op for n in npu.graph.nodes] == ops == [n.op for n in c.graph.nodes]
    assert c.post == post
    _, g2, _ = float_front_half(small_q)  # a QuantizedModule: its float model
    assert [n.op for n in g2.nodes] == ops


def test_float_reference_and_agreement(small_q):
    g = small_q.float_graph
    feeds = {v: np.ones(g.type_of(v).shape, np.float32) for v in g.inputs}
    ref, name = float_reference(g, feeds)
    assert name == "numpy float reference"
    same = float_agreement(ref, ref)
    assert same["snr_db"] == float("inf") and same["top1_agree"] == 1.0
    assert same["max_rel_error"] == 0.0


def test_verify_run_checks_an_npu_artifact_with_both_references(small_q):
    from compiler.backends import build
    from compiler.verify import verify_run
    compiled = build(small_q, "npu-tiny")
    g = small_q.float_graph
    feeds = {v: np.random.default_rng(2).standard_normal(g.type_of(v).shape)
             .astype(np.float32) for v in g.inputs}
    dev_in = small_q.quantize_inputs(feeds)
    ints = small_q.run_int(dev_in)  # what a bit-exact device returns
    specs = [HostOutput.of(e) for e in compiled.artifact.outputs]
    assert specs == small_q.host_specs
    out = verify_run(g, specs, feeds, ints, small_q, dev_in, onnxruntime=False)
    assert out["bit_exact"] is True and out["reference"] == "numpy float reference"
    assert out["snr_db"] > 10 and 0 <= out["top1_agree"] <= 1
    wrong = {k: v ^ 1 for k, v in ints.items()}
    assert verify_run(g, specs, feeds, wrong, small_q, dev_in, onnxruntime=False)[
        "bit_exact"] is False
