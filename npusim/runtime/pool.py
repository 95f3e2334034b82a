"""A DRAM allocator over a byte range: address-ordered free list, first/best fit, coalescing."""

from __future__ import annotations

import bisect
import itertools
from dataclasses import asdict, dataclass, field

from npusim.runtime.errors import OutOfMemoryError, PoolError

STRATEGIES = ("first-fit", "best-fit")


@dataclass(frozen=True)
class Allocation:
    """A live block: `size` is the requested byte count; `addr` is aligned."""

    addr: int
    size: int
    name: str | None = None
    # Tells a stale handle from a new block that reuses its address (double free detection).
    serial: int = field(default=0, repr=False)

    @property
    def end(self) -> int:
        return self.addr + self.size


@dataclass(frozen=True)
class PoolStats:
    total: int
    in_use: int
    peak_in_use: int
    live_allocs: int
    total_allocs: int
    total_free: int
    largest_free: int
    free_blocks: int
    fragmentation: float

    def as_dict(self) -> dict:
        return asdict(self)


def _hex(addr: int) -> str:
    return f"0x{addr:x}"


def _label(name: str | None) -> str:
    return f" '{name}'" if name else ""


class MemoryPool:
    """Allocates aligned blocks from [base, base + size).

    Free space is a list of disjoint [start, end) blocks sorted by address; alignment gaps
    stay on it, so `in_use + total_free == total` always holds and nothing leaks.
    """

    def __init__(self, size: int, base: int = 0, align: int = 64,
                 strategy: str = "first-fit", label: str = "DRAM"):
        if size <= 0 or base < 0:
            raise PoolError(f"{label} pool needs size > 0 and base >= 0; got size {size}, "
                            f"base {base}")
        if strategy not in STRATEGIES:
            raise PoolError(f"unknown pool strategy '{strategy}'; known: {', '.join(STRATEGIES)}")
        self.base, self.size, self.label, self.strategy = base, size, label, strategy
        self.align = self._check_align(align)
        self._serials = itertools.count(1)
        self.reset()

    # ---- allocation ------------------------------------------------------------------------

    def alloc(self, nbytes: int, align: int | None = None, name: str | None = None) -> Allocation:
        """Reserve `nbytes` at an address that is a multiple of `align` (default: the pool's)."""
        nbytes = self._check_size(nbytes, name)
        align = self.align if align is None else self._check_align(align)
        pick = None  # (index, aligned start, leftover) of the chosen free block
        for i, (start, end) in enumerate(self._free):
            addr = -(-start // align) * align
            if addr + nbytes > end:
                continue
            leftover = (end - start) - nbytes
            if pick is None or leftover < pick[2]:
                pick = (i, addr, leftover)
            if self.strategy == "first-fit" or leftover == 0:
                break
        if pick is None:
            raise self._oom(nbytes, align, name)
        return self._take(pick[0], pick[1], nbytes, name)

    def reserve(self, addr: int, nbytes: int, name: str | None = None) -> Allocation:
        """Claim the exact range [addr, addr + nbytes), e.g. a program's fixed tensor."""
        nbytes = self._check_size(nbytes, name)
        i = bisect.bisect_right(self._starts, addr) - 1
        if i >= 0 and addr + nbytes <= self._free[i][1]:
            return self._take(i, addr, nbytes, name)
        where = f"[{_hex(addr)}, {_hex(addr + nbytes)})"
        if addr < self.base or addr + nbytes > self.base + self.size:
            raise PoolError(f"cannot reserve{_label(name)} at {where}: outside the {self.label} "
                            f"range [{_hex(self.base)}, {_hex(self.base + self.size)})")
        clash = ", ".join(f"{a.name or 'unnamed'} at [{_hex(a.addr)}, {_hex(a.end)})"
                          for a in self.overlapping(addr, nbytes))
        raise PoolError(f"cannot reserve{_label(name)} at {where}: it overlaps {clash}; "
                        "free those blocks first")

    def free(self, block: Allocation | int) -> None:
        """Return a block (an Allocation or its address); neighbours coalesce."""
        addr = block.addr if isinstance(block, Allocation) else block
        live = self._live.get(addr)
        stale = isinstance(block, Allocation) and live is not None and live.serial != block.serial
        if live is None or stale:
            raise PoolError(self._bad_free_message(addr, block))
        del self._live[addr]
        self._freed[addr] = live
        self.in_use -= live.size
        self._insert_free(addr, live.end)

    def reset(self) -> None:
        """Forget every allocation: one free block covers the range again; peak restarts."""
        self._free: list = [(self.base, self.base + self.size)]
        self._starts: list = [self.base]
        self._live: dict = {}
        self._freed: dict = {}  # addr -> last block freed there, to name double frees
        self.in_use = self.peak_in_use = self.total_allocs = 0

    # ---- queries ---------------------------------------------------------------------------

    @property
    def live(self) -> list:
        return sorted(self._live.values(), key=lambda a: a.addr)

    @property
    def free_blocks(self) -> list:
        return list(self._free)

    @property
    def total_free(self) -> int:
        return sum(end - start for start, end in self._free)

    @property
    def largest_free(self) -> int:
        return max((end - start for start, end in self._free), default=0)

    @property
    def fragmentation(self) -> float:
        """1 - largest free block / total free: 0 when free space is one block (or none)."""
        total = self.total_free
        return 0.0 if total == 0 else 1.0 - self.largest_free / total

    def owner(self, addr: int) -> Allocation | None:
        """The live block that contains byte `addr`, if any."""
        return next(iter(self.overlapping(addr, 1)), None)

    def overlapping(self, addr: int, nbytes: int) -> list:
        return [a for a in self.live if a.addr < addr + nbytes and addr < a.end]

    def stats(self) -> PoolStats:
        return PoolStats(total=self.size, in_use=self.in_use, peak_in_use=self.peak_in_use,
                         live_allocs=len(self._live), total_allocs=self.total_allocs,
                         total_free=self.total_free, largest_free=self.largest_free,
                         free_blocks=len(self._free), fragmentation=self.fragmentation)

    def __contains__(self, block: Allocation) -> bool:
        live = self._live.get(block.addr)
        return live is not None and live.serial == block.serial

    def __repr__(self) -> str:
        return (f"MemoryPool({self.label}: {self.in_use}/{self.size} B in use, "
                f"{len(self._live)} blocks, {self.strategy})")

    # ---- internals -------------------------------------------------------------------------

    def _take(self, i: int, addr: int, nbytes: int, name: str | None) -> Allocation:
        start, end = self._free.pop(i)
        self._starts.pop(i)
        # The alignment gap before and the tail after go back on the list, in address order.
        for piece in ((start, addr), (addr + nbytes, end)):
            if piece[0] < piece[1]:
                j = bisect.bisect_left(self._starts, piece[0])
                self._free.insert(j, piece)
                self._starts.insert(j, piece[0])
        block = Allocation(addr, nbytes, name, next(self._serials))
        self._live[addr] = block
        self._freed.pop(addr, None)
        self.in_use += nbytes
        self.total_allocs += 1
        self.peak_in_use = max(self.peak_in_use, self.in_use)
        return block

    def _insert_free(self, start: int, end: int) -> None:
        j = bisect.bisect_left(self._starts, start)
        if j > 0 and self._free[j - 1][1] == start:  # merge with the block before
            j -= 1
            start = self._free[j][0]
            del self._free[j], self._starts[j]
        if j < len(self._free) and self._free[j][0] == end:  # merge with the block after
            end = self._free[j][1]
            del self._free[j], self._starts[j]
        self._free.insert(j, (start, end))
        self._starts.insert(j, start)

    def _check_size(self, nbytes, name) -> int:
        if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes <= 0:
            raise PoolError(f"allocation{_label(name)} needs a positive integer byte count; "
                            f"got {nbytes!r}")
        return nbytes

    def _check_align(self, align) -> int:
        if isinstance(align, bool) or not isinstance(align, int) or align < 1 \
                or align & (align - 1):
            raise PoolError(f"alignment must be a power of two >= 1; got {align!r} "
                            "(e.g. 64 for a DMA burst)")
        return align

    def _oom(self, nbytes: int, align: int, name: str | None) -> OutOfMemoryError:
        total_free, largest = self.total_free, self.largest_free
        if total_free >= nbytes:
            hint = ("enough bytes are free but not in one block (fragmentation "
                    f"{self.fragmentation:.2f}): free neighbouring buffers, allocate large "
                    "buffers first, or reset()")
        else:
            hint = "free buffers you no longer need, or use a target with more dram-mb"
        return OutOfMemoryError(
            f"out of {self.label}: cannot allocate {nbytes} B{_label(name)} (align {align}); "
            f"largest free block {largest} B, {total_free} B free in {len(self._free)} blocks "
            f"of {self.size} B; {hint}")

    def _bad_free_message(self, addr: int, block) -> str:
        what = f"block{_label(getattr(block, 'name', None))} at {_hex(addr)}"
        if addr in self._live:  # a stale handle: its address was reused after the free
            return f"double free of {what}: it was already freed and the address now " \
                   f"belongs to block{_label(self._live[addr].name)}"
        inside = self.owner(addr)
        if inside is not None:
            return (f"cannot free {_hex(addr)}: it is inside block{_label(inside.name)} at "
                    f"{_hex(inside.addr)} ({inside.size} B); free takes a block's start address")
        if addr in self._freed:
            return f"double free of {what}: it was already freed"
        return (f"cannot free {_hex(addr)}: no block of this {self.label} pool was allocated "
                "there (freed by reset(), or from another pool?)")
