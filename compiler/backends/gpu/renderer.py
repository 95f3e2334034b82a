"""CUDA C from the shared emitter: the same kernels, with their parallel loops bound to the
grid (block sizes from the data size), shared-memory tiles for dense convs and GEMMs, 4-wide
vector loads for elementwise maps, read-only loads through the texture path, and host code
that launches every layer and times the whole model with CUDA events."""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from ...errors import CompilerError
from ...lower.cost import Hw
from ..clike import Renderer
from ..clike.renderer import block, loop

THREADS = 256             # threads per block (a 16 x 16 grid of them for GEMM tiles)
VECTOR = {"i8": "char4", "f32": "float4"}
LANES = ("x", "y", "z", "w")


@dataclass(frozen=True)
class Launch:
    grid: tuple
    threads: int
    smem_bytes: int = 0


def _index_vars(dims: list, flat: str) -> list:
    """Decompose the flat thread index over dims (inner varies fastest: coalesced)."""
    lines = [f"long rest = {flat};"]
    for var, extent in reversed(dims[1:]):
        lines += [f"const int {var} = (int)(rest % {extent});", f"rest /= {extent};"]
    return lines + [f"const int {dims[0][0]} = (int)rest;"]


class CudaRenderer(Renderer):
    name = "gpu"
    suffix = ".cu"
    includes = ("stdint.h", "math.h")
    kernel_prefix = f'extern "C" __global__ void __launch_bounds__({THREADS})'
    helper_prefix = "static __device__ __forceinline__"
    entry_prefix = 'extern "C" '
    restrict = "__restrict__"
    code_for_op = {**Renderer.code_for_op,
                   "load": lambda buf, idx: f"__ldg(&{buf}[{idx}])"}

    def __init__(self, target):
        super().__init__(target)
        self.launches: dict = {}

    def hw(self, dtype: str) -> Hw:
        """Tile sizes the lowering picks do not bind the GPU code (the grid and the shared
        memory tiles below do); the lowering only needs buffers that fit a whole layer."""
        eb = 1 if dtype == "int8" else 4
        big = 1 << 22
        return Hw(rows=16, cols=64, lanes=32, pipeline=0, dma_setup=0, dram_latency=0,
                  dram_bw=64, dma_engines=1, num_cores=1, semaphores=1,
                  queue_depth=1, buffer_elems={"ibuf": big, "wbuf": big, "abuf": big,
                                               "obuf": big},
                  elem_bytes={"ibuf": eb, "wbuf": eb, "abuf": 4, "obuf": eb}, dtype=dtype,
                  freq_mhz=1000)

    def _head(self, points: int) -> list:
        return ["const long t = (long)blockIdx.x * blockDim.x + threadIdx.x;",
                f"if (t >= {points}) return;"]

    # ------------------------------------------------------------------ maps and spaces
    def render_map(self, k):
        dts = {k.arg(x).dtype for x in k.inputs} | {k.arg(k.output).dtype}
        if k.numel % 4 or len(dts) != 1:  # arena offsets are 64-byte aligned; sizes may not
            self.launches[k.name] = Launch((ceil(k.numel / THREADS),), THREADS)
            tmp = self.types[k.tmp]
            loads = [f"const {tmp} v{i} = {self.op('load', x, 't')};"
                     for i, x in enumerate(k.inputs)]
            body = self._head(k.numel) + loads + self.map_body(
                k, [f"v{i}" for i in range(len(k.inputs))], "t")
            return block(self.signature(k), body)
        vt = VECTOR[dts.pop()]
        n4 = k.numel // 4
        self.launches[k.name] = Launch((ceil(n4 / THREADS),), THREADS)
        body = self._head(n4) + [f"const {vt} a{i} = ((const {vt} *){x})[t];"
                                 for i, x in enumerate(k.inputs)] + [f"{vt} o;"]
        for lane in LANES:
            lines = [line.format(**{f"x{i}": f"a{i}.{lane}" for i in range(len(k.inputs))})
                     for line in k.body]
            body += block("", lines + [f"o.{lane} = out;"])
        return block(self.signature(k), body + [f"(({vt} *){k.output})[t] = o;"])

    def render_space(self, k):
        self.launches[k.name] = Launch((ceil(k.points / THREADS),), THREADS)
        body = self._head(k.points) + _index_vars(k.dims, "t") + list(k.body)
        return block(self.signature(k), body)

    # ------------------------------------------------------------------ conv / GEMM
    def render_gemm(self, k):
        g = k.geom
        m = g.n * g.oh * g.ow
        if g.groups == 1 and m >= 16:
            return self._tiled(k, m)
        return self._direct(k, m)

    def _direct(self, k, m: int) -> list:
        """One thread per output (pixel, channel): grouped convs and single-row dense layers,
        where neighbouring threads read neighbouring weights (and, depthwise, inputs)."""
        g = k.geom
        acc_t = "int32_t" if k.dtype == "i8" else "float"
        xt, wt = self.types[k.arg(k.x).dtype], self.types[k.arg(k.w).dtype]
        points = m * g.cout
        self.launches[k.name] = Launch((ceil(points / THREADS),), THREADS)
        x = self.op("load", "xp", k.in_channel("co", "j"))
        w = self.op("load", "wp", f"j * {g.cout}")
        red = loop("ky", g.kh, [
            f"const int iy = oy * {g.sh} - {g.pads[0]} + ky * {g.dh};",
            f"if (iy < 0 || iy >= {g.h}) continue;"] + loop("kx", g.kw, [
                f"const int ix = ox * {g.sw} - {g.pads[1]} + kx * {g.dw};",
                f"if (ix < 0 || ix >= {g.w}) continue;",
                f"const {xt} *xp = {k.x} + {k.x_index('n', 'iy', 'ix', '0')};",
                f"const {wt} *wp = {k.w} + {k.w_index('ky', 'kx', '0', 'co')};"] + loop(
                    "j", k.cin_g, [f"acc += ({acc_t}){x} * {w};"])))
        epi = [line.format(acc="acc", idx=f"(long)m * {g.cout} + co", co="co")
               for line in k.epilogue]
        body = self._head(points) + [f"const int co = (int)(t % {g.cout});",
                                     f"const long m = t / {g.cout};",
                                     f"const int ox = (int)(m % {g.ow});",
                                     f"const int oy = (int)((m / {g.ow}) % {g.oh});",
                                     f"const int n = (int)(m / ((long){g.ow} * {g.oh}));",
                                     f"{acc_t} acc = 0;"] + red + epi
        return block(self.signature(k), body)

    def tile_shape(self, m: int, n: int, k: int, elem: int) -> tuple:
        """(BM, BN, BK): the block's output tile and reduction step, as large as the data
        (16..64) and the Target's shared memory allow."""
        bm = 64 if m >= 64 else 32 if m >= 32 else 16
        bn = 64 if n >= 64 else 32 if n >= 32 else 16
        bk = 32 if k >= 32 else 16
        while (bk * (bm + 1) + bk * bn) * elem > self.target.smem_kb * 1024 and bk > 4:
            bk //= 2
        if (bk * (bm + 1) + bk * bn) * elem > self.target.smem_kb * 1024:
            raise CompilerError(f"a {bm}x{bn} GEMM tile needs more shared memory than the "
                                f"Target's smem-kb={self.target.smem_kb}; raise smem-kb")
        return bm, bn, bk

    def _tiled(self, k, m: int) -> list:
        """Implicit GEMM: (pixels x K) @ (K x channels), K = kh * kw * cin in HWIO order.
        Each block stages a BM x BK input tile (gathered through the conv's padding) and a
        BK x BN weight tile in shared memory; consecutive threads read consecutive input
        channels and output channels (coalesced); each thread keeps (BM/16) x (BN/16)
        accumulators in registers and applies the fused epilogue to them."""
        g = k.geom
        kdim = g.kh * g.kw * g.cin
        acc_t = "int32_t" if k.dtype == "i8" else "float"
        bm, bn, bk = self.tile_shape(m, g.cout, kdim, 4)
        tm, tn = bm // 16, bn // 16
        smem = (bk * (bm + 1) + bk * bn) * 4
        self.launches[k.name] = Launch((ceil(m / bm), ceil(g.cout / bn)), THREADS, smem)
        a_load = [f"const int ci = kq % {g.cin}, tap = kq / {g.cin};",
                  f"const int kx = tap % {g.kw}, ky = tap / {g.kw};",
                  f"const int ox = (int)(m % {g.ow}), oy = (int)((m / {g.ow}) % {g.oh});",
                  f"const int n = (int)(m / ((long){g.ow} * {g.oh}));",
                  f"const int iy = oy * {g.sh} - {g.pads[0]} + ky * {g.dh};",
                  f"const int ix = ox * {g.sw} - {g.pads[1]} + kx * {g.dw};",
                  f"if (iy >= 0 && iy < {g.h} && ix >= 0 && ix < {g.w}) "
                  f"v = {self.op('load', k.x, k.x_index('n', 'iy', 'ix', 'ci'))};"]
        stage = loop("i", bm * bk, [
            f"const int kk = i % {bk}, mm = i / {bk};",
            "const long m = m0 + mm;", "const int kq = k0 + kk;", f"{acc_t} v = 0;"] +
            block(f"if (m < {m} && kq < {kdim})", a_load) + ["As[kk][mm] = v;"],
            start="threadIdx.x", step=THREADS) + loop("i", bk * bn, [
                f"const int nn = i % {bn}, kk = i / {bn};",
                "const int kq = k0 + kk, co = n0 + nn;",
                f"Bs[kk][nn] = kq < {kdim} && co < {g.cout} ? "
                f"({acc_t}){self.op('load', k.w, f'(long)kq * {g.cout} + co')} : 0;"],
                start="threadIdx.x", step=THREADS) + ["__syncthreads();"]
        fma = ["#pragma unroll"] + loop("kk", bk, [
            f"{acc_t} a[{tm}], b[{tn}];",
            "#pragma unroll", f"for (int i = 0; i < {tm}; i++) a[i] = As[kk][ty + 16 * i];",
            "#pragma unroll", f"for (int j = 0; j < {tn}; j++) b[j] = Bs[kk][tx + 16 * j];",
            "#pragma unroll", f"for (int i = 0; i < {tm}; i++)",
            "#pragma unroll", f"  for (int j = 0; j < {tn}; j++) acc[i][j] += a[i] * b[j];"])
        epi = [line.format(acc="acc[i][j]", idx=f"m * {g.cout} + co", co="co")
               for line in k.epilogue]
        store = loop("i", tm, ["const long m = m0 + ty + 16 * i;"] + loop(
            "j", tn, ["const int co = n0 + tx + 16 * j;"] +
            block(f"if (m < {m} && co < {g.cout})", epi)))
        body = [f"__shared__ {acc_t} As[{bk}][{bm + 1}];",  # +1: no bank conflicts on store
                f"__shared__ {acc_t} Bs[{bk}][{bn}];",
                "const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;",
                f"const long m0 = (long)blockIdx.x * {bm};",
                f"const int n0 = blockIdx.y * {bn};",
                f"{acc_t} acc[{tm}][{tn}];",
                f"for (int i = 0; i < {tm}; i++) for (int j = 0; j < {tn}; j++) acc[i][j] = 0;"]
        body += loop("k0", kdim, stage + fma + ["__syncthreads();"], step=bk) + store
        return block(self.signature(k), body)

    # ------------------------------------------------------------------ host code
    def render_entry(self, kernels: list) -> list:
        launches = []
        for k in kernels:
            ln = self.launches[k.name]
            grid = ", ".join(map(str, ln.grid))
            launches.append(f"{k.name}<<<dim3({grid}), {ln.threads}, 0, stream>>>"
                            f"({self.call_args(k)});")
        run = block('extern "C" int npu_model_launch(uint8_t *arena, const uint8_t *consts, '
                    "cudaStream_t stream)", launches + ["return (int)cudaGetLastError();"])
        bench = block(
            'extern "C" int npu_gpu_bench(uint8_t *host_arena, size_t arena_bytes, '
            "const uint8_t *host_consts, size_t const_bytes, int warmup, int repeats, "
            "float *ms)", [
                "uint8_t *arena = 0, *consts = 0;",
                "cudaEvent_t start, stop;",
                "int err = (int)cudaMalloc((void **)&arena, arena_bytes);",
                "if (!err) err = (int)cudaMalloc((void **)&consts, const_bytes);",
                "if (!err) err = (int)cudaMemcpy(arena, host_arena, arena_bytes, "
                "cudaMemcpyHostToDevice);",
                "if (!err) err = (int)cudaMemcpy(consts, host_consts, const_bytes, "
                "cudaMemcpyHostToDevice);",
                "cudaEventCreate(&start);", "cudaEventCreate(&stop);",
                "for (int i = 0; i < warmup && !err; i++) err = npu_model_launch(arena, "
                "consts, 0);",
                "if (!err) err = (int)cudaDeviceSynchronize();",
                "for (int i = 0; i < repeats && !err; i++) {",
                "  cudaEventRecord(start, 0);",
                "  err = npu_model_launch(arena, consts, 0);",
                "  cudaEventRecord(stop, 0);",
                "  if (!err) err = (int)cudaEventSynchronize(stop);",
                "  if (!err) cudaEventElapsedTime(&ms[i], start, stop);",
                "}",
                "if (!err) err = (int)cudaMemcpy(host_arena, arena, arena_bytes, "
                "cudaMemcpyDeviceToHost);",
                "cudaEventDestroy(start);", "cudaEventDestroy(stop);",
                "cudaFree(arena);", "cudaFree(consts);",
                "return err;"])
        return run + [""] + bench
