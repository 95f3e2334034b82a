"""Standard-cell area of Yosys's generic gates at 45 nm: each `$_<TYPE>_` cell priced as the
Nangate 45 nm Open Cell Library (X1 drive) cell, or cells, that implement it."""

from __future__ import annotations

import re

NODE_NM = 45
LIBRARY = ("Nangate 45nm Open Cell Library, PDKv1_3_v2010_12, NangateOpenCellLibrary_typical.lib "
           "(typical corner, 1.1 V, 25 C; a non-manufacturable research library on FreePDK45)")

# um^2 of the X1 cells, from the Liberty file's `area`. Checked against the Liberty text while
# writing this: INV_X1, NAND2_X1, AND2_X1, XOR2_X1, DFF_X1 (and XNOR2_X2 = 2.66, consistent
# with XNOR2_X1 = XOR2_X1). The others are quoted from the same library.
NANGATE45_UM2 = {
    "INV_X1": 0.532, "NAND2_X1": 0.798, "NOR2_X1": 0.798, "AND2_X1": 1.064, "OR2_X1": 1.064,
    "XOR2_X1": 1.596, "XNOR2_X1": 1.596, "MUX2_X1": 1.862, "AOI21_X1": 1.064,
    "AOI22_X1": 1.330, "DFF_X1": 4.522, "DFFR_X1": 5.320,
}
NAND2_UM2 = NANGATE45_UM2["NAND2_X1"]  # one gate equivalent (GE)

_N = NANGATE45_UM2
# Combinational gates: one library cell each. ANDNOT/ORNOT (A & ~B, A | ~B) take the AND2/OR2
# area, assuming the mapper folds the inversion into a neighbour as it does on real netlists.
_GATES = {
    "NOT": _N["INV_X1"], "BUF": _N["INV_X1"], "NAND": _N["NAND2_X1"], "NOR": _N["NOR2_X1"],
    "AND": _N["AND2_X1"], "OR": _N["OR2_X1"], "ANDNOT": _N["AND2_X1"], "ORNOT": _N["OR2_X1"],
    "XOR": _N["XOR2_X1"], "XNOR": _N["XNOR2_X1"], "MUX": _N["MUX2_X1"], "NMUX": _N["MUX2_X1"],
    "AOI3": _N["AOI21_X1"], "OAI3": _N["AOI21_X1"], "AOI4": _N["AOI22_X1"],
    "OAI4": _N["AOI22_X1"],
}
# Flip-flops: the base flop (DFFR when it has an asynchronous reset), plus a MUX2 for a clock
# enable and an AND2 for a synchronous reset/set, as a library without such flops maps them.
_FLOP = re.compile(r"^(S?)DFF(C?E?)_([PN]+)([01]?)([PN]?)$")


def cell_um2(cell_type: str) -> float:
    """um^2 of one Yosys generic cell, e.g. "XOR" or "SDFFE_PP0P" (the `$_..._` stripped)."""
    if cell_type in _GATES:
        return _GATES[cell_type]
    m = _FLOP.match(cell_type)
    if m:
        sync, enable, _, value, _ = m.groups()
        asynchronous = bool(value) and not sync  # DFF_PN0: async reset; SDFF_PP0: sync reset
        area = _N["DFFR_X1"] if asynchronous else _N["DFF_X1"]
        if enable:
            area += _N["MUX2_X1"]
        if sync:
            area += _N["AND2_X1"]
        return area
    raise KeyError(f"no 45 nm area for the Yosys cell type '{cell_type}'; priced: "
                   f"{', '.join(_GATES)} and DFF/DFFE/SDFF/SDFFE/SDFFCE flops; "
                   "hint: add it to npusim/hw/cell_lib.py")


def cells_um2(counts: dict) -> float:
    """Total um^2 of {cell type: count} (types as cell_um2 takes them)."""
    return sum(n * cell_um2(t) for t, n in counts.items() if n)
