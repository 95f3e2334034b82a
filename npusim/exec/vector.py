"""Functional vector unit: every VECTOR instruction through isa.semantics, costed by isa.timing."""

from __future__ import annotations

import numpy as np

from isa import semantics, timing
from isa.operands import cycle_operands, extents
from npusim.exec import kernels
from npusim.exec.operands import check_sram, read, require_int_mode, shape_key, writer
from npusim.exec.state import ExecInfo
from npusim.faults import IllegalInstructionError

REQUANT_SHIFT_MAX = 63  # the rounding shifter's range (isa.semantics.requantize)


def _operands(instr, state):
    """Check every operand's extent (isa.operands.extents); return ({field: buffer name},
    {field: element count})."""
    f = instr.fields
    names, counts = {}, {}
    for field, extent in extents(instr, state.regs["vector"]).items():
        buf = state.buf_names[f[field + "_buf"]]
        check_sram(state, buf, f[field], extent.count, field)
        names[field], counts[field] = buf, extent.count
    return names, counts


def _shaped(instr, state):
    """(names, counts, ExecInfo) of a len-vector or row-wise instruction, after checking every operand's
    extent: all but the addresses follow from the shape (shape_key), so the extents and the
    cost are worked out once per shape in a run; the bounds are checked every time."""
    key = shape_key(instr)
    shape = state.shapes.get(key)
    if shape is None:
        names, counts = _operands(instr, state)
        f = instr.fields
        ops = f["len"] if "len" in f else f["rows"] * f["cols"]  # a row-wise tile: rows x cols
        info = ExecInfo(timing.cycles(state.hw, instr, **f), vector_ops=ops,
                        sram=_bytes(state, names, counts))
        shape = state.shapes[key] = (names, counts, info)
        return shape
    names, counts, _ = shape
    f = instr.fields
    for field, buf in names.items():
        check_sram(state, buf, f[field], counts[field], field)
    return shape


def _bytes(state, names: dict, counts: dict) -> tuple:
    """((buffer, bytes), ...) of every operand, in operand order."""
    return tuple((names[k], state.elem_bytes[names[k]] * c) for k, c in counts.items())


def _unary(compute):
    def handler(instr, state, dram, timing_only):
        f = instr.fields
        n = f["len"]
        names, counts, info = _shaped(instr, state)
        if timing_only:
            return info, None
        a = read(state, names["src0"], f["src0"], n)
        out = compute(a, f, state.dtypes[names["dst"]])
        return info, writer(state, names["dst"], f["dst"], out)
    return handler


def _binary(compute):
    def handler(instr, state, dram, timing_only):
        f = instr.fields
        n = f["len"]
        names, counts, info = _shaped(instr, state)
        m = counts["src1"]
        if timing_only:
            return info, None
        a = read(state, names["src0"], f["src0"], n)
        b = read(state, names["src1"], f["src1"], m)
        out = compute(a, b, f, state.dtypes[names["dst"]])
        return info, writer(state, names["dst"], f["dst"], out)
    return handler


def _elementwise(op):
    return _binary(lambda a, b, f, dt: kernels.elementwise(op, a, b, dt))


def vrequant(instr, state, dram, timing_only):
    require_int_mode(state, "vrequant")
    f = instr.fields
    n, c = f["len"], f["channels"]
    names, counts, info = _shaped(instr, state)
    if names["src1"] != "abuf":
        raise IllegalInstructionError(
            f"vrequant reads its (mult, shift) int32 pairs from abuf, not {names['src1']}",
            hint="load the requantization table into abuf and point src1 at it")
    if timing_only:
        return info, None
    # computed now, at issue: the sources need no copy of their own
    a = state.buffers[names["src0"]][f["src0"]:f["src0"] + n]
    width = 3 if f.get("bias") else 2  # (bias, mult, shift) triples or (mult, shift) pairs
    params = state.buffers["abuf"][f["src1"]:f["src1"] + width * c]
    # a layer's table serves all its tiles: checked and widened once per distinct table
    key = ("vrequant", width, params.tobytes())
    table = state.shapes.get(key)
    if table is None:
        mult, shift = params[width - 2::width], params[width - 1::width]
        bad = np.flatnonzero((shift < 0) | (shift > REQUANT_SHIFT_MAX))
        if bad.size:
            i = int(bad[0])
            raise IllegalInstructionError(
                f"vrequant shift of channel {i} is {int(shift[i])}, outside "
                f"0..{REQUANT_SHIFT_MAX} (abuf[{f['src1'] + width * i + width - 1}])",
                hint="check the requantization table in abuf")
        table = state.shapes[key] = (mult.copy(), shift.copy(), kernels.requant_table(mult, shift),
                                     params[0::3].copy() if width == 3 else None)
    if table[3] is not None:  # the bias add of vbias into abuf, saturating to int32
        a = kernels.bias_add(a, table[3], c, np.int32)
    if n % c:
        out = kernels.requantize(a, table[0], table[1], f["zp"], bool(f["relu"]), c)
    else:
        out = kernels.requantize_by(a, table[2], f["zp"], bool(f["relu"]))
    dtype = state.dtypes[names["dst"]]
    # requantize saturates to int8 already: saturating again to an int8 buffer is the identity
    return info, writer(state, names["dst"], f["dst"],
                        out if out.dtype == dtype else semantics.saturate(out, dtype))


