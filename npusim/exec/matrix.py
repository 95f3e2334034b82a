"""Functional matrix engine: GEMM and CONV tiles by isa.semantics' rules, costed by isa.timing."""

from __future__ import annotations

import numpy as np

from isa import semantics, timing
from isa.operands import cycle_operands, extents
from npusim.exec import kernels
from npusim.exec.operands import check_limit, check_sram, read, shape_key, writer
from npusim.exec.state import ExecInfo
from npusim.faults import IllegalInstructionError


def _pass_sram_bytes(state, m: int, k: int, n: int, accumulate: bool) -> tuple:
    """Bytes one weight-stationary pass touches by buffer: inputs, weights, accumulator write
    (+ read)."""
    eb, ab = state.elem_bytes["ibuf"], state.elem_bytes["abuf"]
    return (("ibuf", m * k * eb), ("wbuf", k * n * eb),
            ("abuf", m * n * ab * (2 if accumulate else 1)))


def _ws_sram(state, m: int, depths: list, n: int, acc: bool) -> dict:
    """Weight-stationary: one pass per depth (a conv's taps x channel blocks), each streaming
    the m inputs past its k x n weights and accumulating into abuf after the first."""
    sram = dict.fromkeys(("ibuf", "wbuf", "abuf"), 0)
    for i, k in enumerate(depths):
        for buf, nbytes in _pass_sram_bytes(state, m, k, n, acc or i > 0):
            sram[buf] += nbytes
    return sram


