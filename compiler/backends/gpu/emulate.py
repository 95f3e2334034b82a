"""Run the emitted CUDA kernels on the CPU, to check them where no GPU exists: the kernel text
is the GpuModule's, compiled as C++ with a shim. Blocks run one at a time on THREADS real
threads: threadIdx/blockIdx are thread-local, __shared__ arrays are function statics (one
block's shared memory), __syncthreads is a barrier. Slow; for tests on small models."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from ...errors import CompilerError
from ..clike.renderer import block
from ..cpu.toolchain import build_shared
from .renderer import CudaRenderer

SHIM = """\
struct npu_uint3 { unsigned x, y, z; };
struct dim3 { unsigned x, y, z; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1)
  : x(a), y(b), z(c) {} };
static thread_local npu_uint3 threadIdx, blockIdx;
static thread_local dim3 blockDim, gridDim;
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __launch_bounds__(n)
#define __shared__ static
template <class T> static inline T __ldg(const T *p) { return *p; }
struct char4 { signed char x, y, z, w; };
struct float4 { float x, y, z, w; };
static pthread_barrier_t npu_barrier;
static inline void __syncthreads() { pthread_barrier_wait(&npu_barrier); }
template <class F> static void npu_launch(dim3 grid, unsigned threads, F body) {
  pthread_barrier_init(&npu_barrier, 0, threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; t++) pool.emplace_back([&, t] {
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++) {
        threadIdx = {t, 0, 0}; blockIdx = {bx, by, 0}; blockDim = dim3(threads); gridDim = grid;
        body();
        pthread_barrier_wait(&npu_barrier);  /* the whole block ends before the next starts */
      }
  });
  for (auto &th : pool) th.join();
  pthread_barrier_destroy(&npu_barrier);
}
"""
CACHE = Path(tempfile.gettempdir()) / "npusim-gpu-emulation"


class EmulatedCudaRenderer(CudaRenderer):
    """The CUDA renderer's kernels; a C++ prelude and a host entry that emulates launches."""

    name = "gpu-emulated"
    suffix = ".cpp"
    includes = ("stdint.h", "math.h", "pthread.h", "thread", "vector")
    prelude = SHIM

    def render_entry(self, kernels: list) -> list:
        calls = []
        for k in kernels:
            ln = self.launches[k.name]
            grid = ", ".join(map(str, ln.grid))
            calls.append(f"npu_launch(dim3({grid}), {ln.threads}, [&] {{ "
                         f"{k.name}({self.call_args(k)}); }});")
        return block('extern "C" void npu_model_run(uint8_t *arena, const uint8_t *consts)',
                     calls)


def emulate(module):
    """A HostModule running `module`'s (a GpuModule's) kernels on the host CPU."""
    from ..clike.host import HostModule
    from ..clike.program import Program
    prog = module.program
    renderer = EmulatedCudaRenderer(module.target)
    source = renderer.render(prog.kernels, prog.name)
    cxx = shutil.which("c++") or shutil.which("g++")
    if cxx is None:
        raise CompilerError("no C++ compiler (c++/g++) found to emulate the CUDA kernels")
    lib, _, cmd = build_shared([cxx, "-O1", "-std=c++17", "-shared", "-fPIC", "-pthread"],
                               source, CACHE, ".cpp", (), f"emulating {prog.name}: {cxx}")
    emulated = Program(prog.name, source, prog.kernels, prog.layout, prog.prepared, renderer)
    return HostModule(emulated, module.target, lib, cmd, 0.0)


