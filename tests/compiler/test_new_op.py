"""What adding an operator touches: a test-only op, `test.copy`, defined here in the four
places docs/compiler.md names - its definition (reference + quantization rule), its lowering,
its NPU generator and its C-like kernel - runs end to end, int8 on the NPU model (bit-exact
against the integer reference) and in C (bit-exact), with no other file edited."""

from dataclasses import dataclass

import numpy as np
import pytest

from compiler import build_quantized
from compiler.backends import build
from compiler.backends.clike import registry as clike_registry
from compiler.backends.clike.kernel import MapKernel
from compiler.backends.npu import generators
from compiler.frontend import GraphBuilder
from compiler.lower.eltwise import EltSchedule
from compiler.ops import OpDef, register_hook, register_op
from compiler.ops import registry as op_registry

from test_codegen_models import check_bit_exact


@dataclass
class PassLayer:
    """y = x through the vector unit, in chunks."""

    name: str
    x: str
    y: str
    numel: int
    schedule: EltSchedule
    kind: str = "test_copy"
    note: str = ""

    @property
    def inputs(self) -> list:
        return [self.x]

    @property
    def macs(self) -> int:
        return 0

    def chunks(self) -> list:
        c = self.schedule.chunk
        return [(i, min(i + c, self.numel)) for i in range(0, self.numel, c)]


def _quantize(qz, n):                     # 1. the op's file: reference, quantization rule
    x, s_in = qz.input(n)
    qz.emit(n, "test.copy", [x], s_in)


def _lower(lw, n):                        # 2. its lowering
    numel = lw.g.type_of(n.output).numel
    chunk = min(numel, lw.hw.buffer_elems["ibuf"] // 2, lw.hw.buffer_elems["obuf"] // 2)
    lw.layers.append(PassLayer(n.name, n.inputs[0], n.output, numel,
                               EltSchedule(chunk, {"cycles": numel})))


def _gen(em, layer, chunks, dram, lowered, key):  # 3. its NPU generator
    eb, c = em.hw.act_bytes, layer.schedule.chunk
    sram = em.sram()
    xa, oa = sram.alloc("ibuf", c, "in"), sram.alloc("obuf", c, "out")
    src, dst = dram.addr(lowered, layer.x), dram.addr(lowered, layer.y)
    for e0, e1 in chunks:
        em.load_dense("in", "ibuf", xa, src + e0 * eb, e1 - e0, comment=layer.name)
        em.vec("vcopy", ("obuf", oa), ("ibuf", xa), e1 - e0)
        em.store_dense("out", "obuf", oa, dst + e0 * eb, e1 - e0)


def _kernel(kb, name, layer):             # 4. its C-like kernel
    dt = kb.dtype(layer.y)
    body = ("const int32_t out = {x0};",) if dt == "i8" else ("float out = {x0};",)
    return MapKernel(name=name, layer=layer.name, args=[kb.act(layer.x, "x0"),
                                                        kb.act(layer.y, "y", True)],
                     flops=0, nbytes=2 * layer.numel, note="copy", numel=layer.numel,
                     inputs=("x0",), output="y", body=body,
                     tmp="i32" if dt == "i8" else "f32")


@pytest.fixture
def test_copy_op():
    register_op(OpDef("test.copy", ("data",), lambda types, a: types[0],
                      lambda arr, a: np.array(arr[0]), traits=("any_dtype",)))
    register_hook("quantize", "test.copy", value=_quantize)
    register_hook("lower", "test.copy", value=_lower)
    generators.register_generator(PassLayer, items=lambda layer, hw: layer.chunks())(_gen)
    clike_registry.register_kernel("test_copy")(_kernel)
    yield
    del op_registry._OPS["test.copy"]
    del generators._GENERATORS[PassLayer]
    del clike_registry._KERNELS["test_copy"]


def _graph():
    r = np.random.default_rng(0)
    b = GraphBuilder("with_copy")
    x = b.input("x", (1, 48))
    h = b.relu(b.dense(x, r.standard_normal((48, 40)).astype(np.float32), name="fc1"))
    y = b.dense(b.op("test.copy", [h], name="cp"), r.standard_normal((40, 10))
                .astype(np.float32), name="fc2")
    return b.build(y)


def test_a_new_op_runs_end_to_end_on_the_npu_and_in_c(test_copy_op):
    module = build_quantized(_graph(), num_calib=2)
    assert "test.copy" in [n.op for n in module.graph.nodes]
    compiled = build(module, "npu-tiny")
    assert any(isinstance(layer, PassLayer) for layer in compiled.lowered.layers)
    assert "vcopy" in compiled.artifact.assembly
    check_bit_exact(compiled)

    import shutil
    if not any(shutil.which(c) for c in ("cc", "gcc", "clang")):
        pytest.skip("no C compiler")
    cpu = build(module, "cpu-host")
    feeds = {"x": np.random.default_rng(1).standard_normal((1, 48)).astype(np.float32)}
    result = cpu.evaluate(feeds, warmup=0, repeats=1)
    assert result["bit_exact"] is True
