"""End to end: zoo models and single layers compiled for npu targets, simulated, and compared
bit for bit with the integer reference of the quantized graph."""

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.backends import build
from compiler.backends.npu.codegen import generate
from compiler.lower.program import lower
from compiler.reference import run_int
from isa.asm import assemble
from isa.target import Target
from npusim.cli.run_cmd import device_inputs, execute, random_inputs

from test_lower_tiling import qconv_graph


def check_bit_exact(compiled, seed=0):
    feeds = random_inputs(compiled, seed)
    dev_in = device_inputs(compiled, feeds)
    result, outputs = execute(compiled.artifact, dev_in)
    want = compiled.module.run_int(dev_in)
    for e in compiled.artifact.outputs:
        assert np.array_equal(outputs[e.name], want[e.name]), e.name
    return result


@pytest.mark.parametrize("model,kwargs,target", [
    ("small_cnn", {}, "npu-edge"),
    ("small_cnn", {}, "npu-tiny"),
    ("mlp", {}, "npu-edge"),
    ("mlp", {"activation": "sigmoid"}, "npu-tiny"),
    ("small_cnn", {"batch": 2}, "npu-edge -dma-engines=1"),
    ("small_cnn", {}, "npu-server"),
    ("mobilenetv2", {"resolution": 32}, "npu-edge"),
])
def test_zoo_model_is_bit_exact(model, kwargs, target):
    compiled = build(model, target, num_calib=2, **kwargs)
    result = check_bit_exact(compiled)
    assert result.cycles > 0 and result.macs >= compiled.lowered.macs


def test_resnet18_at_32_is_bit_exact_on_edge(resnet18_q):
    compiled = build(resnet18_q, "npu-edge")
    result = check_bit_exact(compiled)
    # utilization of the array is sane even at 32x32 (tiny spatial maps, fill/drain bound)
    assert 0.03 < result.utilization < 1


def test_resnet18_at_32_is_bit_exact_on_four_cores(resnet18_q):
    compiled = build(resnet18_q, "npu-server")
    assert compiled.artifact.program.num_cores == 4
    assert "gbarrier" in compiled.artifact.assembly
    check_bit_exact(compiled)


def test_resnet50_at_16_is_bit_exact():
    check_bit_exact(build("resnet50", "npu-edge", num_calib=1, resolution=16))


def test_barrier_and_token_sync_give_the_same_bits_and_tokens_are_faster():
    a = build("small_cnn", "npu-edge", sync="tokens", num_calib=2)
    b = build("small_cnn", "npu-edge", sync="barrier", num_calib=2)
    ra, rb = check_bit_exact(a), check_bit_exact(b)
    assert "barrier" in b.artifact.assembly and "barrier" not in a.artifact.assembly
    assert ra.cycles < rb.cycles


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(k=st.sampled_from([1, 3]), stride=st.sampled_from([1, 2]), h=st.integers(3, 12),
       cin=st.sampled_from([3, 16, 20, 48]), cout=st.sampled_from([8, 16, 40]),
       depthwise=st.booleans(), residual=st.booleans(), n=st.sampled_from([1, 2]),
       tag=st.sampled_from(["npu-tiny", "npu-edge", "npu -array=8x8 -ibuf-kb=8 -wbuf-kb=4"]))
def test_single_conv_layers_are_bit_exact(k, stride, h, cin, cout, depthwise, residual, n, tag):
    cout = cin if depthwise else cout
    g = qconv_graph(n, h, h + 1, cin, cout, k, stride, k // 2, cin if depthwise else 1,
                    residual, seed=h)
    target = Target.create(tag)
    lowered = lower(g, target)
    res = generate(lowered)
    prog = assemble(res.text)
    r = np.random.default_rng(cin)
    feeds = {v: r.integers(-128, 128, g.type_of(v).shape).astype(np.int8) for v in g.inputs}

    def entry(v):
        return SimpleNamespace(name=v, dram=res.dram.addr(lowered, v), shape=g.type_of(v).shape,
                               dtype="int8")

    def image(dram):
        img = np.frombuffer(res.dram.image(), np.uint8)
        dram.bytes[res.dram.const_base:res.dram.const_base + img.size] = img

    art = SimpleNamespace(program=prog, target=tag, inputs=[entry(v) for v in g.inputs],
                          outputs=[entry("y")], dram_image=image)
    _, out = execute(art, feeds)
    assert np.array_equal(out["y"], run_int(g, feeds)["y"])
