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

    def instructions(self) -> tuple:
        """The isa Instructions in stream order (signals nobody waited for dropped), and the
        Op each one is (None for a sync, cfg or barrier): two lists. The sync and cfg
        instructions repeat a few forms thousands of times: each form is built (and
        validated) once and shared, as decoding a program shares them too."""
        made: dict = {}
        instrs, owners = [], []
        add, own = instrs.append, owners.append
        pairs = self.pairs
        for e in self.entries:
            kind = e[0]
            if kind == "op":
                add(e[1].ins)
                own(e[1])
                continue
            if kind == "signal":
                if not e[3][0]:
                    continue
                key = ("signal", e[1], pairs[e[2]])
            elif kind == "wait":
                key = ("wait", e[1], pairs[e[2]])
            elif kind == "cfg":
                key = e
            else:
                add(e[1])
                own(None)
                continue
            ins = made.get(key)
            if ins is None:
                if kind == "cfg":
                    ins = make_instruction("cfg", unit=e[1], reg=e[2], value=e[3])
                else:
                    ins = make_instruction(kind, unit=key[1], sem=key[2])
                made[key] = ins
            add(ins)
            own(None)
        return instrs, owners


def schedule(ops: list, stream: Stream) -> None:
    """Append `ops` (one core, ids and deps filled, deps only inside `ops` or already
    complete) to `stream` in a dependency-respecting, timeline-like order.

    A model has 10^4-10^5 ops, each popped some three times: the state is kept in lists
    indexed by the op's place in `ops` and by unit number, and the dispatch rule is written
    out inline (the same steps, in the same order, as a function per step would take)."""
    if not ops:
        return
    hw, units = stream.hw, stream.units
    n = len(ops)
    nu = len(units)
    unit_no = {u: k for k, u in enumerate(units)}
    uop = [unit_no[op.unit] for op in ops]
    # deps as places in `ops` (the rest are complete); the Tracker numbers a core's ops
    # consecutively, so a place is the id less the first one's
    base = ops[0].id
    if base == 0 and ops[-1].id == n - 1:  # the whole stream (one core, no barriers)
        deps = [op.deps for op in ops]
    elif ops[-1].id - base == n - 1:
        deps = [[d - base for d in op.deps if d >= base] for op in ops]
    else:
        place = {op.id: k for k, op in enumerate(ops)}
        deps = [[place[d] for d in op.deps if d in place] for op in ops]
    # the signals after an op go to the other units that follow it, in unit-name order
    rank = {u: k for k, u in enumerate(sorted(range(nu), key=lambda u: units[u]))}
    succs = [[] for _ in range(n)]
    succ_mask = [0] * n           # bit rank[c]: unit c runs a successor
    # per op: (dependency, its unit) of its dependencies on other units, in id order: the
    # ones that may need a wait
    cross = [None] * n
    indeg = [0] * n
    for i in range(n):
        u = uop[i]
        others = cross[i] = []
        bit = 1 << rank[u]
        for d in deps[i]:
            succs[d].append(i)
            p = uop[d]
            if p != u:
                succ_mask[d] |= bit
                others.append((d, p))
        indeg[i] = len(deps[i])
    by_mask: dict = {}            # mask -> its units, in name order
    order = sorted(range(nu), key=lambda u: units[u])
    # per op: the latest estimated end of its dependencies, final once it is ready (each
    # edge is visited here and once more for waits, not at each look at the op)
    ready_at = [0] * n
    cycles = [op.cycles for op in ops]
    t_unit = [0] * nu
    qstarts = [[] for _ in range(nu)]  # start cycle of every instruction issued to each unit
    depth = hw.queue_depth
    pos = [-1] * n              # op -> position on its unit
    count = [0] * nu
    # know[c][p]: highest position on unit p that unit c knows has completed
    know = [[-1] * nu for _ in range(nu)]
    # pair p * nu + c -> its signals: (producer position, clock snapshot, time, used flag
    # holder), their producer positions, the index of the last one consumed, its names
    signals = [[] for _ in range(nu * nu)]
    sigpos = [[] for _ in range(nu * nu)]
    taken = [-1] * (nu * nu)
    pair_names = [(units[p], units[c]) for p in range(nu) for c in range(nu)]
    pairs_made = stream.pairs
    held_regs = [stream.regs[u] for u in units]
    port_free = 0
    t_dispatch = 0
    dma_setup, dram_latency = hw.dma_setup, hw.dram_latency
    beats_of: dict = {}         # DMA bytes -> the port's beats; fill elements -> fill cycles
    fill_of: dict = {}
    entries = stream.entries
    append = entries.append
    heappush, heappop, heapreplace = heapq.heappush, heapq.heappop, heapq.heapreplace

    # ties (ops that could start at the same cycle) go to the op with the longest estimated
    # path to the end (its bottom level), then to program order: a copy streaming on a DMA
    # channel must not keep the consumer's loads behind it on that channel (in-order queues)
    bottom = [0] * n
    for i in range(n - 1, -1, -1):
        tail = 0
        for s in succs[i]:
            if bottom[s] > tail:
                tail = bottom[s]
        bottom[i] = cycles[i] + tail
    level = [-b for b in bottom]  # heap keys: the longest path first
    heap = [(0, level[i], i) for i in range(n) if indeg[i] == 0]
    heapq.heapify(heap)
    done = 0
    while heap:
        est, lv, i = heappop(heap)
        while True:
            u = uop[i]
            # its start: after the dispatcher's next slot, its unit's last op, a free queue
            # slot and its dependencies
            q = qstarts[u]
            now = t_unit[u]
            if t_dispatch + 1 > now:
                now = t_dispatch + 1
            if len(q) >= depth and q[-depth] > now:
                now = q[-depth]
            if ready_at[i] > now:
                now = ready_at[i]
            if now <= est or not heap:
                break
            top = heap[0]
            if now < top[0] or (now == top[0] and lv <= top[1]):
                break
            # stale: back in at its start, and the others go first (one sift for both)
            est, lv, i = heapreplace(heap, (now, lv, i))
        op = ops[i]
        know_u = know[u]
        # waits: every dependency on another unit not yet known complete
        for d, p in cross[i]:
            if know_u[p] >= pos[d]:
                continue
            pair = p * nu + u
            sigs = signals[pair]
            # the first signal after the last one taken from a position >= d's (positions
            # grow along sigs, so a bisection finds it)
            k = bisect_left(sigpos[pair], pos[d], taken[pair] + 1)
            sig = sigs[k]
            sig[3][0] = True
            names = pair_names[pair]
            if names not in pairs_made:
                stream.sem(names)
            append(("wait", names[1], names))
            taken[pair] = k
            know_u = know[u] = list(map(max, know_u, sig[1]))
            # issue the wait (one cycle, once its signal has come)
            t_dispatch += 1
            if len(q) >= depth and q[-depth] > t_dispatch:
                t_dispatch = q[-depth]
            begin = t_dispatch
            if t_unit[u] > begin:
                begin = t_unit[u]
            if sig[2] > begin:
                begin = sig[2]
            t_unit[u] = begin + 1
            q.append(begin)
        regs = op.regs
        if regs:
            held = held_regs[u]
            if not regs.items() <= held.items():  # a cfg for each register that differs
                for reg, value in regs.items():
                    if held[reg] != value:
                        append(("cfg", units[u], reg, value))
                        held[reg] = value
                        t_dispatch += 1
                        if len(q) >= depth and q[-depth] > t_dispatch:
                            t_dispatch = q[-depth]
                        begin = t_dispatch if t_dispatch > t_unit[u] else t_unit[u]
                        t_unit[u] = begin + 1
                        q.append(begin)
        t_dispatch += 1
        if len(q) >= depth and q[-depth] > t_dispatch:
            t_dispatch = q[-depth]
        begin = t_dispatch
        if t_unit[u] > begin:
            begin = t_unit[u]
        if ready_at[i] > begin:
            begin = ready_at[i]
        finish = t_unit[u] = begin + cycles[i]
        q.append(begin)
        if op.nbytes:  # DMA: setup, then beats on the shared port, then latency; the zero
            # fill of a padded load runs from the start beside them and needs no port
            beats_at = max(begin + dma_setup, port_free)
            beats = beats_of.get(op.nbytes)
            if beats is None:
                beats = beats_of[op.nbytes] = hw.beats(op.nbytes)
            fill = fill_of.get(op.fill)
            if fill is None:
                fill = fill_of[op.fill] = hw.dma_fill(op.fill)
            port_free = beats_at + beats
            finish = t_unit[u] = max(port_free + dram_latency, begin + fill)
        append(("op", op))
        at = pos[i] = count[u]
        count[u] = at + 1
        know_u[u] = at
        mask = succ_mask[i]
        if mask:
            clock = know_u[:]  # the snapshot its signals carry (read only)
            targets = by_mask.get(mask)
            if targets is None:
                targets = by_mask[mask] = [c for c in order if mask >> rank[c] & 1]
            for c in targets:
                pair = u * nu + c
                flag = [False]
                signals[pair].append((at, clock, finish + 1, flag))
                sigpos[pair].append(at)
                append(("signal", units[u], pair_names[pair], flag))
                # issue the signal (one cycle, once the op is done)
                t_dispatch += 1
                if len(q) >= depth and q[-depth] > t_dispatch:
                    t_dispatch = q[-depth]
                begin = t_dispatch
                if t_unit[u] > begin:
                    begin = t_unit[u]
                if finish > begin:
                    begin = finish
                t_unit[u] = begin + 1
                q.append(begin)
        done += 1
        for s in succs[i]:
            if finish > ready_at[s]:
                ready_at[s] = finish
            indeg[s] -= 1
            if indeg[s] == 0:
                # its start now (as above)
                c = uop[s]
                qc = qstarts[c]
                t = t_unit[c]
                if t_dispatch + 1 > t:
                    t = t_dispatch + 1
                if len(qc) >= depth and qc[-depth] > t:
                    t = qc[-depth]
                if ready_at[s] > t:
                    t = ready_at[s]
                heappush(heap, (t, level[s], s))
    if done != n:
        stuck = [op for k, op in enumerate(ops) if pos[k] < 0][:3]
        raise CompilerError("internal: cyclic dependencies between ops: "
                            + "; ".join(f"[{o.unit}] {format_instruction(o.ins)}" for o in stuck))
