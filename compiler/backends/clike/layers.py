"""Lowered layers -> kernels: the op definitions of every C-like backend, written once.

Integer steps call the helpers (helpers.py), in the order compiler/ops/qnn.py defines each
op; float steps follow compiler/ops/fused.py. Loads go through the renderer's op table."""

from __future__ import annotations

import re
from math import ceil, prod

import numpy as np

from ...errors import CompilerError
from ...lower.conv import ConvSchedule, choose_schedule
from ...lower.copy import CopyLayer
from ...lower.dense import DenseLayer
from ...lower.eltwise import EltwiseLayer
from ...lower.epilogue import Epilogue
from ...lower.geometry import ConvGeom
from ...lower.pool import PoolLayer
from .kernel import DTYPES, ELEM_BYTES, Arg, GemmKernel, MapKernel, SpaceKernel, Tile
from .registry import kernel_for, register_kernel

ACC_LIMIT = 2**31 // (128 * 128)  # int8 products summed before int32 could wrap


def flit(v: float) -> str:
    """A C float literal (exact for float32 values)."""
    v = float(v)
    if np.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    return f"{v!r}f"


def ident(index: int, name: str) -> str:
    return f"k{index}_" + re.sub(r"\W", "_", name)


def _act_int(kind: str, lo, hi) -> list:
    if kind == "relu":
        return ["q = npu_relu8(q);"]
    if kind == "clip":
        return [f"q = npu_clip8(q, {int(lo)}, {int(hi)});"]
    return []


def _act_float(var: str, kind: str, lo, hi) -> list:
    if kind == "relu":
        return [f"{var} = {var} > 0.0f ? {var} : 0.0f;"]
    if kind == "clip":  # np.clip: min(max(v, lo), hi), NaN stays NaN; compares vectorize,
        lo, hi = flit(lo), flit(hi)  # fminf/fmaxf calls do not
        return [f"{var} = {var} < {lo} ? {lo} : {var};", f"{var} = {var} > {hi} ? {hi} : {var};"]
    return []


# The integer statements of each eltwise kind (lut is the kind with a table), as qnn.* define
# them; the float expression of each binary kind (unary kinds are their activation).
_INT_ELTWISE = {
    "add": lambda a: [f"int32_t q = npu_add({{x0}}, {{x1}}, {int(a['lhs_mult'])}, "
                      f"{int(a['rhs_mult'])}, {int(a['shift'])});"]
    + _act_int(a.get("act", "none"), a.get("act_lo", -128), a.get("act_hi", 127)),
    "multiply": lambda a: [f"int32_t q = npu_requant({{x0}} * {{x1}}, {int(a['mult'])}, "
                           f"{int(a['shift'])}, 0, 0);"],
    "relu": lambda a: ["int32_t q = npu_relu8({x0});"],
    "clip": lambda a: [f"int32_t q = npu_clip8({{x0}}, {int(a['lo'])}, {int(a['hi'])});"],
}
_FLOAT_ELTWISE = {"add": "{x0} + {x1}", "multiply": "{x0} * {x1}"}


