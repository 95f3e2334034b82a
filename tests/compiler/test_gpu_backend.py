"""gpu backend: every emitted CUDA kernel compiles with nvcc -ptx; the kernels, run on the CPU
by the emulator (and on a GPU where one exists), are bit-exact against the integer reference;
grid/block/shared-memory choices follow the data; the roofline estimate and its label."""

import os
import re
import shutil

import numpy as np
import pytest

from compiler.backends import build, roofline
from compiler.backends.clike import FLOAT_TOLERANCE
from compiler.backends.gpu import GpuBackend
from compiler.errors import CompilerError
from isa.target import Target
from test_cpu_backend import ZOO, misc_graph, quantized

GPU = "gpu-a100"
THREADS = 256  # compiler.backends.gpu.renderer.THREADS, checked below


def require_nvcc() -> None:
    from compiler.backends.gpu import toolchain
    if toolchain.find_nvcc() is None:
        pytest.skip("nvcc not installed")
needs_cxx = pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")


def feeds_for(graph, seed=4):
    r = np.random.default_rng(seed)
    return {v: r.standard_normal(graph.type_of(v).shape).astype(np.float32)
            for v in graph.inputs}


@pytest.fixture(scope="session")
def gpu_zoo(resnet18_q):
    models = {"resnet18": resnet18_q, **{name: quantized(name) for name in ZOO}}
    return {name: build(q, GPU) for name, q in models.items()}


@pytest.mark.parametrize("name", ["resnet18", "mobilenetv2", "resnet50", "small_cnn", "mlp"])
def test_every_kernel_compiles_with_nvcc(gpu_zoo, name):
    require_nvcc()
    mod = gpu_zoo[name]
    ptx = mod.ptx().read_text()
    entries = set(re.findall(r"\.entry\s+(\w+)", ptx))
    assert entries == {k.name for k in mod.program.kernels}
    assert f".target {mod.target.arch}" in ptx


def test_each_arch_keeps_its_own_ptx_in_the_shared_cache(gpu_zoo):
    """The gpu tags emit the same CUDA, hence share a cache directory: an h100 build must not
    replace the a100 PTX another worker is about to read."""
    require_nvcc()
    a100 = gpu_zoo["mlp"]
    h100 = build(a100.prepared.module, "gpu-h100")
    assert h100.workdir == a100.workdir and h100.target.arch != a100.target.arch
    pa, ph = a100.ptx(), h100.ptx()
    assert pa != ph and ".target sm_80" in pa.read_text() and ".target sm_90" in ph.read_text()
    assert not list(a100.workdir.glob(f"*.{os.getpid()}.*"))  # private names renamed away


@needs_cxx
# resnet50's kernels are of resnet18's forms; emulating them too would double this file's time
@pytest.mark.parametrize("name", ["resnet18", "mobilenetv2", "small_cnn", "mlp"])
def test_kernels_bit_exact_under_emulation(gpu_zoo, name):
    from compiler.backends.gpu.emulate import emulate
    mod = gpu_zoo[name]
    p = mod.prepared
    feeds = feeds_for(p.float_graph)
    dev_in = p.device_inputs(feeds)
    got = emulate(mod).run(dev_in)
    want = p.module.run_int(dev_in)
    for t in p.outputs:
        np.testing.assert_array_equal(got[t.name], want[t.name])


@needs_cxx
@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_every_layer_kind_under_emulation(dtype):
    from compiler.backends.gpu.emulate import emulate
    graph = misc_graph(with_lut=dtype == "int8")
    mod = build(graph, GPU, dtype=dtype)
    p = mod.prepared
    feeds = feeds_for(graph)
    dev_in = p.device_inputs(feeds)
    checks = p.check(feeds, dev_in, emulate(mod).run(dev_in))
    assert checks["verified"] is True
    if dtype == "float32":
        assert checks["max_rel_error"] <= FLOAT_TOLERANCE
    src = mod.source
    # every binding the renderer has: 4-wide maps, thread-per-point spaces, smem GEMM tiles,
    # thread-per-output direct convs (grouped) and texture-path loads
    assert "((const char4 *)x0)[t]" in src if dtype == "int8" else "float4" in src
    assert "__shared__" in src and "__syncthreads();" in src and "__ldg(&" in src


