"""NPU code of a copy planned as moves (compiler.lower.copy_plan.PlannedCopy), shared by the conv
rewrites' input copies (fold_gen, im2col_gen): where its slots go, and a piece's moves."""

from __future__ import annotations

from ...lower.conv import ConvLayer
from .conv_gen import conv_sram


def conv_room(hw, layer, lowered, need: int) -> str | None:
    """A buffer the conv that reads the copy leaves `need` elements free in, obuf first (the
    conv fills ibuf): the copy then shares no SRAM with the conv, so the conv starts on the
    first rows while the copy goes on (sharing, its first outputs wait for the whole copy);
    None if no conv reads it or none leaves the room."""
    conv = next((lay for lay in lowered.layers if layer.y in getattr(lay, "inputs", ())
                 and isinstance(lay, ConvLayer) and lay.schedule is not None), None)
    if conv is not None:
        used = conv_sram(conv, hw)
        for buf in ("obuf", "wbuf", "ibuf"):
            if used[buf] + need <= hw.buffer_elems[buf]:
                return buf
    return None


def emit_moves(em, moves, stage: str, slot: int, zeros: int | None, x: int, y: int,
               load_role: str, store_role: str, tag: str) -> None:
    """A piece's moves: loads from the input at x into its slot in `stage`, stores from the
    slot (a zero move's from the zero slot at `zeros`) to the output at y."""
    eb = em.hw.act_bytes
    for mv in moves:
        if mv.kind == "load":
            em.load(load_role, stage, slot + mv.sram, x + mv.dram * eb, mv.rows, mv.cols,
                    mv.stride * eb, mv.planes, mv.plane_stride * eb, pads=mv.pads, comment=tag)
        else:
            src = zeros if mv.zero else slot + mv.sram
            em.store(store_role, stage, src, y + mv.dram * eb, mv.rows, mv.cols, mv.stride * eb,
                     mv.planes, mv.plane_stride * eb,
                     comment=f"{tag}: store" + (" zeros" if mv.zero else ""))