def _os_sram(state, m: int, depths: list, n: int, acc: bool) -> dict:
    """Output-stationary: the whole depth streams through each fold of R output rows, so the
    inputs are read once, the weights once per fold, and each output written (read) once."""
    folds = -(-m // state.hw.array_rows)
    sram = dict(_pass_sram_bytes(state, m, sum(depths), n, acc))
    sram["wbuf"] *= folds
    return sram


# SRAM traffic (energy, not cycles: those are the spec's rules) of a tile on each dataflow
SRAM_TRAFFIC = {"ws": _ws_sram, "os": _os_sram}

# the Target limits of isa.checks' TARGET_LIMITS that the engine itself enforces (a program
# that skipped the assembler's checks faults here), with the fix a fault suggests
_ARRAY_LIMITS = {"array_rows": "the array rows", "array_cols": "the array columns",
                 "depthwise_cols": "the depthwise mode's columns (0: the array has none)"}
_LIMIT_HINTS = {"k": "split the reduction into passes with acc=1",
                "n": "split the output columns into tiles",
                "cout": "split the output channels into tiles",
                "channels": "split the channels into tiles; a Target without -depthwise-mode=1 "
                            "runs depthwise convs as block-diagonal conv tiles"}


def _check_array_limits(instr, hw) -> None:
    """The array limits of instr's fields on hw's dataflow (the spec's [dataflow] table)."""
    for name, limit in instr.spec.limits_for(hw.dataflow).items():
        if limit in _ARRAY_LIMITS:
            check_limit(name, instr.fields[name], getattr(hw, limit), _ARRAY_LIMITS[limit],
                        _LIMIT_HINTS.get(name, "split the tile"))


def _conv_shape(instr, state, regs):
    """(((operand, extent count), ...), kh, kw, oh, ow, ExecInfo) of a conv tile; faults
    as the instruction does when its shape is illegal."""
    f = instr.fields
    hw = state.hw
    _check_array_limits(instr, hw)
    ops = cycle_operands(instr, regs)
    oh, ow, kh, kw = ops["oh"], ops["ow"], ops["kh"], ops["kw"]
    cin, cout = f["cin"], f["cout"]
    if oh < 1 or ow < 1:
        raise IllegalInstructionError(
            f"conv output would be empty ({oh}x{ow}): input {f['in_h']}x{f['in_w']} with kernel "
            f"{kh}x{kw}, stride {regs['conv_stride_h']}x{regs['conv_stride_w']}, dilation "
            f"{regs['conv_dilation_h']}x{regs['conv_dilation_w']}",
            hint="check the conv_* registers set by cfg unit=matrix")
    ext = extents(instr, regs)
    sram = SRAM_TRAFFIC[hw.dataflow](state, oh * ow, timing.conv_passes(hw, kh, kw, cin), cout,
                                     bool(f["acc"]))
    info = ExecInfo(timing.cycles(hw, instr, **ops), macs=oh * ow * kh * kw * cin * cout,
                    sram=tuple(sram.items()))
    return tuple((b, ext[b].count) for b in ("ibuf", "wbuf", "abuf")), kh, kw, oh, ow, info


def _im2col(oh, ow, kh, kw, cin, padded_w, stride, dilation) -> np.ndarray:
    """Flat indices into a padded HWC input of each output pixel's window, (oh*ow, kh*kw*cin)
    in the order of isa.semantics.conv2d (rows: pixels; columns: ky, kx, channel)."""
    sh, sw = stride
    dh, dw = dilation
    row = (np.arange(oh)[:, None, None, None, None] * sh
           + np.arange(kh)[None, None, :, None, None] * dh)
    col = (np.arange(ow)[None, :, None, None, None] * sw
           + np.arange(kw)[None, None, None, :, None] * dw)
    idx = (row * padded_w + col) * cin + np.arange(cin)[None, None, None, None, :]
    return idx.reshape(oh * ow, kh * kw * cin)


def _gemm_shape(instr, state, regs):
    """(((operand, extent count), ...), ExecInfo) of a gemm tile; faults as the instruction
    does when its shape exceeds the array."""
    f = instr.fields
    hw = state.hw
    _check_array_limits(instr, hw)
    counts = tuple((name, extent.count)
                   for name, extent in extents(instr, regs).items())
    info = ExecInfo(timing.cycles(hw, instr, **f), macs=f["m"] * f["k"] * f["n"],
                    sram=tuple(SRAM_TRAFFIC[hw.dataflow](state, f["m"], [f["k"]], f["n"],
                                                         bool(f["acc"])).items()))
    return counts, info


def _tile_shape(instr, state, build) -> tuple:
    """(shape key, build(instr, state, registers)) of a matrix tile: everything but the
    addresses follows from the shape fields and the registers, so it is worked out once per
    shape in a run (a layer's tiles repeat a few shapes); the bounds of the result's
    ((operand, extent count), ...) are checked each time."""
    f = instr.fields
    regs = state.regs["matrix"]
    key = (*shape_key(instr, state.hw.dataflow, state.hw.weight_buffers), *regs.values())
    shape = state.shapes.get(key)
    if shape is None:
        shape = state.shapes[key] = build(instr, state, regs)
    for name, count in shape[0]:
        check_sram(state, name, f[name], count, name)
    return key, shape


def gemm(instr, state, dram, timing_only):
    f = instr.fields
    m, k, n = f["m"], f["k"], f["n"]
    _, (_, info) = _tile_shape(instr, state, _gemm_shape)
    if timing_only:
        return info, None
    # computed now, at issue (kernels.gemm makes new arrays): the sources need no copies
    buffers = state.buffers
    a = buffers["ibuf"][f["ibuf"]:f["ibuf"] + m * k].reshape(m, k)
    w = buffers["wbuf"][f["wbuf"]:f["wbuf"] + k * n]
    # wt = 1: the tile is stored n x k (Kᵀ of Q·Kᵀ as DMA loads K, tokens x head_dim)
    w = w.reshape(n, k).T if f["wt"] else w.reshape(k, n)
    acc = buffers["abuf"][f["abuf"]:f["abuf"] + m * n].reshape(m, n) if f["acc"] else None
    out = kernels.gemm(a, w, acc).astype(state.dtypes["abuf"], copy=False)
    return info, writer(state, "abuf", f["abuf"], out)


def conv(instr, state, dram, timing_only):
    f = instr.fields
    regs = state.regs["matrix"]
    key, (_, kh, kw, oh, ow, info) = _tile_shape(instr, state, _conv_shape)
    cin, cout = f["cin"], f["cout"]
    if timing_only:
        return info, None
    # isa.semantics.conv2d's im2col as one gather from the zero-padded input, its indices
    # worked out once per shape; the same (oh*ow, kh*kw*cin) matrix goes to the gemm
    in_h, in_w = f["in_h"], f["in_w"]
    pt, pl, pb, pr = (regs["conv_pad_top"], regs["conv_pad_left"], regs["conv_pad_bottom"],
                      regs["conv_pad_right"])
    x = state.buffers["ibuf"][f["ibuf"]:f["ibuf"] + in_h * in_w * cin]
    if pt or pl or pb or pr:
        # one zero-bordered scratch per shape: only its interior is written, and the gather
        # below copies out of it before anything else can
        padded = state.shapes.get(("padded", key))
        if padded is None:
            padded = state.shapes[("padded", key)] = np.zeros(
                (in_h + pt + pb, in_w + pl + pr, cin), dtype=x.dtype)
        padded[pt:pt + in_h, pl:pl + in_w] = x.reshape(in_h, in_w, cin)
        x = padded.reshape(-1)
    gather = state.shapes.get(("im2col", key))
    if gather is None:
        gather = state.shapes[("im2col", key)] = _im2col(
            oh, ow, kh, kw, cin, in_w + pl + pr, (regs["conv_stride_h"], regs["conv_stride_w"]),
            (regs["conv_dilation_h"], regs["conv_dilation_w"]))
    w = state.buffers["wbuf"][f["wbuf"]:f["wbuf"] + kh * kw * cin * cout]
    acc = state.buffers["abuf"][f["abuf"]:f["abuf"] + oh * ow * cout].reshape(oh * ow, cout) \
        if f["acc"] else None
    # computed now, at issue: the sources need no copy of their own
    out = kernels.gemm(x[gather], w.reshape(kh * kw * cin, cout), acc)
    return info, writer(state, "abuf", f["abuf"], out.astype(state.dtypes["abuf"], copy=False))


def _dwconv_shape(instr, state, regs):
    """(((operand, extent count), ...), kh, kw, oh, ow, ExecInfo) of a depthwise-mode tile;
    faults as the instruction does when its shape is illegal or the array has no depthwise mode."""
    f = instr.fields
    hw = state.hw
    _check_array_limits(instr, hw)
    ops = cycle_operands(instr, regs)
    oh, ow, kh, kw = ops["oh"], ops["ow"], ops["kh"], ops["kw"]
    if oh < 1 or ow < 1:
        raise IllegalInstructionError(
            f"dwconv output would be empty ({oh}x{ow}): input {f['in_h']}x{f['in_w']} with "
            f"kernel {kh}x{kw}", hint="check the conv_* registers set by cfg unit=matrix")
    ext = extents(instr, regs)
    c = f["channels"]
    passes = timing.dwconv_passes(hw, kh, kw)
    eb, ab = state.elem_bytes["ibuf"], state.elem_bytes["abuf"]
    m = oh * ow
    # each pass streams its taps' pixels of every channel (per-PE lanes), preloads its taps'
    # weights and accumulates into abuf after the first
    sram = {"ibuf": m * kh * kw * c * eb, "wbuf": kh * kw * c * eb,
            "abuf": sum(m * c * ab * (2 if f["acc"] or i else 1) for i in range(len(passes)))}
    info = ExecInfo(timing.cycles(hw, instr, **ops), macs=m * kh * kw * c,
                    sram=tuple(sram.items()))
    return tuple((b, ext[b].count) for b in ("ibuf", "wbuf", "abuf")), kh, kw, oh, ow, info


def dwconv(instr, state, dram, timing_only):
    f = instr.fields
    regs = state.regs["matrix"]
    _, (_, kh, kw, oh, ow, info) = _tile_shape(instr, state, _dwconv_shape)
    if timing_only:
        return info, None
    c, in_h, in_w = f["channels"], f["in_h"], f["in_w"]
    x = read(state, "ibuf", f["ibuf"], in_h * in_w * c).reshape(in_h, in_w, c)
    w = read(state, "wbuf", f["wbuf"], kh * kw * c).reshape(kh, kw, c)
    acc = read(state, "abuf", f["abuf"], oh * ow * c).reshape(oh, ow, c) if f["acc"] else None
    pads = tuple(regs[f"conv_pad_{s}"] for s in ("top", "left", "bottom", "right"))
    out = semantics.dwconv2d(x, w, (regs["conv_stride_h"], regs["conv_stride_w"]), pads,
                             (regs["conv_dilation_h"], regs["conv_dilation_w"]), acc)
    return info, writer(state, "abuf", f["abuf"], out.reshape(-1).astype(
        state.dtypes["abuf"], copy=False))
