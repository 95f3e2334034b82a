"""Reference semantics of every NPU instruction, in numpy: the living definition.

The ISA spec's `ref` keys name the functional model's handlers (npusim.exec), which compute
with these functions, as do the compiler's integer reference and the RTL testbenches'
checkers, so a rounding or saturation rule is written exactly once.

Rules that hold for every instruction:
- Arithmetic is exact (int64) and the result saturates to the destination's element type:
  [-128, 127] for int8 buffers (ibuf, wbuf, obuf) and [-2^31, 2^31-1] for abuf (int32).
  The matrix engine is the exception: its int32 accumulation wraps (two's complement), as
  a 32-bit adder does.
- round_shift(x, s) rounds half up: (x + 2^(s-1)) >> s with an arithmetic shift, s > 0;
  s == 0 returns x. It is the rounding of vshr and of vrequant.
- In fp16 mode the int8 buffers hold float16 and abuf holds float32; saturation is replaced
  by IEEE rounding to the destination type, and round_shift/requantize do not apply.
"""

from __future__ import annotations

import numpy as np

INT8_MIN, INT8_MAX = -128, 127
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def saturate(x: np.ndarray, dtype) -> np.ndarray:
    """Clamp exact integer values into `dtype` (int8 or int32); floats are cast."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.asarray(x).astype(dtype)
    info = np.iinfo(dtype)
    return np.clip(np.asarray(x, dtype=np.int64), info.min, info.max).astype(dtype)


def wrap_int32(x: np.ndarray) -> np.ndarray:
    """Two's-complement wrap of exact integers to int32 (the accumulator's adder)."""
    return np.asarray(x, dtype=np.int64).astype(np.int32)


def round_shift(x, shift) -> np.ndarray:
    """Arithmetic right shift rounding half up; `shift` may be per element (broadcast)."""
    x = np.asarray(x, dtype=np.int64)
    shift = np.asarray(shift, dtype=np.int64)
    half = np.where(shift > 0, np.left_shift(np.int64(1), np.maximum(shift - 1, 0)), 0)
    return np.right_shift(x + half, shift)


# ------------------------------------------------------------------ matrix engine

def gemm(a: np.ndarray, w: np.ndarray, acc: np.ndarray | None = None) -> np.ndarray:
    """(m,k) @ (k,n) int8 -> int32, wrapping, optionally added to `acc` (m,n)."""
    if a.dtype.kind == "f":
        out = a.astype(np.float32) @ w.astype(np.float32)
        return out if acc is None else (acc.astype(np.float32) + out)
    if a.dtype.itemsize == 1 and w.dtype.itemsize == 1 and a.shape[-1] < 2**38:
        # int8 products are < 2^14, so every partial sum of fewer than 2^38 terms is an exact
        # float64 integer: BLAS gives the bit-exact int64 result ~10x faster than int64 matmul.
        out = (a.astype(np.float64) @ w.astype(np.float64)).astype(np.int64)
    else:
        out = a.astype(np.int64) @ w.astype(np.int64)
    if acc is not None:
        out = out + acc.astype(np.int64)
    return wrap_int32(out)


def conv_out_size(size: int, kernel: int, stride: int, pad_lo: int, pad_hi: int,
                  dilation: int) -> int:
    """Output extent of a convolution or pooling window along one axis."""
    span = dilation * (kernel - 1) + 1
    return (size + pad_lo + pad_hi - span) // stride + 1


def _pad_hw(x: np.ndarray, pads: tuple[int, int, int, int], value) -> np.ndarray:
    top, left, bottom, right = pads
    return np.pad(x, ((top, bottom), (left, right), (0, 0)), constant_values=value)


def _windows(x: np.ndarray, kh: int, kw: int, stride: tuple[int, int],
             dilation: tuple[int, int], oh: int, ow: int) -> np.ndarray:
    """(oh, ow, kh, kw, c) view of the sliding windows of a padded HWC tensor."""
    sh, sw = stride
    dh, dw = dilation
    view = np.lib.stride_tricks.sliding_window_view(
        x, (dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1), axis=(0, 1))
    view = view[::sh, ::sw][:oh, :ow, :, ::dh, ::dw]  # (oh, ow, c, kh, kw)
    return view.transpose(0, 1, 3, 4, 2)


def conv2d(x: np.ndarray, w: np.ndarray, stride=(1, 1), pads=(0, 0, 0, 0),
           dilation=(1, 1), acc: np.ndarray | None = None) -> np.ndarray:
    """HWC input (h,w,cin), weights (kh,kw,cin,cout) -> HWC (oh,ow,cout) int32.

    pads = (top, left, bottom, right); padding is zero (the input zero point is folded
    into the bias by the compiler, as the hardware's im2col inserts literal zeros).
    """
    kh, kw, cin, cout = w.shape
    oh = conv_out_size(x.shape[0], kh, stride[0], pads[0], pads[2], dilation[0])
    ow = conv_out_size(x.shape[1], kw, stride[1], pads[1], pads[3], dilation[1])
    if oh < 1 or ow < 1:
        raise ValueError(f"conv output would be empty ({oh}x{ow})")
    cols = _windows(_pad_hw(x, pads, 0), kh, kw, stride, dilation, oh, ow)
    a = cols.reshape(oh * ow, kh * kw * cin)
    out = gemm(a, w.reshape(kh * kw * cin, cout),
               None if acc is None else acc.reshape(oh * ow, cout))
    return out.reshape(oh, ow, cout)


def dwconv2d(x: np.ndarray, w: np.ndarray, stride=(1, 1), pads=(0, 0, 0, 0),
             dilation=(1, 1), acc: np.ndarray | None = None) -> np.ndarray:
    """Depthwise: HWC input (h,w,c), weights (kh,kw,c) -> HWC (oh,ow,c) int32 (fp32 for a
    float input), output channel c from input channel c only; padding is zero, as conv2d's."""
    kh, kw, c = w.shape
    oh = conv_out_size(x.shape[0], kh, stride[0], pads[0], pads[2], dilation[0])
    ow = conv_out_size(x.shape[1], kw, stride[1], pads[1], pads[3], dilation[1])
    if oh < 1 or ow < 1:
        raise ValueError(f"dwconv output would be empty ({oh}x{ow})")
    cols = _windows(_pad_hw(x, pads, 0), kh, kw, stride, dilation, oh, ow)  # (oh,ow,kh,kw,c)
    if x.dtype.kind == "f":
        out = np.einsum("yxijc,ijc->yxc", cols.astype(np.float32), w.astype(np.float32))
        return out if acc is None else acc.astype(np.float32) + out
    out = np.einsum("yxijc,ijc->yxc", cols.astype(np.int64), w.astype(np.int64))
    if acc is not None:
        out = out + acc.reshape(oh, ow, c).astype(np.int64)
    return wrap_int32(out)


# ------------------------------------------------------------------ vector unit

ELEMENTWISE = {
    "vadd": lambda a, b: a + b,
    "vsub": lambda a, b: a - b,
    "vmul": lambda a, b: a * b,
    "vmax": np.maximum,
    "vmin": np.minimum,
}


def elementwise(op: str, a: np.ndarray, b: np.ndarray, dtype) -> np.ndarray:
    """Binary vector op computed exactly, saturated to the destination dtype."""
    wide = np.float64 if np.dtype(dtype).kind == "f" else np.int64
    return saturate(ELEMENTWISE[op](a.astype(wide), b.astype(wide)), dtype)


def relu(a: np.ndarray, dtype) -> np.ndarray:
    return saturate(np.maximum(a.astype(np.int64) if a.dtype.kind != "f" else a, 0), dtype)


def clip(a: np.ndarray, lo: int, hi: int, dtype) -> np.ndarray:
    wide = a.astype(np.int64) if a.dtype.kind != "f" else a
    return saturate(np.minimum(np.maximum(wide, lo), hi), dtype)


def shift_right(a: np.ndarray, shift: int, dtype) -> np.ndarray:
    return saturate(round_shift(a, shift), dtype)


def bias_add(a: np.ndarray, bias: np.ndarray, channels: int, dtype) -> np.ndarray:
    wide = np.float64 if a.dtype.kind == "f" else np.int64
    idx = np.arange(a.size) % channels
    return saturate(a.astype(wide) + bias.astype(wide)[idx], dtype)


def requantize(acc: np.ndarray, mult: np.ndarray, shift: np.ndarray, zp: int,
               relu: bool, channels: int, bias: np.ndarray | None = None) -> np.ndarray:
    """int32 -> int8: sat8(round_shift(acc * mult[c], shift[c]) + zp), c = i % channels.

    `mult` is a signed int32 multiplier, `shift` in 0..63; relu clamps below at zp. With
    `bias` (vrequant bias=1) acc[i] is first sat32(acc[i] + bias[c]): exactly what vbias
    into an int32 buffer hands a following vrequant.
    """
    c = np.arange(acc.size) % channels
    if bias is not None:
        acc = bias_add(acc, bias, channels, np.int32)
    y = round_shift(acc.astype(np.int64) * mult.astype(np.int64)[c], shift.astype(np.int64)[c])
    y = y + zp
    if relu:
        y = np.maximum(y, zp)
    return saturate(y, np.int8)


def lut(a: np.ndarray, table: np.ndarray) -> np.ndarray:
    """256-entry table lookup indexed by the int8 value + 128."""
    return table[a.astype(np.int64) + 128].astype(table.dtype)


def pool(kind: str, x: np.ndarray, kernel=(1, 1), stride=(1, 1), pads=(0, 0, 0, 0),
         dtype=None) -> np.ndarray:
    """HWC max or sum pooling; max ignores padding, sum pads with zero."""
    dtype = dtype or x.dtype
    kh, kw = kernel
    oh = conv_out_size(x.shape[0], kh, stride[0], pads[0], pads[2], 1)
    ow = conv_out_size(x.shape[1], kw, stride[1], pads[1], pads[3], 1)
    if oh < 1 or ow < 1:
        raise ValueError(f"pool output would be empty ({oh}x{ow})")
    if kind == "max":
        fill = -np.inf if x.dtype.kind == "f" else np.iinfo(np.int64).min
        wide = x.astype(np.float64 if x.dtype.kind == "f" else np.int64)
        win = _windows(_pad_hw(wide, pads, fill), kh, kw, stride, (1, 1), oh, ow)
        return saturate(win.max(axis=(2, 3)), dtype)
    wide = x.astype(np.float64 if x.dtype.kind == "f" else np.int64)
    win = _windows(_pad_hw(wide, pads, 0), kh, kw, stride, (1, 1), oh, ow)
    return saturate(win.sum(axis=(2, 3)), dtype)


# ------------------------------------------------------------------ DMA

def dma_byte_addresses(addr: int, planes: int, plane_stride: int, rows: int, stride: int,
                       row_bytes: int) -> np.ndarray:
    """(planes, rows, row_bytes) DRAM byte addresses a load reads or a store writes: rows
    `stride` bytes apart, planes `plane_stride` bytes apart, `row_bytes` contiguous bytes a
    row. A load gathers mem[addresses]; a store scatters into them, in plane, row, byte order
    (a later row wins where strides make rows overlap)."""
    p = np.arange(planes, dtype=np.int64)[:, None, None] * plane_stride
    r = np.arange(rows, dtype=np.int64)[None, :, None] * stride
    b = np.arange(row_bytes, dtype=np.int64)[None, None, :]
    return addr + p + r + b


def dma_pad(tile: np.ndarray, pad_top: int, pad_bottom: int, pad_left: int,
            pad_right: int) -> np.ndarray:
    """A load's SRAM image of (planes, rows, cols) data: every plane framed by zero rows above
    and below and zero elements left and right of each row, written plane after plane as
    (planes, pad_top + rows + pad_bottom, pad_left + cols + pad_right), row-major."""
    return np.pad(tile, ((0, 0), (pad_top, pad_bottom), (pad_left, pad_right)),
                  constant_values=0)


# ------------------------------------------------------------------ transformer: row operations
# A rows x cols tile is row-major at src0; per-row values (rows of them) are at src1 or dst.
# Sums and products are exact in int64, then saturate to the destination, as everywhere.

def row_max(a: np.ndarray, rows: int, cols: int, dtype) -> np.ndarray:
    """vrmax: dst[r] = max_c src0[r, c], saturated to `dtype` (rows values)."""
    wide = np.float64 if a.dtype.kind == "f" else np.int64
    return saturate(a.astype(wide).reshape(rows, cols).max(axis=1), dtype)


def row_sum(a: np.ndarray, rows: int, cols: int, dtype) -> np.ndarray:
    """vrsum: dst[r] = sat(sum_c src0[r, c]) (rows values); the sum is exact (|.| < 2^43)
    and saturates once, at the end, so an int8 destination clamps the total, not a partial."""
    wide = np.float64 if a.dtype.kind == "f" else np.int64
    return saturate(a.astype(wide).reshape(rows, cols).sum(axis=1), dtype)


def row_sub(a: np.ndarray, v: np.ndarray, rows: int, cols: int, dtype) -> np.ndarray:
    """vrsub: dst[r, c] = sat(src0[r, c] - src1[r]) (subtract each row's max before vexp)."""
    wide = np.float64 if a.dtype.kind == "f" else np.int64
    out = a.astype(wide).reshape(rows, cols) - v.astype(wide)[:rows, None]
    return saturate(out.reshape(-1), dtype)


def row_mul(a: np.ndarray, v: np.ndarray, shift: int, rows: int, cols: int,
            dtype) -> np.ndarray:
    """vrmul: dst[r, c] = sat(round_shift(src0[r, c] * src1[r], shift)), shift 0..31 rounding
    half up; the int32 x int32 product is exact (|.| <= 2^62, so adding the rounding half
    cannot overflow int64). In fp16 mode: src0 * src1[r], `shift` ignored."""
    if a.dtype.kind == "f":
        out = a.astype(np.float64).reshape(rows, cols) * v.astype(np.float64)[:rows, None]
        return saturate(out.reshape(-1), dtype)
    prod = a.astype(np.int64).reshape(rows, cols) * v.astype(np.int64)[:rows, None]
    return saturate(round_shift(prod, shift).reshape(-1), dtype)


# ------------------------------------------------------------------ transformer: non-linear steps
# Integer-only exp, reciprocal and 1/sqrt of int32 fixed-point values, computed in int64 exactly
# as the RTL lanes do (rtl/vector_lane.v): every product of two operands below fits in 63 bits
# and every rounding is round_shift (half up). Q<f> means a value v stands for v / 2^f.
# Error bounds against the real function are measured by tests/isa/test_transformer_math.py.

LOG2E_Q30 = 1549082005      # round(log2(e) * 2^30)
EXP_T_FRAC = 20             # the base-2 exponent t = -x * log2(e) is kept in Q20
EXP_X_FLOOR = 32            # inputs below -32 (real) are clamped: exp(-32) * 2^30 < 2^-16
# 2^-g for g in [0, 1): a degree-4 polynomial, Horner from the highest coefficient, each
# coefficient round(c * 2^30) of a near-minimax fit with p(0) = 1 exactly, so exp(0) is exact
# (relative error 3.0e-6)
EXP_POLY_Q30 = (7336377, -57149796, 257115629, -744171517, 1073741824)
# reciprocal seed r0 = 24/17 - 8/17 * m on the mantissa m in [1, 2) (relative error <= 1/17)
RECIP_SEED_Q30 = (1515870810, 505290270)
RECIP_NEWTON_STEPS = 3      # 1/17 -> 3.5e-3 -> 1.2e-5 -> 1.5e-10
# 1/sqrt seed a - b * m on m in [1, 2) and on [2, 4) (relative error <= 0.0235 on each)
RSQRT_SEED_Q30 = ((1357332273, 307491271), (959778855, 108714582))
RSQRT_NEWTON_STEPS = 3      # 0.0235 -> 8.3e-4 -> 1.0e-6 -> 1.6e-12


def _bit_length(a: np.ndarray) -> np.ndarray:
    """Bits of each non-negative int64 below 2^53 (0 for 0), exactly, via the float exponent."""
    return np.frexp(a.astype(np.float64))[1].astype(np.int64)


def _shift_out(r: np.ndarray, s: np.ndarray) -> np.ndarray:
    """r * 2^-s for a Q30 result r: round_shift for s >= 0 (s capped at 63, where every r
    rounds to 0), an exact left shift for s < 0 (-s <= 32, so r << -s < 2^63)."""
    right = round_shift(r, np.clip(s, 0, 63))
    left = np.left_shift(r, np.clip(-s, 0, 32))
    return np.where(s >= 0, right, left)


def exp_fixed(x: np.ndarray, in_frac: int, out_frac: int) -> np.ndarray:
    """vexp: y = exp(x) of a non-positive Q<in_frac> int32 input, as Q<out_frac> (int64, not
    yet saturated); positive inputs are clamped to 0 (exp(0) = 2^out_frac), so y <= 2^30.

    t = round_shift(-x * LOG2E_Q30, in_frac + 30 - 20) is -x * log2(e) in Q20 (x first
    clamped at -32 real, below which every output rounds to 0); with z = t >> 20 and
    g = t & (2^20 - 1), y = round_shift(p(g), z + 30 - out_frac) where p(g) ~ 2^-g in Q30
    is EXP_POLY_Q30 by Horner, acc = c + round_shift(acc * g, 20). Error against
    exp(x / 2^in_frac) * 2^out_frac: at most 0.5 LSB of rounding plus 4e-6 relative (tests/isa/test_transformer_math.py)."""
    x = np.minimum(np.asarray(x, dtype=np.int64), 0)
    x = np.maximum(x, -(EXP_X_FLOOR << in_frac))
    t = round_shift(-x * LOG2E_Q30, in_frac + 30 - EXP_T_FRAC)
    z = t >> EXP_T_FRAC
    g = t & ((1 << EXP_T_FRAC) - 1)
    acc = np.full_like(t, EXP_POLY_Q30[0])
    for c in EXP_POLY_Q30[1:]:
        acc = c + round_shift(acc * g, EXP_T_FRAC)
    return round_shift(acc, np.minimum(z + 30 - out_frac, 63))


def recip_fixed(x: np.ndarray, in_frac: int, out_frac: int) -> np.ndarray:
    """vrecip: y = 1 / x of a Q<in_frac> int32 input as Q<out_frac>, i.e. about
    2^(in_frac + out_frac) / x (int64, not yet saturated); x = 0 gives INT32_MAX and a
    negative x the negated result of |x| (INT32_MIN is taken as -INT32_MAX).

    |x| = m * 2^(e - 30) with m in [2^30, 2^31) (Q30 mantissa in [1, 2)); the seed
    r = 24/17 - 8/17 m (RECIP_SEED_Q30) takes RECIP_NEWTON_STEPS Newton steps
    r = round_shift(r * (2^31 - round_shift(m * r, 30)), 30), then
    y = r * 2^(in_frac + out_frac - e - 30) (round_shift, or an exact left shift).
    Error against 2^(in_frac + out_frac) / x: at most 0.5 LSB plus 2^-27 relative."""
    x = np.asarray(x, dtype=np.int64)
    a = np.minimum(np.abs(x), INT32_MAX)
    e = np.maximum(_bit_length(a) - 1, 0)
    m = np.left_shift(a, 30 - e)
    r = RECIP_SEED_Q30[0] - round_shift(RECIP_SEED_Q30[1] * m, 30)
    for _ in range(RECIP_NEWTON_STEPS):
        r = round_shift(r * ((2 << 30) - round_shift(m * r, 30)), 30)
    y = _shift_out(r, 30 + e - (in_frac + out_frac))
    return np.where(x == 0, INT32_MAX, np.where(x < 0, -y, y))


def rsqrt_fixed(x: np.ndarray, in_frac: int, out_frac: int) -> np.ndarray:
    """vrsqrt: y = 1 / sqrt(x) of a positive Q<in_frac> int32 input as Q<out_frac> (int64,
    not yet saturated); x <= 0 gives INT32_MAX.

    An odd in_frac is made even by doubling x (X = x << (in_frac & 1), F = in_frac rounded
    up to even); X = m * 2^(e - 30) with e even and m in [2^30, 2^32) (Q30 in [1, 4)); the
    seed a - b m (RSQRT_SEED_Q30, by m < 2^31 or not) takes RSQRT_NEWTON_STEPS Newton steps
    r = round_shift(r * (3 * 2^30 - round_shift(m * round_shift(r * r, 30), 30)), 31), then
    y = r * 2^(out_frac + (F - e) / 2 - 30). Error against 2^out_frac / sqrt(x / 2^in_frac):
    at most 0.5 LSB plus 2^-27 relative."""
    x = np.asarray(x, dtype=np.int64)
    odd = in_frac & 1
    big = np.maximum(x, 1) << odd
    e = (_bit_length(big) - 1) & ~1
    m = np.left_shift(big, 30 - e)
    hi = m >= (1 << 31)
    a = np.where(hi, RSQRT_SEED_Q30[1][0], RSQRT_SEED_Q30[0][0])
    b = np.where(hi, RSQRT_SEED_Q30[1][1], RSQRT_SEED_Q30[0][1])
    r = a - round_shift(b * m, 30)
    for _ in range(RSQRT_NEWTON_STEPS):
        r = round_shift(r * ((3 << 30) - round_shift(m * round_shift(r * r, 30), 30)), 31)
    y = _shift_out(r, 30 - out_frac - (in_frac + odd - e) // 2)
    return np.where(x <= 0, INT32_MAX, y)


def vexp(a: np.ndarray, in_frac: int, out_frac: int, dtype) -> np.ndarray:
    """vexp into `dtype`: exp_fixed saturated; in fp16 mode IEEE exp(x) (any sign, fields
    ignored), rounded to the destination type."""
    if a.dtype.kind == "f":
        return saturate(np.exp(a.astype(np.float64)), dtype)
    return saturate(exp_fixed(a, in_frac, out_frac), dtype)


def vrecip(a: np.ndarray, in_frac: int, out_frac: int, dtype) -> np.ndarray:
    """vrecip into `dtype`: recip_fixed saturated; in fp16 mode IEEE 1 / x (1 / 0 = inf)."""
    if a.dtype.kind == "f":
        with np.errstate(divide="ignore"):
            return saturate(1.0 / a.astype(np.float64), dtype)
    return saturate(recip_fixed(a, in_frac, out_frac), dtype)


def vrsqrt(a: np.ndarray, in_frac: int, out_frac: int, dtype) -> np.ndarray:
    """vrsqrt into `dtype`: rsqrt_fixed saturated; in fp16 mode IEEE 1 / sqrt(x) (inf at 0,
    nan below)."""
    if a.dtype.kind == "f":
        with np.errstate(divide="ignore", invalid="ignore"):
            return saturate(1.0 / np.sqrt(a.astype(np.float64)), dtype)
    return saturate(rsqrt_fixed(a, in_frac, out_frac), dtype)
