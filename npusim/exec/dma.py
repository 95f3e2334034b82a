"""Functional DMA: 2-D/3-D strided DRAM <-> SRAM copies with zero padding on load."""

from __future__ import annotations

import numpy as np

from isa import timing
from isa.operands import dma_elems
from npusim.exec.operands import check_sram, shape_key, writer
from npusim.exec.state import ExecInfo
from npusim.faults import IllegalInstructionError, MemoryFault
from npusim.memory import le_dtype


def _channel(state, chan: int) -> dict:
    unit = f"dma{chan}"
    if unit not in state.regs:
        raise IllegalInstructionError(
            f"DMA channel chan={chan} does not exist: this Target has dma-engines="
            f"{state.target.dma_engines}", hint=f"use chan=0..{state.target.dma_engines - 1}")
    return state.regs[unit]


def _geometry(instr, state):
    """(buffer, element bytes, planes, plane stride) after the alignment checks."""
    f = instr.fields
    regs = _channel(state, f["chan"])
    buf = state.buf_names[f["buf"]]
    eb = state.elem_bytes[buf]
    planes, plane_stride = regs["dma_planes"], regs["dma_plane_stride"]
    # The DRAM port moves whole elements; an address or stride inside an element is a bus error.
    for name, value, used in (("dram", f["dram"], True), ("stride", f["stride"], f["rows"] > 1),
                              ("dma_plane_stride", plane_stride, planes > 1)):
        if used and value % eb:
            raise MemoryFault(f"misaligned DRAM {name} {value}: {buf} elements are {eb} bytes",
                              hint=f"make {name} a multiple of {eb}")
    return buf, eb, planes, plane_stride


def _shape(instr, state, dram, load: bool):
    """(buf, element bytes, planes, plane stride, DRAM count, SRAM extent, ExecInfo) of a
    load or store after its checks. All but the addresses follow from the shape fields and
    the channel's registers: worked out once per shape in a run; the address checks (DRAM
    alignment and bounds, the SRAM extent) run every time, in the order they always did."""
    f = instr.fields
    regs = _channel(state, f["chan"])
    key = (*shape_key(instr), regs["dma_planes"], regs["dma_plane_stride"])
    shape = state.shapes.get(key)
    if shape is None:
        buf, eb, planes, plane_stride = _geometry(instr, state)
        count, extent, fill = dma_elems(f, planes)
        nbytes = count * eb
        info = ExecInfo(timing.cycles(state.hw, instr, bytes=nbytes, fill=fill),
                        dram_bytes=nbytes, sram=((buf, (extent if load else count) * eb),),
                        fill_elems=fill if load else 0)
        shape = state.shapes[key] = (buf, eb, planes, plane_stride, count,
                                     extent if load else count, info)
    elif f["dram"] % shape[1]:  # the one alignment check of _geometry on an address
        _geometry(instr, state)
    buf, eb, planes, plane_stride, count, extent, info = shape
    check_sram(state, buf, f["sram"], extent, "sram")
    # checked before the timing-only return, so both modes fault alike
    dram.check_strided(f["dram"], planes, plane_stride, f["rows"], f["stride"], f["cols"] * eb)
    return shape


def dma_load(instr, state, dram, timing_only):
    f = instr.fields
    buf, eb, planes, plane_stride, count, extent, info = _shape(instr, state, dram, True)
    rows, cols = f["rows"], f["cols"]
    pt, pb, pl, pr = f["pad_top"], f["pad_bottom"], f["pad_left"], f["pad_right"]
    prow, pcol = pt + rows + pb, pl + cols + pr
    if timing_only:
        return info, None
    raw = dram.strided(f["dram"], planes, plane_stride, rows, f["stride"], cols * eb)
    if prow != rows or pcol != cols:
        # copied into the zero-padded tile now: the load reads DRAM when it issues
        tile = np.zeros((planes, prow, pcol), dtype=state.dtypes[buf])
        tile[:, pt:pt + rows, pl:pl + cols] = raw.view(le_dtype(state.dtypes[buf]))
    else:
        # np.array copies: the load reads DRAM when it issues, even if the region changes
        # later; C order, since a stride-0 view (rows repeated: a broadcast) copies in 'K'
        # order as-is
        tile = np.array(raw, order="C").view(le_dtype(state.dtypes[buf])).reshape(
            planes, rows, cols).astype(state.dtypes[buf], copy=False)
    return info, writer(state, buf, f["sram"], tile)


def dma_store(instr, state, dram, timing_only):
    f = instr.fields
    buf, eb, planes, plane_stride, count, _, info = _shape(instr, state, dram, False)
    rows, cols = f["rows"], f["cols"]
    if timing_only:
        return info, None
    src = state.buffers[buf][f["sram"]:f["sram"] + count].astype(le_dtype(state.dtypes[buf]))
    raw = src.view(np.uint8).reshape(planes, rows, cols * eb)

    def commit():
        dram.strided(f["dram"], planes, plane_stride, rows, f["stride"], cols * eb)[...] = raw
    return info, commit
