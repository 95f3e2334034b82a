"""Functional matrix engine: GEMM and CONV tiles through isa.semantics, costed by isa.timing."""

from __future__ import annotations

from isa import semantics, timing
from isa.operands import cycle_operands, extents
from npusim.exec.operands import check_limit, check_sram, read, writer
from npusim.exec.state import ExecInfo
from npusim.faults import IllegalInstructionError


def _pass_sram_bytes(state, m: int, k: int, n: int, accumulate: bool) -> int:
    """Bytes one weight-stationary pass touches: inputs, weights, accumulator write (+ read)."""
    eb, ab = state.elem_bytes["ibuf"], state.elem_bytes["abuf"]
    return (m * k + k * n) * eb + m * n * ab * (2 if accumulate else 1)


def _conv_shape(instr, state, regs):
    """(extent counts of ibuf/wbuf/abuf, kh, kw, oh, ow, ExecInfo) of a conv tile; faults
    as the instruction does when its shape is illegal."""
    f = instr.fields
    hw = state.hw
    check_limit("cout", f["cout"], hw.array_cols, "the array columns",
                "split the output channels into tiles")
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
    passes = timing.conv_passes(hw, kh, kw, cin)
    sram = sum(_pass_sram_bytes(state, oh * ow, k, cout, bool(f["acc"]) or i > 0)
               for i, k in enumerate(passes))
    info = ExecInfo(timing.cycles(hw, instr, **ops), macs=oh * ow * kh * kw * cin * cout,
                    sram_bytes=sram)
    return (ext["ibuf"].count, ext["wbuf"].count, ext["abuf"].count), kh, kw, oh, ow, info


def gemm(instr, state, dram, timing_only):
    f = instr.fields
    m, k, n = f["m"], f["k"], f["n"]
    hw = state.hw
    check_limit("k", k, hw.array_rows, "the array rows", "split the reduction into passes with acc=1")
    check_limit("n", n, hw.array_cols, "the array columns", "split the output columns into tiles")
    for name, extent in extents(instr, state.regs["matrix"]).items():
        check_sram(state, name, f[name], extent.count, name)
    info = ExecInfo(timing.cycles(hw, instr, **f), macs=m * k * n,
                    sram_bytes=_pass_sram_bytes(state, m, k, n, bool(f["acc"])))
    if timing_only:
        return info, None
    a = read(state, "ibuf", f["ibuf"], m * k).reshape(m, k)
    w = read(state, "wbuf", f["wbuf"], k * n).reshape(k, n)
    acc = read(state, "abuf", f["abuf"], m * n).reshape(m, n) if f["acc"] else None
    out = semantics.gemm(a, w, acc).astype(state.dtypes["abuf"], copy=False)
    return info, writer(state, "abuf", f["abuf"], out)


def conv(instr, state, dram, timing_only):
    f = instr.fields
    regs = state.regs["matrix"]
    # everything but the addresses follows from the shape fields and the registers: worked out
    # once per shape in a run (a layer's tiles repeat a few shapes), the bounds checked each time
    key = ("conv", f["in_h"], f["in_w"], f["cin"], f["cout"], f["acc"], *regs.values())
    shape = state.shapes.get(key)
    if shape is None:
        shape = state.shapes[key] = _conv_shape(instr, state, regs)
    counts, kh, kw, oh, ow, info = shape
    check_sram(state, "ibuf", f["ibuf"], counts[0], "ibuf")
    check_sram(state, "wbuf", f["wbuf"], counts[1], "wbuf")
    check_sram(state, "abuf", f["abuf"], counts[2], "abuf")
    cin, cout = f["cin"], f["cout"]
    if timing_only:
        return info, None
    x = read(state, "ibuf", f["ibuf"], f["in_h"] * f["in_w"] * cin).reshape(f["in_h"], f["in_w"], cin)
    w = read(state, "wbuf", f["wbuf"], kh * kw * cin * cout).reshape(kh, kw, cin, cout)
    acc = read(state, "abuf", f["abuf"], oh * ow * cout).reshape(oh, ow, cout) if f["acc"] else None
    out = semantics.conv2d(
        x, w, stride=(regs["conv_stride_h"], regs["conv_stride_w"]),
        pads=(regs["conv_pad_top"], regs["conv_pad_left"], regs["conv_pad_bottom"],
              regs["conv_pad_right"]),
        dilation=(regs["conv_dilation_h"], regs["conv_dilation_w"]), acc=acc)
    return info, writer(state, "abuf", f["abuf"], out.astype(state.dtypes["abuf"], copy=False))