def test_launch_configuration_follows_the_data(gpu_zoo):
    from compiler.backends.gpu import renderer
    assert renderer.THREADS == THREADS
    mod = gpu_zoo["resnet18"]
    launches = mod.program.renderer.launches
    for k in mod.program.kernels:
        ln = launches[k.name]
        assert ln.threads == THREADS
        g = getattr(k, "geom", None)
        m = g.n * g.oh * g.ow if g else 0
        if g and g.groups == 1 and m >= 16:   # shared-memory tiles
            bm, bn, _ = mod.program.renderer.tile_shape(m, g.cout, g.kh * g.kw * g.cin, 4)
            assert ln.grid == (-(-m // bm), -(-g.cout // bn))
            assert 0 < ln.smem_bytes <= mod.target.smem_kb * 1024
        elif g:                                # a thread per output: 1x1 maps, dense layers
            assert ln.grid == (-(-m * g.cout // THREADS),) and ln.smem_bytes == 0
        elif hasattr(k, "points"):
            assert ln.grid == (-(-k.points // THREADS),)
    stem = next(k for k in mod.program.kernels if k.layer.startswith("stem"))
    assert stem.note.startswith("conv 32x32x3 -> 16x16x64")
    assert launches[stem.name].grid == (4, 1)   # 256 pixels in 64-pixel tiles, 64 channels


def test_shared_memory_limit_is_a_target_attribute(gpu_zoo):
    q = gpu_zoo["small_cnn"].prepared.module
    small = build(q, "gpu-a100 -smem-kb=4")
    assert "__shared__ int32_t As[8][65]" in small.source      # BK halved twice to fit 4 KiB
    with pytest.raises(CompilerError, match="smem-kb=1"):
        build(q, "gpu-a100 -smem-kb=1")


def test_roofline_estimate_per_kernel():
    t = Target.create(GPU)

    class K:
        name, layer = "k0", "conv"
        flops, nbytes = 4_000_000_000, 3_000_000
    r = roofline.kernel_estimate(K, t)
    compute = K.flops / (t.peak_tflops * 1e12)
    memory = K.nbytes / (t.mem_bw_gbs * 1e9)
    assert r["bound"] == "compute" and r["compute_us"] == pytest.approx(compute * 1e6)
    assert r["time_us"] == pytest.approx((compute + t.launch_us * 1e-6) * 1e6)
    K.flops = 1000  # a memory-bound kernel
    assert roofline.kernel_estimate(K, t)["time_us"] == pytest.approx(
        (memory + t.launch_us * 1e-6) * 1e6)


def test_without_a_gpu_the_figure_is_estimated(gpu_zoo, monkeypatch):
    from compiler.backends.gpu import toolchain
    monkeypatch.setattr(toolchain, "device_count", lambda: 0)
    mod = gpu_zoo["small_cnn"]
    r = mod.evaluate(feeds_for(mod.prepared.float_graph))
    assert r["measured"] is False and r["estimated"] is True and r["verified"] is None
    assert "estimated" in r["note"]
    assert r["latency_ms"] == pytest.approx(sum(
        roofline.kernel_estimate(k, mod.target)["time_us"] for k in mod.program.kernels) / 1e3)
    faster = build(mod.prepared.module, "gpu-h100")
    assert faster.evaluate(feeds_for(mod.prepared.float_graph))["latency_ms"] < r["latency_ms"]


def test_on_a_gpu_the_figure_is_measured_and_verified(gpu_zoo):
    from compiler.backends.gpu.module import GpuModule
    if not GpuModule.can_run():
        pytest.skip("no CUDA device on this host")
    mod = gpu_zoo["resnet18"]
    r = mod.evaluate(feeds_for(mod.prepared.float_graph), warmup=1, repeats=3)
    assert r["measured"] is True and r["verified"] is True and r["bit_exact"] is True


def test_save_and_errors(gpu_zoo, tmp_path):
    mod = gpu_zoo["mlp"]
    out = mod.save(tmp_path / "cu")
    assert sorted(f.name for f in out.iterdir()) == ["constants.bin", "manifest.json",
                                                     "model.cu"]
    assert 'extern "C" int npu_gpu_bench(' in (out / "model.cu").read_text()
    with pytest.raises(CompilerError, match="gpu backend compiles for gpu targets, got cpu"):
        GpuBackend().build(mod.prepared.module, "cpu-host")
