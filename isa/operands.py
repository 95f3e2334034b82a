"""What one instruction touches, from its fields and its unit's config registers: window output
sizes, the elements of each SRAM operand, a DMA's DRAM bytes and zero fill, and the named
quantities the cycle rules (isa.timing) read. The assembler's checks, the simulator and the
compiler all count with these functions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from isa.semantics import conv_out_size

# src1 of these vector instructions is a per-channel table, not a vector of len elements
# (vrequant bias=1: (bias, mult, shift) triples)
_SRC1_TABLES = {"vrequant": (lambda f: (3 if f.get("bias") else 2) * f["channels"],
                             lambda f: "3*channels (bias, mult, shift)" if f.get("bias")
                             else "2*channels (mult, shift)"),
                "vbias": (lambda f: f["channels"], "channels"),
                "vlut": (lambda f: 256, "256-entry table")}


@dataclass(frozen=True)
class Extent:
    """Elements an SRAM operand touches from its address, and how they were counted."""

    count: int
    formula: str


def window_out_hw(kind: str, fields: Mapping[str, int],
                  regs: Mapping[str, int]) -> tuple[int, int]:
    """Output height and width of a conv or pool tile (kind "conv"/"pool") from its input size
    fields and the unit's conv_*/pool_* registers; pooling has no dilation."""
    r = {k: regs[f"{kind}_{k}"] for k in ("kh", "kw", "stride_h", "stride_w", "pad_top",
                                          "pad_left", "pad_bottom", "pad_right")}
    dil = (regs["conv_dilation_h"], regs["conv_dilation_w"]) if kind == "conv" else (1, 1)
    return (conv_out_size(fields["in_h"], r["kh"], r["stride_h"], r["pad_top"], r["pad_bottom"],
                          dil[0]),
            conv_out_size(fields["in_w"], r["kw"], r["stride_w"], r["pad_left"], r["pad_right"],
                          dil[1]))


def dma_elems(fields: Mapping[str, int], planes: int) -> tuple[int, int, int]:
    """(DRAM elements, SRAM elements, fill elements) of a load/store of `planes` planes.

    DRAM moves planes x rows x cols (padding excluded); SRAM holds every plane's padded tile,
    planes x (pad_top + rows + pad_bottom) x (pad_left + cols + pad_right); the zero fill
    walks that whole tile when the load has any padding, and nothing otherwise (a store, or a
    load without padding, writes no zeros)."""
    rows, cols, get = fields["rows"], fields["cols"], fields.get
    pt, pb = get("pad_top", 0), get("pad_bottom", 0)  # a store has no pad fields
    pl, pr = get("pad_left", 0), get("pad_right", 0)
    sram = planes * (pt + rows + pb) * (pl + cols + pr)
    return planes * rows * cols, sram, sram if pt or pb or pl or pr else 0


def src1_elems(mnemonic: str, fields: Mapping[str, int]) -> int:
    """Elements of a binary vector instruction's src1: a per-channel table or len."""
    table = _SRC1_TABLES.get(mnemonic)
    return table[0](fields) if table else fields["len"]


def window_kind(instr) -> str | None:
    """"conv" or "pool" for the instructions whose output size the unit's window registers set."""
    if instr.mnemonic in ("conv", "dwconv"):  # both read the conv_* registers
        return "conv"
    return "pool" if instr.spec.format == "pool" else None


def cycle_operands(instr, regs: Mapping[str, int], elem_bytes: int = 1) -> dict:
    """The named quantities of `instr` the spec's [timing] formulas use: its fields, plus
    oh, ow, kh, kw and m = oh * ow of a conv/pool window, and bytes and fill of a DMA
    (`elem_bytes`: bytes of one element of the DMA's buffer). `regs`: its unit's registers."""
    ops = dict(instr.fields)
    kind = window_kind(instr)
    if kind:
        oh, ow = window_out_hw(kind, ops, regs)
        ops.update(oh=oh, ow=ow, m=oh * ow, kh=regs[f"{kind}_kh"], kw=regs[f"{kind}_kw"])
    elif instr.spec.cls == "dma":
        dram, _, fill = dma_elems(ops, regs["dma_planes"])
        ops.update(bytes=dram * elem_bytes, fill=fill)
    return ops


