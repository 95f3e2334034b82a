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
from bisect import bisect_left

from isa.asm.disassembler import format_instruction
from isa.codec import make_instruction

from isa.checks import reset_registers

from ...errors import CompilerError
from ...lower.cost import Hw
from .ops import Op

RESET = reset_registers()  # a unit's config registers before the stream's first cfg


class Stream:
    """One core's emitted stream: ('op', Op) / ('cfg', unit, reg, value) / ('wait', unit,
    pair) / ('signal', unit, pair, used flag holder) / ('ins', Instruction) entries."""

    def __init__(self, hw: Hw, units: list):
        self.hw = hw
        self.units = units
        self.entries: list = []
        self.regs = {u: dict(RESET) for u in units}  # what each unit's registers hold
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

    def instructions(self) -> list:
        """(entry, isa Instruction) in stream order; signals nobody waited for are dropped.
        The sync and cfg instructions repeat a few forms thousands of times: each form is
        built (and validated) once and shared, as decoding a program shares them too."""
        made: dict = {}

        def once(key, mnemonic: str, **fields):
            ins = made.get(key)
            if ins is None:
                ins = made[key] = make_instruction(mnemonic, **fields)
            return ins

        out = []
        for e in self.entries:
            kind = e[0]
            if kind == "op":
                out.append((e, e[1].ins))
            elif kind == "cfg":
                out.append((e, once(e, "cfg", unit=e[1], reg=e[2], value=e[3])))
            elif kind == "wait":
                sem = self.pairs[e[2]]
                out.append((e, once(("wait", e[1], sem), "wait", unit=e[1], sem=sem)))
            elif kind == "signal":
                if e[3][0]:
                    sem = self.pairs[e[2]]
                    out.append((e, once(("signal", e[1], sem), "signal", unit=e[1], sem=sem)))
            else:
                out.append((e, e[1]))
        return out


