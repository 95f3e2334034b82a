"""Shadow memories of the race detector: who last wrote and who read each range of an SRAM
buffer (disjoint segments, FastTrack-style), and the recent strided accesses of DRAM."""

from __future__ import annotations

from bisect import bisect_right

from npusim.race.accesses import span_overlap


class Access:
    """One data instruction as the detector remembers it: its unit (a global id), its epoch on
    that unit's clock, and where it came from for the report."""

    __slots__ = ("uid", "epoch", "core", "unit", "index", "instr", "cycle")

    def __init__(self, uid, epoch, core, unit, index, instr, cycle):
        self.uid, self.epoch = uid, epoch
        self.core, self.unit, self.index, self.instr, self.cycle = core, unit, index, instr, cycle


def unordered(earlier: Access, clock: list) -> bool:
    """`earlier` does not happen before the access whose unit's vector clock is `clock`."""
    return earlier.epoch > clock[earlier.uid]


_EMPTY = (None, ())  # a segment's (last writer, readers since): nothing yet


class SramShadow:
    """Segments [starts[i], starts[i+1]) of one buffer, each with its last writer and the
    readers not yet ordered before a later read; sizes grow with live tiles, not elements."""

    def __init__(self, size: int):
        self.size = size
        self.clear()

    def clear(self) -> None:
        self.starts = [0, self.size]
        self.cells = [_EMPTY, None]  # the last entry is a sentinel at the buffer's end

    def _split(self, at: int, lo: int = 0) -> int:
        """The index of the segment starting at `at` (searched from `lo`), split off if needed."""
        starts = self.starts
        i = bisect_right(starts, at, lo) - 1
        if starts[i] == at:
            return i
        starts.insert(i + 1, at)
        self.cells.insert(i + 1, self.cells[i])
        return i + 1

    def access(self, lo: int, hi: int, acc: Access, write: bool, clock: list) -> list:
        """Record `acc` reading or writing [lo, hi); return [(kind, earlier Access, lo, hi)]
        for every earlier conflicting access of another unit that is not ordered before it.
        (unordered() is inlined: this is the detector's hot path.)"""
        if hi <= lo:
            return []
        i = self._split(lo)
        j = self._split(hi, i)
        starts, cells, uid = self.starts, self.cells, acc.uid
        found = []
        for k in range(i, j):
            w, reads = cells[k]
            if w is not None and w.uid != uid and w.epoch > clock[w.uid]:
                found.append(("WAW" if write else "RAW", w, starts[k], starts[k + 1]))
            if write:
                for r in reads:
                    if r.uid != uid and r.epoch > clock[r.uid]:
                        found.append(("WAR", r, starts[k], starts[k + 1]))
        if write:  # every later access meets this write first (or races with it)
            del starts[i + 1:j], cells[i + 1:j]
            cells[i] = (acc, ())
            return found
        # a read ordered after an earlier read stands for it: a later write unordered with the
        # earlier one is unordered with this one too, or ordered after both
        if j == i + 1:  # the usual case: one segment, nothing to merge
            w, reads = cells[i]
            cells[i] = (w, tuple(r for r in reads if r.uid != uid and r.epoch > clock[r.uid])
                        + (acc,) if reads else (acc,))
            return found
        memo = {}
        for k in range(i, j):
            cell = cells[k]
            new = memo.get(id(cell))
            if new is None:
                w, reads = cell
                kept = tuple(r for r in reads if r.uid != uid and r.epoch > clock[r.uid])
                new = memo[id(cell)] = (w, kept + (acc,))
            cells[k] = new
        self._merge(i, j)
        return found

    def _merge(self, i: int, j: int) -> None:
        """Join neighbours in [i, j) whose state is the same object, so segments stay few."""
        k = i + 1
        while k < j:
            if self.cells[k] is self.cells[k - 1]:
                del self.cells[k], self.starts[k]
                j -= 1
            else:
                k += 1


class DramShadow:
    """The DRAM accesses some DMA unit may still race with: the reads and the writes, each a
    list pruned when every other DMA unit's clock has passed an access (it can no longer be
    unordered with anything later). A read is compared with the writes only.

    Stores that write the very same bytes to the very same span (`dup`, known in functional
    mode) count as one write: they cannot change what anyone reads in any order, so a read
    ordered after any one of them, and such stores among themselves, do not race."""

    PRUNE_EVERY = 64

    def __init__(self, dma_uids: list):
        self.dma_uids = list(dma_uids)
        # (lo, hi, span, Access, clock of a read / dup key of a store)
        self.reads: list = []
        self.writes: list = []
        self.dups: dict = {}     # dup key -> every Access that stored those bytes there
        self._since_prune = 0

    def clear(self) -> None:
        self.reads, self.writes, self.dups = [], [], {}

    def _witnessed(self, dup, clock) -> bool:
        """Some store of `dup`'s bytes is ordered before the access whose clock is `clock`."""
        return any(not unordered(m, clock) for m in self.dups.get(dup, ()))

    def access(self, span, acc: Access, write: bool, clock: list, clocks: list,
               dup=None) -> list:
        if len(self.dma_uids) < 2:  # one DMA unit in the machine: DRAM is in program order
            return []
        found = []
        self.writes = self._scan(self.writes, True, span, acc, write, clock, dup, found)
        if write:
            self.reads = self._scan(self.reads, False, span, acc, write, clock, dup, found)
            self.writes.append((span.lo, span.hi, span, acc, dup))
            if dup is not None:
                self.dups.setdefault(dup, []).append(acc)
        else:
            self.reads.append((span.lo, span.hi, span, acc, tuple(clock)))
        self._since_prune += 1
        if self._since_prune >= self.PRUNE_EVERY:
            self.prune(clocks)
        return found

    def _scan(self, records, of_writes, span, acc, write, clock, dup, found) -> list:
        """Check `acc` against `records` (writes, or reads); return the ones still needed."""
        kept, uid = [], acc.uid
        lo, hi = span.lo, span.hi
        for rec in records:
            if rec[1] <= lo or hi <= rec[0]:  # bounding ranges apart: the usual case
                kept.append(rec)
                continue
            other_span, other, extra = rec[2], rec[3], rec[4]
            if other.uid != uid and other.epoch > clock[other.uid]:  # unordered(), inlined
                hit = span_overlap(span, other_span)
                if hit is not None:
                    kept.append(rec)
                    if write and of_writes:
                        benign = dup is not None and dup == extra
                    elif write:  # it overwrites what the earlier read saw with the same bytes
                        benign = dup is not None and self._witnessed(dup, extra)
                    else:        # it reads what an ordered store of the same bytes left there
                        benign = extra is not None and self._witnessed(extra, clock)
                    if not benign:
                        kind = ("WAW" if of_writes else "WAR") if write else "RAW"
                        found.append((kind, other, *hit))
                    continue
            elif other_span == span and (write or not of_writes):
                continue  # the same bytes again after an ordered access: this one stands for it
            kept.append(rec)
        return kept

    def prune(self, clocks: list) -> None:
        """Drop every access that each other DMA unit's clock has passed."""
        self._since_prune = 0
        dma = self.dma_uids
        if len(dma) < 2:
            self.clear()
            return
        floor = {v: min(clocks[w][v] for w in dma if w != v) for v in dma}
        self.reads = [r for r in self.reads if r[3].epoch > floor[r[3].uid]]
        self.writes = [r for r in self.writes if r[3].epoch > floor[r[3].uid]]