def extents(instr, regs: Mapping[str, int]) -> dict[str, Extent]:
    """Elements each SRAM operand field of `instr` touches, where its fields (and its unit's
    registers) say; a conv/pool with an empty output gives counts <= 0 (check it first)."""
    f, m, fmt = instr.fields, instr.mnemonic, instr.spec.format
    if m == "gemm":
        return {"ibuf": Extent(f["m"] * f["k"], "m*k"), "wbuf": Extent(f["k"] * f["n"], "k*n"),
                "abuf": Extent(f["m"] * f["n"], "m*n")}
    if m == "conv":
        oh, ow = window_out_hw("conv", f, regs)
        kh, kw = regs["conv_kh"], regs["conv_kw"]
        return {"ibuf": Extent(f["in_h"] * f["in_w"] * f["cin"], "in_h*in_w*cin"),
                "wbuf": Extent(kh * kw * f["cin"] * f["cout"], f"kh*kw*cin*cout, kh={kh} kw={kw}"),
                "abuf": Extent(oh * ow * f["cout"], f"oh*ow*cout, oh={oh} ow={ow}")}
    if m == "dwconv":
        oh, ow = window_out_hw("conv", f, regs)
        kh, kw, c = regs["conv_kh"], regs["conv_kw"], f["channels"]
        return {"ibuf": Extent(f["in_h"] * f["in_w"] * c, "in_h*in_w*channels"),
                "wbuf": Extent(kh * kw * c, f"kh*kw*channels, kh={kh} kw={kw}"),
                "abuf": Extent(oh * ow * c, f"oh*ow*channels, oh={oh} ow={ow}")}
    if fmt in ("unary", "binary"):
        n = f["len"]
        out = {"dst": Extent(n, "len"), "src0": Extent(n, "len")}
        if fmt == "binary":
            table = _SRC1_TABLES.get(m)
            out["src1"] = (Extent(table[0](f), table[1] if isinstance(table[1], str)
                                  else table[1](f)) if table else Extent(n, "len"))
        return out
    if fmt in ("rowreduce", "rowbcast"):
        tile = Extent(f["rows"] * f["cols"], "rows*cols")
        out = {"dst": Extent(f["rows"], "rows") if fmt == "rowreduce" else tile, "src0": tile}
        if fmt == "rowbcast":
            out["src1"] = Extent(f["rows"], "rows")
        return out
    if fmt == "pool":
        oh, ow = window_out_hw("pool", f, regs)
        return {"src0": Extent(f["in_h"] * f["in_w"] * f["channels"], "in_h*in_w*channels"),
                "dst": Extent(oh * ow * f["channels"], f"oh*ow*channels, oh={oh} ow={ow}")}
    if instr.spec.cls == "dma":
        planes = regs["dma_planes"]
        dram, sram, _ = dma_elems(f, planes)
        formula = "(rows+pads)*(cols+pads)" if m == "load" else "rows*cols"
        if planes != 1:
            formula = f"dma_planes={planes} * {formula}"
        return {"sram": Extent(sram, formula)}
    return {}


def dram_end(fields: Mapping[str, int], planes: int, plane_stride: int, elem_bytes: int) -> int:
    """One past the last DRAM byte a load/store touches: rows `stride` bytes apart, planes
    `plane_stride` bytes apart, cols elements of `elem_bytes` each per row."""
    return (fields["dram"] + (planes - 1) * plane_stride + (fields["rows"] - 1) * fields["stride"]
            + fields["cols"] * elem_bytes)
