"""fp16 activations that int8 runs as a vlut table (sigmoid, tanh, elu, hardswish, hardsigmoid,
leaky relu, gelu), as short programs of the vector unit's float ops, with a numpy model of each.

vlut indexes a 256-entry table by an int8 value, so it has no fp16 form. The piecewise-linear
ones are exact compositions (clip, max, multiply). The others need exp and a reciprocal, which
the ISA lacks: exp(y) for y <= 0 is a degree-5 Taylor polynomial of exp(y / 64) squared six
times (|y| <= 16: relative error below 3e-5), 1 / d on [1, 2] three Newton steps from the
minimax line 24/17 - 8/17 d (relative error 1/17, then 3e-3, 1e-5, 1e-10), and sigmoid(x)
is s or 1 - s with s = sigmoid(|x|), chosen by a step clip(x * 2^14, 0, 1) (near 0 both
agree to 2^-15). The work is in float32 (abuf); the output is rounded once to float16."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from math import ceil

import numpy as np

from ..errors import CompilerError
from ..ops import register_hook
from .cost import FIELD_MAX, Hw
from .eltwise import EltSchedule  # a chunk size, as the integer elementwise layers
from .layer import OneInput

# a step: (mnemonic, dst, src0, src1 or scalar/bounds); names: "x" the input, "y" the output,
# "t<i>" float32 temporaries, "k<v>" broadcast constant vectors, floats: vbias scalars
EXP_DEGREE, EXP_SQUARINGS, NEWTON_STEPS, STEP_GAIN = 5, 6, 3, 16384


def _exp(dst: str, y: str) -> list:
    """dst = exp(y) for y in [-16, 0] (y itself is clipped there by the caller)."""
    u = "t9"
    steps = [("vmul", u, y, f"k{1 / 2 ** EXP_SQUARINGS!r}"),
             ("vmul", dst, u, f"k{1 / 120!r}"), ("vbias", dst, dst, 1 / 24)]
    for c in (1 / 6, 1 / 2, 1.0, 1.0):
        steps += [("vmul", dst, dst, u), ("vbias", dst, dst, c)]
    steps += [("vmul", dst, dst, dst)] * EXP_SQUARINGS
    return steps


def _sigmoid(x: str) -> list:
    """t6 = sigmoid(x) (float32)."""
    steps = [("vmul", "t0", x, "k-1.0"), ("vmin", "t0", "t0", x), ("vclip", "t0", "t0", (-16, 0))]
    steps += _exp("t2", "t0")                                    # e = exp(-|x|)
    steps += [("vbias", "t2", "t2", 1.0),                         # d = 1 + e in (1, 2]
              ("vmul", "t3", "t2", f"k{-8 / 17!r}"), ("vbias", "t3", "t3", 24 / 17)]
    for _ in range(NEWTON_STEPS):                                 # r <- r (2 - d r)
        steps += [("vmul", "t4", "t2", "t3"), ("vsub", "t4", "k2.0", "t4"),
                  ("vmul", "t3", "t3", "t4")]
    # s = t3 = sigmoid(|x|); c = step(x); sigmoid(x) = (1 - s) + c (2 s - 1)
    return steps + [("vmul", "t5", x, f"k{float(STEP_GAIN)!r}"), ("vclip", "t5", "t5", (0, 1)),
                    ("vmul", "t6", "t3", "k2.0"), ("vbias", "t6", "t6", -1.0),
                    ("vmul", "t6", "t6", "t5"), ("vsub", "t7", "k1.0", "t3"),
                    ("vadd", "t6", "t6", "t7")]


# erf(a) = 1 - t (A1 + t (A2 + ...)) exp(-a^2), t = 1 / (1 + P a), a >= 0: Abramowitz and Stegun
# 7.1.26, absolute error below 1.5e-7
ERF_P, ERF_A = 0.3275911, (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def _gelu(a: dict) -> list:
    """x Phi(x): exact (erf) by ERF_A with vrecip and vexp, the ISA's float reciprocal and exp
    in fp16 mode; approximate='tanh' as x sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3))."""
    if a.get("approximate", "none") == "tanh":
        return [("vmul", "t8", "x", "x"), ("vmul", "t8", "t8", "x"),
                ("vmul", "t8", "t8", "k0.044715"), ("vadd", "t8", "t8", "x"),
                ("vmul", "t8", "t8", f"k{2 * (2 / np.pi) ** 0.5!r}")] + _sigmoid("t8") + \
            [("vmul", "y", "t6", "x")]
    steps = [("vmul", "t0", "x", "k-1.0"), ("vmax", "t0", "t0", "x"),     # a = |x| / sqrt(2)
             ("vmul", "t0", "t0", f"k{2 ** -0.5!r}"),
             ("vmul", "t1", "t0", f"k{ERF_P!r}"), ("vbias", "t1", "t1", 1.0),
             ("vrecip", "t1", "t1", None),                                # t = 1 / (1 + P a)
             ("vmul", "t2", "t1", f"k{ERF_A[-1]!r}")]
    for c in reversed(ERF_A[:-1]):                                        # Horner in t
        steps += [("vbias", "t2", "t2", c), ("vmul", "t2", "t2", "t1")]
    return steps + [("vmul", "t3", "t0", "t0"), ("vmul", "t3", "t3", "k-1.0"),
                    ("vexp", "t3", "t3", None),                           # exp(-a^2)
                    ("vmul", "t4", "t2", "t3"), ("vsub", "t4", "k1.0", "t4"),  # erf(a)
                    ("vmul", "t5", "x", f"k{float(STEP_GAIN)!r}"), ("vclip", "t5", "t5", (0, 1)),
                    ("vmul", "t5", "t5", "k2.0"), ("vbias", "t5", "t5", -1.0),  # sign(x)
                    ("vmul", "t6", "t4", "t5"), ("vbias", "t6", "t6", 1.0),
                    ("vmul", "t6", "t6", "k0.5"), ("vmul", "y", "t6", "x")]


def _leaky(a: dict) -> list:
    """max(x, alpha x) for alpha <= 1, else min."""
    alpha = float(a["alpha"])
    return [("vmul", "t0", "x", f"k{alpha!r}"), ("vmax" if alpha <= 1 else "vmin", "y", "t0", "x")]


# op -> its program's steps from the node's attributes (the last step writes 'y'); each is
# registered as that op's 'lower' hook below
PROGRAMS = {
    "sigmoid": lambda a: _sigmoid("x") + [("vcopy", "y", "t6", None)],
    "tanh": lambda a: [("vmul", "t8", "x", "k2.0")] + _sigmoid("t8") +  # 2 sigmoid(2x) - 1
    [("vmul", "t6", "t6", "k2.0"), ("vbias", "y", "t6", -1.0)],
    "elu": lambda a: [("vmin", "t0", "x", "k0.0"), ("vclip", "t0", "t0", (-16, 0))] +
    _exp("t2", "t0") + [("vbias", "t2", "t2", -1.0),  # relu(x) + alpha (exp(min(x, 0)) - 1)
                        ("vmul", "t2", "t2", f"k{float(a['alpha'])!r}"),
                        ("vrelu", "t1", "x", None), ("vadd", "y", "t1", "t2")],
    "hardswish": lambda a: [("vbias", "t0", "x", 3.0), ("vclip", "t0", "t0", (0, 6)),
                            ("vmul", "t0", "t0", "x"), ("vmul", "y", "t0", f"k{1 / 6!r}")],
    "hardsigmoid": lambda a: [("vmul", "t0", "x", f"k{float(a['alpha'])!r}"),
                              ("vbias", "t0", "t0", float(a["beta"])),
                              ("vclip", "y", "t0", (0, 1))],
    "leaky_relu": _leaky,
    "gelu": _gelu,
}
FP16_OPS = tuple(PROGRAMS)


def program(op: str, attrs: dict) -> list:
    """The vector steps of float activation `op`; the last writes 'y'."""
    build = PROGRAMS.get(op)
    if build is None:
        raise CompilerError(f"no fp16 vector program for '{op}'; known: {', '.join(FP16_OPS)}")
    return build(attrs)


def constants(steps: list) -> tuple:
    """(broadcast vector values, vbias scalars) a program reads, in first-use order."""
    vecs, scalars = [], []
    for _, _, a, b in steps:
        for v in (a, b):
            if isinstance(v, str) and v.startswith("k") and float(v[1:]) not in vecs:
                vecs.append(float(v[1:]))
    for mn, _, _, b in steps:
        if mn == "vbias" and float(b) not in scalars:
            scalars.append(float(b))
    return vecs, scalars


def temporaries(steps: list) -> list:
    return sorted({d for _, d, *_ in steps if d.startswith("t")})


def evaluate(steps: list, x: np.ndarray) -> np.ndarray:
    """numpy model of the program as the vector unit runs it (isa.semantics in fp16 mode:
    float64 math rounded to each destination, float32 temporaries, float16 output)."""
    env = {"x": np.asarray(x, np.float16)}

    def val(v):
        if v.startswith("k"):
            return np.float64(np.float32(float(v[1:])))
        return env[v].astype(np.float64)
    for mn, dst, a, b in steps:
        av = val(a)
        if mn == "vbias":
            r = av + np.float64(np.float32(b))
        elif mn == "vclip":
            r = np.minimum(np.maximum(av, b[0]), b[1])
        elif mn == "vrelu":
            r = np.maximum(av, 0)
        elif mn == "vcopy":
            r = av
        elif mn == "vexp":
            r = np.exp(av)
        elif mn == "vrecip":
            with np.errstate(divide="ignore"):
                r = 1.0 / av
        else:
            r = {"vadd": np.add, "vsub": np.subtract, "vmul": np.multiply,
                 "vmax": np.maximum, "vmin": np.minimum}[mn](av, val(b))
        env[dst] = np.asarray(r).astype(np.float16 if dst == "y" else np.float32)
    return env["y"]


@dataclass
class VecFnLayer(OneInput):
    """y = op(x) elementwise by a program of float vector ops (fp16 Targets)."""

    name: str
    op: str
    x: str
    y: str
    numel: int
    steps: list
    schedule: EltSchedule | None = None
    kind: str = "vecfn"
    note: str = ""

    def chunks(self) -> list:
        c = self.schedule.chunk
        return [(i, min(i + c, self.numel)) for i in range(0, self.numel, c)]


def choose_vecfn(layer: VecFnLayer, hw: Hw) -> EltSchedule:
    vecs, scalars = constants(layer.steps)
    # abuf: every temporary and constant vector, a zero vector to build them from, scalars
    vectors = len(temporaries(layer.steps)) + len(vecs) + 1
    cap = min(hw.buffer_elems["ibuf"] // 2, hw.buffer_elems["obuf"] // 2,
              (hw.buffer_elems["abuf"] - len(scalars)) // vectors, FIELD_MAX["len"])
    chunk = max(1, min(cap, layer.numel))
    n = ceil(layer.numel / chunk)
    vec = n * sum(hw.cycles(s[0], len=chunk) for s in layer.steps) + \
        len(vecs) * hw.cycles("vbias", len=chunk)
    part = layer.numel * hw.act_bytes
    dma = hw.dma_streams({"in": (n, part), "out": (n, part)})
    total = max(vec, dma) + hw.dma(chunk * hw.act_bytes) * 2 + hw.dma(chunk * 4)
    return EltSchedule(chunk, {"cycles": total, "vector": vec, "dma": dma,
                                 "dram_bytes": 2 * part,
                                 "instructions": n * (len(layer.steps) + 2)})


def lower_vecfn(lw, n, op: str, build) -> None:
    if lw.hw.dtype != "fp16":
        raise CompilerError(f"node '{n.name}': {op} in {lw.hw.dtype} has no vector program "
                            "(int8 runs it as a vlut table after quantization; fp16 Targets "
                            "run it as float vector ops)")
    layer = VecFnLayer(n.name, op, n.inputs[0], n.output, lw.g.type_of(n.output).numel,
                       build(dict(n.attrs)))
    layer.schedule = choose_vecfn(layer, lw.hw)
    lw.layers.append(layer)


for _op, _build in PROGRAMS.items():
    register_hook("lower", _op, value=partial(lower_vecfn, op=_op, build=_build))
