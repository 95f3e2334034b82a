"""cpu backend: generated C, built by the system compiler and run through ctypes, is bit-exact
against the integer reference on every zoo model and on every layer kind; float32 within
FLOAT_TOLERANCE; every loop order of the tile program; the C integer helpers against
isa.semantics; saved artifacts; errors."""

import ctypes
import dataclasses
import functools
import json
import shutil
import subprocess

import numpy as np
import pytest

from compiler import build_quantized
from compiler.backends import build
from compiler.backends.cpu import CpuBackend
from compiler.backends.clike import FLOAT_TOLERANCE, emit, prepare
from compiler.backends.clike.helpers import helpers
from compiler.errors import CompilerError
from compiler.frontend import GraphBuilder
from isa import semantics as sem
from isa.target import Target

pytestmark = pytest.mark.skipif(not any(shutil.which(c) for c in ("cc", "gcc", "clang")),
                                reason="no C compiler")
CPU = "cpu-host"


def feeds_for(graph, seed=3):
    r = np.random.default_rng(seed)
    return {v: r.standard_normal(graph.type_of(v).shape).astype(np.float32)
            for v in graph.inputs}


def run_bit_exact(mod) -> tuple:
    """Run a cpu build on seeded inputs and require every output equal to the integer
    reference's; -> (prepared, feeds, device inputs, outputs) for the caller's own checks."""
    p = mod.prepared
    feeds = feeds_for(p.float_graph)
    dev_in = p.device_inputs(feeds)
    got = mod.run(dev_in)
    want = p.module.run_int(dev_in)
    for t in p.outputs:
        np.testing.assert_array_equal(got[t.name], want[t.name])
    return p, feeds, dev_in, got


def misc_graph(with_lut=True):
    """Every non-conv layer kind: relu, add, sigmoid (LUT), multiply, avg/max pool, clip,
    concat, a depthwise conv with asymmetric pads and a grouped conv (2 channels a group)."""
    r = np.random.default_rng(5)
    b = GraphBuilder("misc")
    x, z = b.input("x", (1, 8, 6, 6)), b.input("z", (1, 8, 6, 6))
    c = b.conv2d(x, r.standard_normal((12, 8, 3, 3)).astype(np.float32) * 0.3, pad=1, name="c")
    d = b.conv2d(z, r.standard_normal((12, 8, 3, 3)).astype(np.float32) * 0.3, pad=1, name="d")
    s = b.add(b.relu(c), b.relu(d))
    m = b.multiply(s, b.sigmoid(d) if with_lut else d)
    p = b.avg_pool2d(m, 3, stride=2, pad=1, count_include_pad=True)
    q = b.max_pool2d(b.clip(m, -1.0, 2.0), 2, stride=2)
    cat = b.concat([p, q], axis=1)
    g = b.conv2d(cat, r.standard_normal((24, 1, 3, 3)).astype(np.float32) * 0.5,
                 pad=(1, 0, 2, 1), groups=24, name="dw")
    g2 = b.conv2d(g, r.standard_normal((8, 6, 1, 1)).astype(np.float32) * 0.5, groups=4,
                  name="grp")
    return b.build([g2])


ZOO = {"mobilenetv2": {"resolution": 32}, "resnet50": {"resolution": 16}, "small_cnn": {},
       "mlp": {}}  # resnet18 (32x32) comes from conftest's resnet18_q


@functools.lru_cache(maxsize=None)
def quantized(name: str):
    """One quantization per zoo model and process, shared with test_gpu_backend."""
    return build_quantized(name, num_calib=2, **ZOO[name])


@pytest.fixture(scope="session")
def cpu_zoo(resnet18_q):
    """Every zoo model compiled once (int8), through the registry."""
    models = {"resnet18": resnet18_q, **{name: quantized(name) for name in ZOO}}
    return {name: build(q, CPU) for name, q in models.items()}


TRANSFORMERS = {"bert-tiny", "vit-tiny", "gpt2"}  # NPU only: no C-like row/matmul kernels


def test_zoo_is_covered():
    from compiler import zoo
    assert set(zoo.list()) == set(ZOO) | {"resnet18"} | TRANSFORMERS


