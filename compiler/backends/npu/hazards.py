"""Dependencies from memory effects: every op is ordered after the earlier ops whose SRAM or
DRAM ranges it conflicts with (read after write, write after read, write after write)."""

from __future__ import annotations

from bisect import bisect_right

from ...errors import CompilerError


class IntervalMap:
    """Disjoint [lo, hi) segments of one memory, each with its last writer and the readers
    since that write."""

    def __init__(self):
        self.starts: list = []
        self.segs: list = []  # [lo, hi, writer, readers(list)]

    def _split(self, at: int) -> int:
        """Make a segment boundary at `at` (splitting the segment that covers it); the index
        of the first segment that starts at or after `at`."""
        i = bisect_right(self.starts, at) - 1
        if i < 0:
            return 0
        lo, hi, w, rs = self.segs[i]
        if lo == at:
            return i
        if at < hi:
            self.segs[i] = [lo, at, w, rs]
            self.segs.insert(i + 1, [at, hi, w, list(rs)])
            self.starts.insert(i + 1, at)
        return i + 1

    def _span(self, lo: int, hi: int) -> tuple:
        """[i, j): the segments inside [lo, hi), after splitting the ones across its ends
        (splitting at hi > lo inserts after i)."""
        i = self._split(lo)
        return i, self._split(hi)

    def access(self, lo: int, hi: int, op: int, write: bool, deps: set) -> None:
        if hi <= lo:
            return
        i = bisect_right(self.starts, lo) - 1
        if i >= 0:
            seg = self.segs[i]
            if seg[1] >= hi:  # inside one known segment (most accesses: a slot or a tile)
                s_lo, s_hi, w, rs = seg
                if w is not None:
                    deps.add(w)
                if s_lo == lo and s_hi == hi:  # exactly it: a slot reused
                    if write:
                        deps.update(rs)
                        self.segs[i] = [lo, hi, op, []]
                    else:
                        rs.append(op)
                    return
                # split it in two or three (what _span does), the middle one this access's
                if write:
                    deps.update(rs)
                    mid = [lo, hi, op, []]
                else:
                    mid = [lo, hi, w, rs + [op]]
                new, at = [mid], [lo]
                if s_lo < lo:
                    new.insert(0, [s_lo, lo, w, rs])
                    at.insert(0, s_lo)
                if hi < s_hi:
                    new.append([hi, s_hi, w, list(rs)])
                    at.append(hi)
                self.segs[i:i + 1] = new
                self.starts[i:i + 1] = at
                return
        i, j = self._span(lo, hi)
        for seg in self.segs[i:j]:
            if seg[2] is not None:
                deps.add(seg[2])
            if write:
                deps.update(seg[3])
        if write:
            self.segs[i:j] = [[lo, hi, op, []]]
            self.starts[i:j] = [lo]
            return
        # record the read; fill the gaps so later writes see this reader
        new, cur = [], lo
        for seg in self.segs[i:j]:
            if seg[0] > cur:
                new.append([cur, seg[0], None, [op]])
            seg[3].append(op)
            new.append(seg)
            cur = seg[1]
        if cur < hi:
            new.append([cur, hi, None, [op]])
        if len(new) > j - i:  # there were gaps
            self.segs[i:j] = new
            self.starts[i:j] = [s[0] for s in new]


class Tracker:
    """Assigns ids to ops in program order and fills in their dependencies.

    readonly: (space, lo) of a region no op writes (DRAM from the constants' base up): a read
    there can neither wait for a writer nor hold up a later write, so it is not recorded
    (a third of a ResNet's accesses: every weight tile's load), and a write there is refused."""

    def __init__(self, readonly: tuple | None = None):
        self.maps: dict = {}
        self.ops: list = []
        self.ro_space, self.ro_lo = readonly if readonly is not None else (None, 0)

    def add(self, op) -> None:
        op.id = len(self.ops)
        deps: set = set()
        maps = self.maps
        ro_space, ro_lo = self.ro_space, self.ro_lo
        for space, lo, hi in op.reads:
            if space == ro_space and lo >= ro_lo:
                continue
            m = maps.get(space)
            if m is None:
                m = maps[space] = IntervalMap()
            m.access(lo, hi, op.id, False, deps)
        for space, lo, hi in op.writes:
            if space == ro_space and hi > ro_lo:
                raise CompilerError(f"op {op.id} ({op.unit}) writes {space} [{lo:#x}, {hi:#x}), "
                                    f"into the read-only region from {ro_lo:#x} (the "
                                    "constants): a code generator bug, please report it")
            m = maps.get(space)
            if m is None:
                m = maps[space] = IntervalMap()
            m.access(lo, hi, op.id, True, deps)
        deps.discard(op.id)
        op.deps = sorted(deps)
        self.ops.append(op)

    def fence(self, keep_from: int | None = None) -> None:
        """Forget history: a barrier orders everything before it. `keep_from`: the id of the
        first op after the barrier already added (a layer generated before its barrier was
        placed, hoist.py): the accesses of the ops from it on stay, so that the ops after
        them are still ordered against them; the earlier ones' are dropped."""
        if keep_from is None or keep_from >= len(self.ops):
            self.maps = {}
            return
        for space, m in list(self.maps.items()):
            kept = []
            for lo, hi, w, rs in m.segs:
                if w is not None and w < keep_from:
                    w = None
                rs = [r for r in rs if r >= keep_from]
                if w is not None or rs:
                    kept.append([lo, hi, w, rs])
            if kept:
                m.segs, m.starts = kept, [seg[0] for seg in kept]
            else:
                del self.maps[space]
