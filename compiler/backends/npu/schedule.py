"""Orders one core's ops into its single in-order instruction stream and inserts the sync.

A list scheduler replays the units with the cost model's cycle estimates and always issues
the ready op that could start first, so the stream approximates the run's timeline (the
dispatcher is in order: an op far ahead of its time would block the others behind a full
queue). A dependency on an op of another unit becomes `signal` after the producer and `wait`
before the consumer, on one semaphore per (producer, consumer) unit pair; vector clocks drop
waits already implied by earlier ones, and only signals somebody waits for are kept, so
every semaphore returns to zero. Because a wait is only placed after its signal, the stream
can never deadlock on the dispatcher."""

from __future__ import annotations

import heapq

from isa.checks import reset_registers

from ...errors import CompilerError
from ...lower.cost import Hw
from .ops import Op

RESET = reset_registers()  # a unit's config registers before the stream's first cfg


class Stream:
    """One core's emitted stream: ('op', Op) / ('cfg', unit, reg, value) / ('wait', unit,
    pair) / ('signal', unit, pair, used flag holder) / ('raw', text) entries."""

    def __init__(self, hw: Hw, units: list):
        self.hw = hw
        self.units = units
        self.entries: list = []
        self.regs = {u: {} for u in units}
        self.pairs: dict = {}          # (producer, consumer) -> semaphore index

    def sem(self, pair: tuple) -> int:
        if pair not in self.pairs:
            if len(self.pairs) >= self.hw.semaphores:
                raise CompilerError(
                    f"the program needs more than {self.hw.semaphores} semaphores (one per "
                    f"pair of units that synchronize: {sorted(self.pairs)}); use a Target with "
                    "more semaphores or fewer DMA engines")
            self.pairs[pair] = len(self.pairs)
        return self.pairs[pair]

    def lines(self) -> list:
        """Assembly lines (signals nobody waited for are dropped)."""
        out = []
        for e in self.entries:
            kind = e[0]
            if kind == "op":
                op = e[1]
                out.append(f"    {op.text}" + (f"  ; {op.comment}" if op.comment else ""))
            elif kind == "cfg":
                out.append(f"    cfg unit={e[1]}, reg={e[2]}, value={e[3]}")
            elif kind == "wait":
                out.append(f"    wait unit={e[1]}, sem={self.pairs[e[2]]}")
            elif kind == "signal":
                if e[3][0]:
                    out.append(f"    signal unit={e[1]}, sem={self.sem(e[2])}")
            else:
                out.append(e[1])
        return out


def schedule(ops: list, stream: Stream) -> None:
    """Append `ops` (one core, ids and deps filled, deps only inside `ops` or already
    complete) to `stream` in a dependency-respecting, timeline-like order."""
    if not ops:
        return
    hw, units = stream.hw, stream.units
    by_id = {op.id: op for op in ops}
    indeg = {op.id: 0 for op in ops}
    succs: dict = {op.id: [] for op in ops}
    for op in ops:
        for d in op.deps:
            if d in by_id:
                indeg[op.id] += 1
                succs[d].append(op.id)
    succ_units = {i: {by_id[s].unit for s in ss} - {by_id[i].unit} for i, ss in succs.items()}
    t_unit = dict.fromkeys(units, 0)
    qstarts = {u: [] for u in units}  # start cycle of every instruction issued to each unit
    depth = hw.queue_depth
    pos = {}                    # op id -> position on its unit
    count = dict.fromkeys(units, 0)
    end = {}                    # op id -> estimated end
    # know[c][p]: highest position on unit p that unit c knows has completed
    know = {c: dict.fromkeys(units, -1) for c in units}
    signals: dict = {}          # pair -> list of (producer position, clock snapshot, time, used)
    taken: dict = {}            # pair -> index of the last signal consumed
    port_free = 0
    t_dispatch = 0

    def slot_free(u: str) -> int:
        """When unit u's queue has room: a slot frees as its unit starts an instruction."""
        q = qstarts[u]
        return q[-depth] if len(q) >= depth else 0

    def issue(u: str, ready: int, cycles: int) -> int:
        """Dispatch one instruction to u (in order, blocking on a full queue); its start."""
        nonlocal t_dispatch
        t_dispatch = max(t_dispatch + 1, slot_free(u))
        begin = max(t_dispatch, t_unit[u], ready)
        t_unit[u] = begin + cycles
        qstarts[u].append(begin)
        return begin

    def start_of(op: Op) -> int:
        t = max(t_unit[op.unit], t_dispatch + 1, slot_free(op.unit))
        for d in op.deps:
            if d in end:
                t = max(t, end[d])
        return t

    heap = [(0, op.id) for op in ops if indeg[op.id] == 0]
    heapq.heapify(heap)
    done = 0
    while heap:
        est, i = heapq.heappop(heap)
        op = by_id[i]
        now = start_of(op)
        if now > est and heap and now > heap[0][0]:
            heapq.heappush(heap, (now, i))
            continue
        u = op.unit
        # waits: every dependency on another unit not yet known complete
        for d in op.deps:
            if d not in by_id:
                continue
            p = by_id[d].unit
            if p == u or know[u][p] >= pos[d]:
                continue
            pair = (p, u)
            sigs = signals[pair]
            k = next(k for k in range(taken.get(pair, -1) + 1, len(sigs)) if sigs[k][0] >= pos[d])
            sigs[k][3][0] = True
            stream.sem(pair)
            stream.entries.append(("wait", u, pair))
            taken[pair] = k
            for unit, value in sigs[k][1].items():
                know[u][unit] = max(know[u][unit], value)
            issue(u, sigs[k][2], 1)
        for reg, value in op.regs.items():
            if stream.regs[u].get(reg, RESET[reg]) != value:
                stream.entries.append(("cfg", u, reg, value))
                stream.regs[u][reg] = value
                issue(u, 0, 1)
        ready = max((end[d] for d in op.deps if d in end), default=0)
        begin = issue(u, ready, op.cycles)
        if op.nbytes:  # DMA: setup, then beats on the shared port, then latency; the zero
            # fill of a padded load runs from the start beside them and needs no port
            beats_at = max(begin + hw.dma_setup, port_free)
            port_free = beats_at + hw.beats(op.nbytes)
            t_unit[u] = max(port_free + hw.dram_latency, begin + hw.dma_fill(op.fill))
        finish = t_unit[u]
        stream.entries.append(("op", op))
        pos[i] = count[u]
        count[u] += 1
        know[u][u] = pos[i]
        end[i] = finish
        for c in sorted(succ_units[i]):
            pair = (u, c)
            flag = [False]
            signals.setdefault(pair, []).append((pos[i], dict(know[u]), finish + 1, flag))
            stream.entries.append(("signal", u, pair, flag))
            issue(u, finish, 1)
        done += 1
        for s in succs[i]:
            indeg[s] -= 1
            if indeg[s] == 0:
                heapq.heappush(heap, (start_of(by_id[s]), s))
    if done != len(ops):
        stuck = [op for op in ops if op.id not in end][:3]
        raise CompilerError("internal: cyclic dependencies between ops: "
                            + "; ".join(f"[{o.unit}] {o.text}" for o in stuck))