def test_transformers_say_which_c_kernel_is_missing():
    from compiler.errors import CompilerError
    with pytest.raises(CompilerError, match="no C-like kernel for layer kind 'layernorm'"):
        build(build_quantized("bert-tiny", num_calib=1, seq=4, hidden=8, heads=2, layers=1),
              CPU)


@pytest.mark.parametrize("name", ["resnet18", "mobilenetv2", "resnet50", "small_cnn", "mlp"])
def test_zoo_model_bit_exact(cpu_zoo, name):
    mod = cpu_zoo[name]
    p, feeds, dev_in, got = run_bit_exact(mod)
    assert p.check(feeds, dev_in, got) == {"verified": True, "bit_exact": True, "mismatches": 0,
                                           "reference": "integer reference "
                                                        "(QuantizedModule.run_int)"}
    # a second run on the same arena (how the benchmark repeats) gives the same answer
    arena = mod.program.new_arena()
    mod.program.write_inputs(arena, dev_in)
    mod._call(arena)
    first = mod.program.read_outputs(arena)
    mod._call(arena)
    for t in p.outputs:
        np.testing.assert_array_equal(mod.program.read_outputs(arena)[t.name], first[t.name])


def test_every_layer_kind_bit_exact():
    graph = misc_graph()
    mod = build(graph, CPU)
    kinds = {layer.kind for layer in mod.prepared.lowered.layers}
    assert kinds == {"conv", "eltwise", "pool", "concat"}
    feeds = feeds_for(graph)
    dev_in = mod.prepared.device_inputs(feeds)
    assert mod.prepared.check(feeds, dev_in, mod.run(dev_in))["bit_exact"] is True


@pytest.mark.parametrize("model,kw", [("small_cnn", {}), ("mlp", {}), ("misc", {})])
def test_float32_within_tolerance(model, kw):
    graph = misc_graph(with_lut=False) if model == "misc" else model
    mod = build(graph, CPU, dtype="float32", **kw)
    p = mod.prepared
    assert p.module is None and {t.dtype for t in p.inputs} == {"float32"}
    if model == "small_cnn":  # the NCHW -> NHWC layout change is a copy kernel
        assert any(layer.kind == "copy" for layer in p.lowered.layers)
    feeds = feeds_for(p.float_graph)
    checks = p.check(feeds, p.device_inputs(feeds), mod.run(p.device_inputs(feeds)))
    assert checks["verified"] and checks["max_rel_error"] <= FLOAT_TOLERANCE