def vlut(instr, state, dram, timing_only):
    require_int_mode(state, "vlut")
    f = instr.fields
    for field in ("src0", "src1"):
        if state.buf_names[f[field + "_buf"]] == "abuf":
            raise IllegalInstructionError(
                f"vlut {field} must be an int8 buffer (ibuf, wbuf, obuf), not abuf",
                hint="vcopy the values to an int8 buffer first")
    return _LUT(instr, state, dram, timing_only)


_LUT = _binary(lambda a, t, f, dt: semantics.saturate(semantics.lut(a, t), dt))


def _pool(kind):
    def handler(instr, state, dram, timing_only):
        f = instr.fields
        regs = state.regs["vector"]
        ops = cycle_operands(instr, regs)
        oh, ow, kh, kw, c = ops["oh"], ops["ow"], ops["kh"], ops["kw"], f["channels"]
        if oh < 1 or ow < 1:
            raise IllegalInstructionError(
                f"{instr.mnemonic} output would be empty ({oh}x{ow}): input {f['in_h']}x{f['in_w']}"
                f" with window {kh}x{kw}", hint="check the pool_* registers set by cfg unit=vector")
        names, counts = _operands(instr, state)
        src, dst = names["src0"], names["dst"]
        window_ops = oh * ow * kh * kw * c
        info = ExecInfo(timing.cycles(state.hw, instr, **ops), vector_ops=window_ops,
                        sram=((src, window_ops * state.elem_bytes[src]),
                              (dst, counts["dst"] * state.elem_bytes[dst])))
        if timing_only:
            return info, None
        x = read(state, src, f["src0"], f["in_h"] * f["in_w"] * c).reshape(f["in_h"], f["in_w"], c)
        out = semantics.pool(kind, x, kernel=(kh, kw),
                             stride=(regs["pool_stride_h"], regs["pool_stride_w"]),
                             pads=(regs["pool_pad_top"], regs["pool_pad_left"],
                                   regs["pool_pad_bottom"], regs["pool_pad_right"]),
                             dtype=state.dtypes[dst])
        return info, writer(state, dst, f["dst"], out)
    return handler


def _vshr(instr, state, dram, timing_only):
    require_int_mode(state, "vshr")
    return _SHR(instr, state, dram, timing_only)


_SHR = _unary(lambda a, f, dt: semantics.shift_right(a, f["shift"], dt))


def _rowwise(compute):
    """Handler of a rows x cols row-wise instruction (vrmax, vrsum, vrsub, vrmul): src0 is the
    tile, src1 (when the format has it) the rows per-row values."""
    def handler(instr, state, dram, timing_only):
        f = instr.fields
        rows, cols = f["rows"], f["cols"]
        names, counts, info = _shaped(instr, state)
        if timing_only:
            return info, None
        a = read(state, names["src0"], f["src0"], rows * cols)
        b = read(state, names["src1"], f["src1"], rows) if "src1" in names else None
        out = compute(a, b, f, state.dtypes[names["dst"]])
        return info, writer(state, names["dst"], f["dst"], out)
    return handler


def _nonlinear(fn):
    """Handler of vexp/vrecip/vrsqrt: `fn(a, in_frac, out_frac, dtype)` of isa.semantics."""
    return _unary(lambda a, f, dt: fn(a, f["in_frac"], f["out_frac"], dt))


HANDLERS = {
    "vadd": _elementwise("vadd"), "vsub": _elementwise("vsub"), "vmul": _elementwise("vmul"),
    "vmax": _elementwise("vmax"), "vmin": _elementwise("vmin"),
    "vrelu": _unary(lambda a, f, dt: semantics.relu(a, dt)),
    "vclip": _unary(lambda a, f, dt: semantics.clip(a, f["lo"], f["hi"], dt)),
    "vshr": _vshr,
    "vcopy": _unary(lambda a, f, dt: semantics.saturate(a, dt)),
    "vbias": _binary(lambda a, b, f, dt: kernels.bias_add(a, b, f["channels"], dt)),
    "vrequant": vrequant,
    "vlut": vlut,
    "vmaxpool": _pool("max"), "vsumpool": _pool("sum"),
    "vrmax": _rowwise(lambda a, b, f, dt: semantics.row_max(a, f["rows"], f["cols"], dt)),
    "vrsum": _rowwise(lambda a, b, f, dt: semantics.row_sum(a, f["rows"], f["cols"], dt)),
    "vrsub": _rowwise(lambda a, b, f, dt: semantics.row_sub(a, b, f["rows"], f["cols"], dt)),
    "vrmul": _rowwise(lambda a, b, f, dt: semantics.row_mul(a, b, f["shift"], f["rows"],
                                                            f["cols"], dt)),
    "vexp": _nonlinear(semantics.vexp),
    "vrecip": _nonlinear(semantics.vrecip),
    "vrsqrt": _nonlinear(semantics.vrsqrt),
}