class KernelBuilder:
    """Builds each layer's kernel against a Layout (arena/constant offsets) and a renderer."""

    def __init__(self, lowered, layout, renderer):
        self.lowered, self.layout, self.r = lowered, layout, renderer

    def dtype(self, name: str) -> str:
        return DTYPES[self.lowered.tensor(name).dtype]

    def numel(self, name: str) -> int:
        return self.lowered.tensor(name).numel

    def act(self, name: str, var: str, writes: bool = False) -> Arg:
        return Arg(var, self.dtype(name), "arena", self.layout.tensor(name), writes)

    def const(self, key: str, var: str, array: np.ndarray) -> Arg:
        return Arg(var, DTYPES[str(array.dtype)], "consts", self.layout.const(key, array))

    def build(self, index: int, layer) -> list:
        """The kernels of one lowered layer: its kind's registered kernel (registry.py)."""
        out = kernel_for(layer)(self, ident(index, layer.name), layer)
        return out if isinstance(out, list) else [out]

    # ------------------------------------------------------------------ conv / dense
    def epilogue(self, key: str, epi: Epilogue, y: str) -> tuple:
        """(args, statements over {acc} {idx} {co}) of a conv/dense epilogue."""
        if epi.quantized:
            args = [self.const(f"{key}.bias", "bias", epi.bias.astype(np.int32)),
                    self.const(f"{key}.mult", "mult", epi.mult.astype(np.int32)),
                    self.const(f"{key}.shift", "shift", epi.shift.astype(np.int32))]
            lines = [f"int32_t q = npu_requant(npu_sat32((int64_t){{acc}} + bias[{{co}}]), "
                     f"mult[{{co}}], shift[{{co}}], {int(epi.out_zp)}, "
                     f"{int(epi.act == 'relu')});"]
            if epi.act == "clip":
                lines += _act_int("clip", epi.act_lo, epi.act_hi)
            if epi.residual:
                args.append(self.act(epi.residual, "res"))
                lines.append(f"q = npu_add(q, res[{{idx}}], {int(epi.lhs_mult)}, "
                             f"{int(epi.rhs_mult)}, {int(epi.add_shift)});")
                lines += _act_int(epi.post_act, epi.post_lo, epi.post_hi)
            return args, lines + [f"{y}[{{idx}}] = (int8_t)q;"]
        args = [self.const(f"{key}.bias", "bias", epi.bias.astype(np.float32))]
        lines = ["float v = {acc} + bias[{co}];"] + _act_float("v", epi.act, epi.act_lo,
                                                                epi.act_hi)
        if epi.residual:
            args.append(self.act(epi.residual, "res"))
            lines += ["v = v + res[{idx}];"] + _act_float("v", epi.post_act, epi.post_lo,
                                                          epi.post_hi)
        return args, lines + [f"{y}[{{idx}}] = v;"]

    def _gemm(self, name, layer, geom: ConvGeom, weights, tile: Tile, note: str):
        dt = self.dtype(layer.y)
        if dt == "i8" and geom.kh * geom.kw * geom.cin // geom.groups >= ACC_LIMIT:
            raise CompilerError(f"layer '{layer.name}': a reduction of "
                                f"{geom.kh * geom.kw * geom.cin // geom.groups} int8 products "
                                f"could wrap the int32 accumulator (limit {ACC_LIMIT}); the C "
                                "backends accumulate in int32 like the NPU but without wrapping")
        w = self.const(f"{name}.w", "w", np.ascontiguousarray(weights))
        epi_args, epi = self.epilogue(name, layer.epilogue, "y")
        args = [self.act(layer.x, "x"), w] + epi_args + [self.act(layer.y, "y", True)]
        eb = ELEM_BYTES[dt]
        tables = layer.epilogue.bias.size * (12 if layer.epilogue.quantized else 4)
        nbytes = (sum(self.numel(v) for v in layer.inputs) + self.numel(layer.y)) * eb + \
            weights.size * eb + tables
        return GemmKernel(name=name, layer=layer.name, args=args, flops=2 * int(layer.macs),
                          nbytes=int(nbytes), note=note, geom=geom, dtype=dt, x="x", w="w",
                          y="y", epilogue=tuple(epi), tile=tile)

    @register_kernel("conv")
    def conv(self, name: str, layer):
        g, s, hw = layer.geom, layer.schedule, self.lowered.hw
        if getattr(layer, "sub", None):  # its geometry is the subsample the NPU's DMA gathers
            raise CompilerError(f"layer '{layer.name}' was lowered with the NPU's strided-load "
                                "rewrite; lower with npu_rewrites=False for C-like backends")
        if not isinstance(s, ConvSchedule):  # another conv lowering: the plain tile program
            s = choose_schedule(g, layer.epilogue, hw, layer.name)
        tile = Tile(s.rows, min(hw.cols, g.cout), s.cin_slice, s.order)
        note = (f"conv {g.h}x{g.w}x{g.cin} -> {g.oh}x{g.ow}x{g.cout}, {g.kh}x{g.kw}/{g.sh}"
                + (f" groups {g.groups}" if g.groups > 1 else "") + f"; {s.describe()}")
        return self._gemm(name, layer, g, layer.weights, tile, note)

    @register_kernel("dense")
    def dense(self, name: str, layer: DenseLayer):
        """A single-row dense layer is a 1x1 conv over a 1x1 image: output-feature tiles
        of the schedule's n_tile are the channel blocks, its weight loads the slices."""
        s, hw = layer.schedule, self.lowered.hw
        geom = ConvGeom(1, 1, 1, layer.k, layer.n, 1, 1)
        # rounded up to whole channel blocks, so the feature loop vectorizes without a tail
        cb = min(layer.n, hw.cols * ceil(s.n_tile / hw.cols))
        tile = Tile(1, cb, min(layer.k, s.group * hw.rows), "sjq")
        return self._gemm(name, layer, geom, layer.weights.reshape(1, 1, layer.k, layer.n),
                          tile, f"dense {layer.k} -> {layer.n}; {s.describe()}")

    # ------------------------------------------------------------------ pooling
    @register_kernel("pool")
    def pool(self, name: str, layer: PoolLayer):
        g = layer.geom
        dt = self.dtype(layer.y)
        x = self.act(layer.x, "x")
        y = self.act(layer.y, "y", True)
        load = self.r.op("load", "x", f"(((long)n * {g.h} + iy) * {g.w} + ix) * {g.cin} + c")
        window = lambda stmt: [  # noqa: E731
            f"for (int ky = 0; ky < {g.kh}; ky++) {{",
            f"  const int iy = oy * {g.sh} - {g.pads[0]} + ky;",
            f"  if (iy < 0 || iy >= {g.h}) continue;",
            f"  for (int kx = 0; kx < {g.kw}; kx++) {{",
            f"    const int ix = ox * {g.sw} - {g.pads[1]} + kx;",
            f"    if (ix < 0 || ix >= {g.w}) continue;",
            f"    {stmt}", "  }", "}"]
        out = f"y[(((long)n * {g.oh} + oy) * {g.ow} + ox) * {g.cin} + c]"
        if layer.pool == "max" and dt == "i8":  # padding never wins
            body = ["int32_t best = INT32_MIN;"] + window(
                f"const int32_t v = {load}; best = v > best ? v : best;") + \
                [f"{out} = (int8_t)npu_sat8(best);"]
        elif layer.pool == "max":
            body = ["float best = -INFINITY;"] + window(
                f"best = {self.r.op('fmax', 'best', load)};") + [f"{out} = best;"]
        elif dt == "i8":
            body = ["int64_t sum = 0;"] + window(f"sum += {load};") + \
                [f"{out} = (int8_t)npu_requant(npu_sat32(sum), {layer.mult}, {layer.shift}, "
                 "0, 0);"]
        else:
            body = ["float sum = 0.0f;"] + window(f"sum += {load};") + \
                [f"{out} = sum * {flit(layer.scale)};"]
        eb = ELEM_BYTES[dt]
        outs = g.n * g.oh * g.ow * g.cin
        return SpaceKernel(name=name, layer=layer.name, args=[x, y], flops=outs * g.kh * g.kw,
                           nbytes=(self.numel(layer.x) + outs) * eb,
                           note=f"{layer.pool} pool {g.h}x{g.w}x{g.cin}, {g.kh}x{g.kw}/{g.sh}",
                           dims=[("n", g.n), ("oy", g.oh), ("ox", g.ow), ("c", g.cin)],
                           body=body)

    # ------------------------------------------------------------------ elementwise
    @register_kernel("eltwise")
    def eltwise(self, name: str, layer: EltwiseLayer):
        dt = self.dtype(layer.y)
        a = layer.attrs
        xs = [self.act(v, f"x{i}") for i, v in enumerate(layer.xs)]
        args = list(xs)
        if dt == "i8":
            if layer.table is not None:  # lut: index = x + 128
                args.append(self.const(f"{name}.table", "table", layer.table.astype(np.int8)))
                body = [f"int32_t q = {self.r.op('load', 'table', '{x0} + 128')};"]
            else:
                body = _INT_ELTWISE[layer.op](a)
            body.append("const int32_t out = q;")
        else:
            if layer.table is not None:
                raise CompilerError(f"layer '{layer.name}': a table lookup needs int8 data")
            body = [f"float out = {_FLOAT_ELTWISE.get(layer.op, '{x0}')};"]
            body += _act_float("out", layer.op, a.get("lo"), a.get("hi"))
        args.append(self.act(layer.y, "y", True))
        eb = ELEM_BYTES[dt]
        ops = len(layer.vector_ops(dt == "i8"))
        return MapKernel(name=name, layer=layer.name, args=args, flops=layer.numel * ops,
                         nbytes=(len(xs) + 1) * layer.numel * eb,
                         note=f"{layer.op} over {layer.numel} elements", numel=layer.numel,
                         inputs=tuple(x.name for x in xs), output="y", body=tuple(body),
                         tmp="i32" if dt == "i8" else "f32")

    # ------------------------------------------------------------------ data movement
    @register_kernel("copy")
    def copy(self, name: str, layer: CopyLayer):
        """y = transpose(x.reshape(shape), perm): one point per output element."""
        if not hasattr(layer, "perm"):
            raise CompilerError(f"layer '{layer.name}': {type(layer).__name__} is a data "
                                "movement the C-like backends do not emit (only "
                                "permutations); lower without the NPU's array rewrites")
        shape, perm = layer.shape, layer.perm
        src = [prod(shape[i + 1:]) for i in range(len(shape))]
        out = [shape[p] for p in perm]
        dst = [prod(out[i + 1:]) for i in range(len(out))]
        dims = [(f"d{i}", n) for i, n in enumerate(out) if n > 1] or [("d0", 1)]
        used = {v for v, _ in dims}
        s_idx = " + ".join(f"(long)d{i} * {src[p]}" for i, p in enumerate(perm)
                           if f"d{i}" in used) or "0"
        d_idx = " + ".join(f"(long)d{i} * {dst[i]}" for i in range(len(out))
                           if f"d{i}" in used) or "0"
        dt = self.dtype(layer.y)
        n = prod(shape)
        return SpaceKernel(name=name, layer=layer.name,
                           args=[self.act(layer.x, "x"), self.act(layer.y, "y", True)], flops=0,
                           nbytes=2 * n * ELEM_BYTES[dt],
                           note=f"transpose {tuple(shape)} by {tuple(perm)}", dims=dims,
                           body=[f"y[{d_idx}] = {self.r.op('load', 'x', s_idx)};"])

    @register_kernel("concat")
    def concat(self, name: str, layer) -> list:
        """One kernel per input: its rows into its column slice of the output (int8:
        requantized to the output scale, as qnn.concat)."""
        if getattr(layer, "consts", None):
            from ...errors import BackendError
            raise BackendError(f"layer '{layer.name}': a concat of a constant part (parts "
                               f"{sorted(layer.consts)}) has no C-like kernel yet; it runs "
                               "on npu targets")
        dt = self.dtype(layer.y)
        out, offset = [], 0
        for i, (x, inner) in enumerate(zip(layer.xs, layer.inner)):
            value = self.r.op("load", "x", f"(long)r * {inner} + c")
            if dt == "i8":
                value = f"(int8_t)npu_requant({value}, {int(layer.mults[i])}, " \
                        f"{int(layer.shifts[i])}, 0, 0)"
            out.append(SpaceKernel(
                name=f"{name}_{i}", layer=layer.name,
                args=[self.act(x, "x"), self.act(layer.y, "y", True)],
                flops=layer.outer * inner if dt == "i8" else 0,
                nbytes=2 * layer.outer * inner * ELEM_BYTES[dt],
                note=f"concat part {i}: {layer.outer} rows of {inner} at column {offset}",
                dims=[("r", layer.outer), ("c", inner)],
                body=[f"y[(long)r * {layer.total} + {offset} + c] = {value};"]))
            offset += inner
        return out