def _conv_graph(cin, cout, k, stride, pad, groups=1, dilation=1, hw=(9, 7)):
    r = np.random.default_rng(cin * cout + k)
    b = GraphBuilder("conv")
    x = b.input("x", (1, cin, *hw))
    w = r.standard_normal((cout, cin // groups, k, k)).astype(np.float32) * 0.3
    y = b.relu(b.conv2d(x, w, b=r.standard_normal(cout).astype(np.float32), stride=stride,
                        pad=pad, groups=groups, dilation=dilation, name="c"))
    res = b.conv2d(x, r.standard_normal((cout, cin, 1, 1)).astype(np.float32), stride=stride,
                   name="short") if (stride, k, pad, dilation) == (1, 3, 1, 1) else None
    return b.build([y + res if res is not None else y])


CASES = [dict(cin=40, cout=24, k=3, stride=1, pad=1),           # residual add, partial blocks
         dict(cin=40, cout=36, k=3, stride=2, pad=(1, 0, 2, 1), dilation=2),
         dict(cin=12, cout=12, k=3, stride=1, pad=1, groups=3)]


# the lowering never gives grouped convs the sqj order (every block has its own inputs)
@pytest.mark.parametrize("order,case", [(o, c) for c in CASES for o in ("sjq", "jsq", "sqj")
                                        if not (o == "sqj" and c.get("groups", 1) > 1)])
def test_tile_program_orders_and_partial_tiles(order, case):
    """Force each loop order, row tiles that do not divide the output and slices that do
    not divide the input channels; the result must not change by a bit."""
    from compiler.backends.cpu import toolchain
    from compiler.backends.cpu.module import CpuModule
    from compiler.backends.cpu.renderer import CRenderer
    graph = _conv_graph(**case)
    renderer = CRenderer(Target.create(CPU))
    p = prepare(graph, Target.create(CPU), renderer, num_calib=2)
    for layer in p.lowered.layers:
        if layer.kind == "conv" and layer.geom.groups == 1:
            g = layer.geom
            layer.schedule = dataclasses.replace(layer.schedule, order=order, rows=2,
                                                 cin_slice=min(16, g.cin))
        elif layer.kind == "conv":
            layer.schedule = dataclasses.replace(layer.schedule, order=order, rows=2)
    prog = emit(p, renderer)
    assert "rows=2" in prog.kernels[0].note and prog.kernels[0].tile.order == order
    lib, _, cmd = toolchain.build_library(prog.source, renderer.target)
    mod = CpuModule(prog, renderer.target, lib, cmd, 0.0)
    feeds = feeds_for(graph)
    dev_in = p.device_inputs(feeds)
    assert p.check(feeds, dev_in, mod.run(dev_in))["bit_exact"] is True


def test_single_slice_1x1_convs_skip_the_accumulator_tile(cpu_zoo):
    """Their epilogue reads the register sums directly; the bit-exact zoo runs above cover
    both forms (mobilenetv2 has each)."""
    prog = cpu_zoo["mobilenetv2"].program
    forms = {}
    for k in prog.kernels:
        if k.note.startswith("conv") and k.geom.groups == 1:
            direct = (k.geom.kh, k.geom.kw) == (1, 1) and k.tile.cin_slice >= k.geom.cin
            text = "\n".join(prog.renderer.render_kernel(k))
            assert ("acc[" not in text) == direct, k.name
            forms[direct] = forms.get(direct, 0) + 1
    assert forms[True] > 0 and forms[False] > 0


def test_openmp_target_bit_exact(cpu_zoo):
    target = "cpu-host -openmp=1 -cores=2"
    mod = build(cpu_zoo["small_cnn"].prepared.module, target)
    assert "-fopenmp" in mod.command and "#pragma omp parallel for collapse(2)" in mod.source
    p = mod.prepared
    feeds = feeds_for(p.float_graph)
    dev_in = p.device_inputs(feeds)
    assert p.check(feeds, dev_in, mod.run(dev_in))["bit_exact"] is True


def test_vector_width_sizes_channel_blocks(cpu_zoo):
    """int8 channel blocks are one vector of int8 weights: 32 lanes at 256 bits, 64 at 512."""
    from compiler.backends.cpu.renderer import CRenderer
    q = cpu_zoo["resnet18"].prepared.module
    for bits in (256, 512):
        t = Target.create(f"cpu-host -vector-bits={bits}")
        p = prepare(q, t, CRenderer(t))
        convs = [k for k in emit(p, CRenderer(t)).kernels if k.note.startswith("conv")]
        assert [k.tile.cb for k in convs] == [min(bits // 8, k.geom.cout) for k in convs]
        wide = [k for k in convs if k.geom.cout >= bits // 8]
        assert wide and f"co < {bits // 8}" in CRenderer(t).render(wide, "x")


def test_helpers_match_isa_semantics(tmp_path):
    """The C integer rules against isa.semantics on edge and random values."""
    from compiler.backends.cpu import toolchain
    r = np.random.default_rng(11)
    n = 4000
    acc = np.concatenate([[2**31 - 1, -2**31, 0, -1, 1, 12345, -12345],
                          r.integers(-2**31, 2**31, n - 7)]).astype(np.int32)
    mult = np.concatenate([[2**31 - 1, 2**30, 1, 0, -2**31 + 1, 7, 2**30 + 1],
                           r.integers(-2**31 + 1, 2**31, n - 7)]).astype(np.int32)
    shift = np.concatenate([[63, 0, 1, 31, 62, 40, 2], r.integers(0, 64, n - 7)]).astype(np.int32)
    a8, b8 = (r.integers(-128, 128, n).astype(np.int32) for _ in range(2))
    src = "#include <stdint.h>\n" + helpers("static inline") + """
void check(int n, const int32_t *acc, const int32_t *mult, const int32_t *shift,
           const int32_t *a, const int32_t *b, int32_t *rq, int32_t *rqr, int32_t *add,
           int32_t *clip) {
  for (int i = 0; i < n; i++) {
    rq[i] = npu_requant(acc[i], mult[i], shift[i], 3, 0);
    rqr[i] = npu_requant(acc[i], mult[i], shift[i], 3, 1);
    add[i] = npu_add(a[i], b[i], mult[i], acc[i], shift[i] % 32);
    clip[i] = npu_clip8(acc[i], a[i], b[i]);
  }
}
"""
    (tmp_path / "h.c").write_text(src)
    lib = tmp_path / "h.so"
    subprocess.run([toolchain.find_cc(), "-O2", "-shared", "-fPIC", "-o", str(lib),
                    str(tmp_path / "h.c")], check=True)
    outs = [np.zeros(n, np.int32) for _ in range(4)]
    ptr = lambda a: a.ctypes.data_as(ctypes.c_void_p)  # noqa: E731
    ctypes.CDLL(str(lib)).check(n, *(ptr(a) for a in (acc, mult, shift, a8, b8, *outs)))
    np.testing.assert_array_equal(outs[0], sem.requantize(acc, mult, shift, 3, False, n))
    np.testing.assert_array_equal(outs[1], sem.requantize(acc, mult, shift, 3, True, n))
    t = sem.elementwise("vmul", a8, mult, np.int32)
    u = sem.elementwise("vmul", b8, acc, np.int32)
    s = sem.elementwise("vadd", t, u, np.int32)
    want_add = np.array([sem.shift_right(s[i], shift[i] % 32, np.int8) for i in range(n)])
    np.testing.assert_array_equal(outs[2], want_add)
    want_clip = np.array([sem.clip(acc[i:i + 1], a8[i], b8[i], np.int8)[0] for i in range(n)])
    np.testing.assert_array_equal(outs[3], want_clip)


def test_evaluate_and_benchmark(cpu_zoo):
    mod = cpu_zoo["mlp"]
    feeds = feeds_for(mod.prepared.float_graph)
    r = mod.evaluate(feeds, warmup=1, repeats=3)
    assert r["measured"] is True and r["verified"] is True and r["bit_exact"] is True
    assert r["repeats"] == 3 and 0 < r["min_ms"] <= r["latency_ms"]
    assert r["gmacs"] == pytest.approx(mod.prepared.lowered.macs / 1e9)


def test_save_writes_a_loadable_library(cpu_zoo, tmp_path):
    mod = cpu_zoo["small_cnn"]
    out = mod.save(tmp_path / "art")
    assert sorted(f.name for f in out.iterdir()) == ["constants.bin", "libmodel.so",
                                                     "manifest.json", "model.c"]
    man = json.loads((out / "manifest.json").read_text())
    assert man["backend"] == "cpu" and man["dtype"] == "int8"
    assert "-march=native" in man["command"] and len(man["kernels"]) == len(mod.program.kernels)
    # drive the saved library from the manifest alone
    p = mod.prepared
    feeds = feeds_for(p.float_graph)
    dev_in = p.device_inputs(feeds)
    arena = np.zeros(man["arena_bytes"] + 64, np.uint8)
    for t in man["inputs"]:
        data = dev_in[t["name"]].astype(t["dtype"]).view(np.uint8).ravel()
        arena[t["offset"]:t["offset"] + data.size] = data
    consts = np.fromfile(out / "constants.bin", np.uint8)
    dll = ctypes.CDLL(str(out / "libmodel.so"))
    dll.npu_model_run(ctypes.c_void_p(arena.ctypes.data), ctypes.c_void_p(consts.ctypes.data))
    (t,) = man["outputs"]
    n = int(np.prod(t["shape"]))
    got = arena[t["offset"]:t["offset"] + n].view(np.int8).reshape(t["shape"])
    np.testing.assert_array_equal(got, p.module.run_int(dev_in)[t["name"]])


def test_errors_name_the_problem(cpu_zoo):
    q = cpu_zoo["mlp"].prepared.module
    with pytest.raises(CompilerError, match="cpu backend compiles for cpu targets, got npu"):
        CpuBackend().build(q, "npu-edge")
    with pytest.raises(CompilerError, match="dtype 'int4'.*int8, float32"):
        build(q, CPU, dtype="int4")
    with pytest.raises(CompilerError, match="no C compiler found.*no-such-cc"):
        build(q, CPU, cc="no-such-cc")
