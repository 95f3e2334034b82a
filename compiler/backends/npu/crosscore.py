"""Whether two layers split over cores need the gbarrier between them: not when no core's ops
of the later layer touch DRAM another core's ops since the last barrier touch (one of them
writing). A 1x1 expand conv and the depthwise conv after it, both split by the same
output-channel blocks, are such a pair: each core's depthwise reads only the channels its own
expand wrote, so the core goes on without waiting for the others (its own order comes from
the hazard tracker, which the missing barrier does not fence).

DRAM accesses are summarized per core as classes of strided spans, (stride, first byte mod
stride, row width) with the bounding [lo, hi) of the class's spans: the class stands for every
byte of [lo, hi) whose offset mod stride lies in [first, first + width), a superset of its
spans, so two classes found apart are apart (a channel block of an NHWC tensor is one class;
another block of the same tensor has another offset mod the same stride). What cannot be put
in a class (a span whose rows are not `stride` apart) keeps only its [lo, hi)."""

from __future__ import annotations


class Footprint:
    """One core's DRAM reads and writes since the last barrier (constants left out: nothing
    writes them): per direction, the strided classes {key: [lo, hi]} and the plain ranges."""

    def __init__(self, const_base: int):
        self.const_base = const_base
        self.reads: tuple = ({}, [])
        self.writes: tuple = ({}, [])

    def add(self, ops: list) -> None:
        for op in ops:
            if not op.nbytes:
                continue
            for space, lo, hi in op.reads:
                if space == "dram" and lo < self.const_base:
                    _put(self.reads, op, lo, hi)
            for space, lo, hi in op.writes:
                if space == "dram":
                    _put(self.writes, op, lo, hi)

    def regions(self, which: tuple) -> list:
        """[(key, [lo, hi])]: the classes, then the plain ranges merged where they touch."""
        classes, plain = which
        merged: list = []
        for lo, hi in sorted(plain):
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        return list(classes.items()) + [((0, 0, 0), r) for r in merged]


def _put(which: tuple, op, lo: int, hi: int) -> None:
    """Into its class: a span whose rows (and planes) step by multiples of its stride and are
    narrower than it; else a plain range."""
    f = getattr(op.ins, "fields", None) or {}
    rows, stride = f.get("rows", 1), f.get("stride", 0)
    regs = op.regs or {}
    planes, pstride = regs.get("dma_planes", 1), regs.get("dma_plane_stride", 0)
    width = hi - lo - (planes - 1) * pstride - (rows - 1) * stride
    classes, plain = which
    if rows > 1 and 0 < width < stride and (planes == 1 or pstride % stride == 0):
        key = (stride, lo % stride, width)
        have = classes.get(key)
        if have is None:
            classes[key] = [lo, hi]
        else:
            have[0], have[1] = min(have[0], lo), max(have[1], hi)
    else:
        plain.append((lo, hi))


def _apart(ka: tuple, ra: list, kb: tuple, rb: list) -> bool:
    """Whether two regions (key, [lo, hi]) share no byte: their ranges are apart, or their
    offsets mod one stride are (a plain range within one stride counts by its own offsets)."""
    if ra[1] <= rb[0] or rb[1] <= ra[0]:
        return True
    for (s, off, w), (s2, off2, w2), r2 in ((ka, kb, rb), (kb, ka, ra)):
        if not s:
            continue
        if not s2:
            off2, w2 = r2[0] % s, r2[1] - r2[0]
        elif s2 != s:
            continue
        if w2 > s:
            return False
        d = (off2 - off) % s
        return d >= w and s - d >= w2
    return False


def _conflict(mine: Footprint, other: Footprint) -> bool:
    """Whether `mine` (the next layer's ops on one core) touches what `other` (another core's
    ops since the barrier) touches, one of the two writing."""
    for xs, ys in ((mine.reads, other.writes), (mine.writes, other.reads),
                   (mine.writes, other.writes)):
        theirs = other.regions(ys)
        for ka, ra in mine.regions(xs):
            for kb, rb in theirs:
                if not _apart(ka, ra, kb, rb):
                    return True
    return False


def barrier_needed(since: list, new: list) -> bool:
    """since[c]: core c's Footprint since the last barrier; new[c]: its Footprint of the next
    layer."""
    cores = len(since)
    return any(_conflict(new[c], since[o]) for c in range(cores) for o in range(cores)
               if o != c)
