"""Kernels: what the shared emitter hands a renderer. Each has typed pointer arguments into the
activation arena or the constants, and either C statements for one point of an iteration
space (map, space) or a convolution/GEMM description with its tile program (gemm)."""

from __future__ import annotations

from dataclasses import dataclass

from ...lower.geometry import ConvGeom

DTYPES = {"int8": "i8", "int32": "i32", "float32": "f32"}
ELEM_BYTES = {"i8": 1, "i32": 4, "f32": 4}


@dataclass(frozen=True)
class Arg:
    """A kernel parameter: a typed pointer at `offset` bytes into the arena or the constants."""

    name: str
    dtype: str          # i8 | i32 | f32
    region: str         # arena | consts
    offset: int
    writes: bool = False


@dataclass(kw_only=True)
class Kernel:
    name: str
    layer: str
    args: list
    flops: int          # arithmetic operations (a MAC counts 2)
    nbytes: int         # compulsory memory traffic: each argument read or written once
    note: str = ""

    def arg(self, name: str) -> Arg:
        return next(a for a in self.args if a.name == name)


@dataclass(kw_only=True)
class MapKernel(Kernel):
    """out[i] = f(x0[i], x1[i], ...) over `numel` elements of equal-shaped tensors. `body` are
    statements over the loaded values {x0}, {x1}... that assign the scalar `out`."""

    numel: int
    inputs: tuple
    output: str
    body: tuple
    tmp: str            # the scalar type of the loaded values and of `out`


@dataclass(kw_only=True)
class SpaceKernel(Kernel):
    """Independent points of `dims` [(var, extent)], outer to inner (inner = contiguous in
    the output); `body` are the statements of one point."""

    dims: list
    body: list

    @property
    def points(self) -> int:
        n = 1
        for _, extent in self.dims:
            n *= extent
        return n


@dataclass(frozen=True)
class Tile:
    """The lowering's tile program for one conv/dense: output rows per tile, output channels
    per block, input channels per slice, and the loop order (s = rows, j = block, q = slice)."""

    rows: int
    cb: int
    cin_slice: int
    order: str


@dataclass(kw_only=True)
class GemmKernel(Kernel):
    """y = epilogue(conv(x, w)) in NHWC/HWIO (a dense layer is a 1x1 conv of a 1x1 image).
    `epilogue` are statements over {acc}, {idx} (flat output index) and {co} (channel)."""

    geom: ConvGeom
    dtype: str          # i8 (int32 accumulators) | f32
    x: str
    w: str
    y: str
    epilogue: tuple
    tile: Tile

    @property
    def cin_g(self) -> int:
        return self.geom.cin // self.geom.groups

    @property
    def cout_g(self) -> int:
        return self.geom.cout // self.geom.groups

    def x_index(self, n: str, iy: str, ix: str, ci: str) -> str:
        g = self.geom
        return f"(((long){n} * {g.h} + {iy}) * {g.w} + {ix}) * {g.cin} + {ci}"

    def w_index(self, ky: str, kx: str, j: str, co: str) -> str:
        g = self.geom
        return f"(({ky} * {g.kw} + {kx}) * {self.cin_g} + {j}) * {g.cout} + {co}"

    def in_channel(self, co: str, j: str) -> str:
        """The input channel that reduction step `j` of output channel `co` reads."""
        if self.geom.groups == 1:
            return j
        if self.cin_g == 1 and self.cout_g == 1:  # depthwise
            return co
        return f"(({co}) / {self.cout_g}) * {self.cin_g} + {j}"