def schedule(ops: list, stream: Stream) -> None:
    """Append `ops` (one core, ids and deps filled, deps only inside `ops` or already
    complete) to `stream` in a dependency-respecting, timeline-like order."""
    if not ops:
        return
    hw, units = stream.hw, stream.units
    by_id = {op.id: op for op in ops}
    unit_of = {op.id: op.unit for op in ops}
    indeg = {}
    succs: dict = {op.id: [] for op in ops}
    succ_units: dict = {op.id: set() for op in ops}  # op id -> the other units that follow it
    # op id -> (dependency, its unit) of its dependencies inside `ops` (the rest are done) on
    # other units, in id order: the ones that may need a wait
    cross: dict = {}
    # op id -> the latest estimated end of its dependencies, final once it is ready (a model
    # has some 10 dependencies per op: each edge is visited here and once more for waits,
    # not at each look at the op)
    ready_at = dict.fromkeys(by_id, 0)
    for op in ops:
        i, u = op.id, op.unit
        others = cross[i] = []
        n = 0
        for d in op.deps:
            p = unit_of.get(d)
            if p is None:  # complete before `ops`
                continue
            n += 1
            succs[d].append(i)
            if p != u:
                succ_units[d].add(u)
                others.append((d, p))
        indeg[i] = n
    t_unit = dict.fromkeys(units, 0)
    qstarts = {u: [] for u in units}  # start cycle of every instruction issued to each unit
    depth = hw.queue_depth
    pos = {}                    # op id -> position on its unit
    count = dict.fromkeys(units, 0)
    # know[c][p]: highest position on unit p that unit c knows has completed
    know = {c: dict.fromkeys(units, -1) for c in units}
    pairs = [(p, c) for p in units for c in units if p != c]
    # pair -> its signals: (producer position, clock snapshot, time, used flag holder)
    signals: dict = {pair: [] for pair in pairs}
    sigpos: dict = {pair: [] for pair in pairs}  # pair -> its signals' producer positions
    taken: dict = {}            # pair -> index of the last signal consumed
    port_free = 0
    t_dispatch = 0
    entries = stream.entries

    def issue(u: str, ready: int, cycles: int) -> int:
        """Dispatch one instruction to u (in order, blocking on a full queue: a slot frees
        as its unit starts an instruction); its start."""
        nonlocal t_dispatch
        q = qstarts[u]
        t_dispatch += 1
        if len(q) >= depth and q[-depth] > t_dispatch:
            t_dispatch = q[-depth]
        begin = t_dispatch
        if t_unit[u] > begin:
            begin = t_unit[u]
        if ready > begin:
            begin = ready
        t_unit[u] = begin + cycles
        q.append(begin)
        return begin

    def start_of(op: Op) -> int:
        u = op.unit
        q = qstarts[u]
        t = t_unit[u]
        if t_dispatch + 1 > t:
            t = t_dispatch + 1
        if len(q) >= depth and q[-depth] > t:
            t = q[-depth]
        if ready_at[op.id] > t:
            t = ready_at[op.id]
        return t

    # ties (ops that could start at the same cycle) go to the op with the longest estimated
    # path to the end (its bottom level), then to program order: a copy streaming on a DMA
    # channel must not keep the consumer's loads behind it on that channel (in-order queues)
    bottom = {}
    for op in reversed(ops):
        tail = 0
        for s in succs[op.id]:
            if bottom[s] > tail:
                tail = bottom[s]
        bottom[op.id] = op.cycles + tail
    level = {i: -b for i, b in bottom.items()}  # heap keys: the longest path first
    heap = [(0, level[op.id], op.id) for op in ops if indeg[op.id] == 0]
    heapq.heapify(heap)
    done = 0
    while heap:
        est, lv, i = heapq.heappop(heap)
        op = by_id[i]
        now = start_of(op)
        if now > est and heap and (now, lv) > heap[0][:2]:  # stale: let the others go first
            heapq.heappush(heap, (now, lv, i))
            continue
        u = op.unit
        know_u = know[u]
        # waits: every dependency on another unit not yet known complete
        for d, p in cross[i]:
            if know_u[p] >= pos[d]:
                continue
            pair = (p, u)
            sigs = signals[pair]
            # the first signal after the last one taken from a position >= d's (positions
            # grow along sigs, so a bisection finds it)
            k = bisect_left(sigpos[pair], pos[d], taken.get(pair, -1) + 1)
            sigs[k][3][0] = True
            stream.sem(pair)
            entries.append(("wait", u, pair))
            taken[pair] = k
            for unit, value in sigs[k][1].items():
                if value > know_u[unit]:
                    know_u[unit] = value
            issue(u, sigs[k][2], 1)
        held = stream.regs[u]
        if not op.regs.items() <= held.items():  # a cfg for each register that differs
            for reg, value in op.regs.items():
                if held[reg] != value:
                    entries.append(("cfg", u, reg, value))
                    held[reg] = value
                    issue(u, 0, 1)
        begin = issue(u, ready_at[i], op.cycles)
        if op.nbytes:  # DMA: setup, then beats on the shared port, then latency; the zero
            # fill of a padded load runs from the start beside them and needs no port
            beats_at = max(begin + hw.dma_setup, port_free)
            port_free = beats_at + hw.beats(op.nbytes)
            t_unit[u] = max(port_free + hw.dram_latency, begin + hw.dma_fill(op.fill))
        finish = t_unit[u]
        entries.append(("op", op))
        pos[i] = count[u]
        count[u] += 1
        know_u[u] = pos[i]
        targets = succ_units[i]
        if targets:
            clock = dict(know_u)  # the snapshot its signals carry (read only)
        for c in (sorted(targets) if len(targets) > 1 else targets):
            pair = (u, c)
            flag = [False]
            signals[pair].append((pos[i], clock, finish + 1, flag))
            sigpos[pair].append(pos[i])
            entries.append(("signal", u, pair, flag))
            issue(u, finish, 1)
        done += 1
        for s in succs[i]:
            if finish > ready_at[s]:
                ready_at[s] = finish
            indeg[s] -= 1
            if indeg[s] == 0:
                heapq.heappush(heap, (start_of(by_id[s]), level[s], s))
    if done != len(ops):
        stuck = [op for op in ops if op.id not in pos][:3]
        raise CompilerError("internal: cyclic dependencies between ops: "
                            + "; ".join(f"[{o.unit}] {format_instruction(o.ins)}" for o in stuck))
