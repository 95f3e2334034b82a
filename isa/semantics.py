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
               relu: bool, channels: int) -> np.ndarray:
    """int32 -> int8: sat8(round_shift(acc * mult[c], shift[c]) + zp), c = i % channels.

    `mult` is a signed int32 multiplier, `shift` in 0..63; relu clamps below at zp.
    """
    c = np.arange(acc.size) % channels
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
