"""The per-layer table of a run: every cycle attributed to one layer (docs/layers.md), the layer's
span, overlap, stalls by cause and unit, roofline on the run's Target and bound label."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Why a cycle went to a layer, in the order of cycles_by_cause. A cycle's owner is the claim of
# lowest rank covering it (ties: the oldest instruction, the lowest index on its core).
CAUSES = ("compute", "dma", "token", "dram", "queue", "barrier", "idle")
STALL_CAUSES = ("token", "dram", "queue", "barrier")
UNIT_CLASSES = ("matrix", "vector", "dma", "dispatch")
RANK_MATRIX, RANK_VECTOR, RANK_DMA, RANK_WAIT, RANK_DISPATCH = range(5)
_COMPUTE, _DMA, _TOKEN, _DRAM, _QUEUE, _BARRIER, _IDLE = range(len(CAUSES))

# A layer whose cycles exceed this many times its larger roofline term (compute or memory) is
# far from both bounds; it is still `compute` when its matrix/vector units were busy for most
# of its cycles (they run below peak: small tiles, pipeline fill) and `memory` when its
# instructions waited more for the DRAM port than on tokens, barriers and full queues; else
# `latency`: DMA setup and latency and the units waiting on each other set its time.
LATENCY_FACTOR = 2.0


@dataclass
class Partition:
    """cycles[layer, cause] (the rows sum to the run's cycles) and, per core, the spans
    (core, start, end, layer) of consecutive cycles attributed to one layer."""

    cycles: np.ndarray
    spans: list


def row_layers(artifact, df) -> np.ndarray:
    """The layer index of every trace row, from the artifact's per-core runs of instructions;
    an instruction before a core's first run counts to that first layer (so does a core
    without any run: layer 0)."""
    layer = np.zeros(len(df), np.int64)
    cores, idx = df["core"].to_numpy(), df["index"].to_numpy()
    for c, runs in enumerate(artifact.layer_of):
        if not runs:
            continue
        starts = np.array([r[0] for r in runs])
        ids = np.array([r[1] for r in runs])
        sel = cores == c
        pos = np.searchsorted(starts, idx[sel], side="right") - 1
        layer[sel] = ids[np.maximum(pos, 0)]
    return layer


def unit_classes(df) -> np.ndarray:
    """UNIT_CLASSES index of every trace row (dma0, dma1, ... are one class)."""
    unit = df["unit"].to_numpy()
    out = np.full(len(df), 2, np.int64)  # dma*
    out[unit == "matrix"] = 0
    out[unit == "vector"] = 1
    out[unit == "dispatch"] = 3
    return out


def _claims(df, layer, klass, dispatch_cycles: int) -> dict:
    """Every interval some instruction holds a unit, as arrays: core, track (a unit of that
    core: its intervals never overlap), begin, end, rank, cause, index, layer.

    A unit instruction waits first (a `wait` for its semaphore; a load/store for the DRAM
    port: its port waits are put first by convention, the trace has only their sum) and is
    busy for the rest; a dispatcher row waits for its barrier, then runs; a dispatch that
    waited for a full queue claims the dispatcher for those cycles."""
    start, end = df["start"].to_numpy(), df["end"].to_numpy()
    token, dram = df["stall_token"].to_numpy(), df["stall_dram"].to_numpy()
    barrier, queue = df["stall_barrier"].to_numpy(), df["stall_queue"].to_numpy()
    core, index = df["core"].to_numpy(), df["index"].to_numpy()
    unit = df["unit"].to_numpy()
    names, track = np.unique(unit, return_inverse=True)
    disp = klass == 3
    waited = np.where(disp, barrier, token + dram)
    wait_cause = np.where(disp, _BARRIER, np.where(token > 0, _TOKEN, _DRAM))
    busy_rank = np.array([RANK_MATRIX, RANK_VECTOR, RANK_DMA, RANK_DISPATCH])[klass]
    busy_cause = np.array([_COMPUTE, _COMPUTE, _DMA, _IDLE])[klass]
    q = queue > 0
    qb = df["dispatched"].to_numpy()[q] + dispatch_cycles
    dtrack = int(np.searchsorted(names, "dispatch"))
    if dtrack == len(names) or names[dtrack] != "dispatch":  # no dispatcher row in the trace
        dtrack = len(names)
    cat = np.concatenate
    return {"core": cat([core, core, core[q]]),
            "track": cat([track, track, np.full(int(q.sum()), dtrack)]),
            "begin": cat([start, start + waited, qb]),
            "end": cat([start + waited, end, qb + queue[q]]),
            "rank": cat([np.full(len(df), RANK_WAIT), busy_rank, np.full(int(q.sum()),
                                                                        RANK_WAIT)]),
            "cause": cat([wait_cause, busy_cause, np.full(int(q.sum()), _QUEUE)]),
            "index": cat([index, index, index[q]]),
            "layer": cat([layer, layer, layer[q]])}


def partition(df, layer, klass, cycles: int, num_cores: int, num_layers: int,
              dispatch_cycles: int = 1) -> Partition:
    """Attribute each cycle of [0, cycles) on each core to one layer and cause: the claim of
    lowest (rank, index) covering it; a cycle nobody claims is `idle` and goes to the next
    layer to start on that core (else its last one). The cores' counts are averaged (a
    layer's cycles are its core-cycles / num_cores), rounded to integers that keep every sum."""
    acc = np.zeros((num_layers, len(CAUSES)), np.int64)
    spans = []
    if num_layers == 0:
        return Partition(acc, spans)
    cl = _claims(df, layer, klass, dispatch_cycles)
    keep = cl["end"] > cl["begin"]
    cl = {k: v[keep] for k, v in cl.items()}
    big = int(df["index"].max()) + 2 if len(df) else 2
    row_core, row_start = df["core"].to_numpy(), df["start"].to_numpy()
    for c in range(num_cores):
        on = cl["core"] == c
        b, e = cl["begin"][on], cl["end"][on]
        bounds = np.unique(np.concatenate([[0, cycles], b, e]))
        bounds = bounds[(bounds >= 0) & (bounds <= cycles)]
        seg = bounds[:-1]
        best = np.full(len(seg), np.iinfo(np.int64).max)
        who = np.full(len(seg), -1)
        ids = np.flatnonzero(on)
        key = cl["rank"][on] * big + cl["index"][on]
        track = cl["track"][on]
        for t in np.unique(track):
            mine = track == t
            tb, te, tk, ti = b[mine], e[mine], key[mine], ids[mine]
            order = np.argsort(tb, kind="stable")
            tb, te, tk, ti = tb[order], te[order], tk[order], ti[order]
            pos = np.searchsorted(tb, seg, side="right") - 1
            ok = pos >= 0
            ok[ok] = te[pos[ok]] > seg[ok]
            better = ok & (tk[np.maximum(pos, 0)] < best)
            best[better] = tk[pos[better]]
            who[better] = ti[pos[better]]
        seg_layer = np.where(who >= 0, cl["layer"][np.maximum(who, 0)], -1)
        seg_cause = np.where(who >= 0, cl["cause"][np.maximum(who, 0)], _IDLE)
        free = who < 0
        if free.any():  # to the next layer to start here, else this core's last one
            mine = row_core == c
            starts = row_start[mine]
            lays = layer[mine]
            if len(starts):
                order = np.argsort(starts, kind="stable")
                starts, lays = starts[order], lays[order]
                nxt = np.searchsorted(starts, seg[free], side="left")
                seg_layer[free] = lays[np.minimum(nxt, len(lays) - 1)]
            else:
                seg_layer[free] = 0
        length = np.diff(bounds)
        np.add.at(acc, (seg_layer, seg_cause), length)
        change = np.flatnonzero(np.diff(seg_layer)) + 1
        first = np.concatenate([[0], change])
        last = np.concatenate([change, [len(seg)]])
        spans += [(c, int(bounds[i]), int(bounds[j]), int(seg_layer[i]))
                  for i, j in zip(first, last) if len(seg)]
    return Partition(share(acc, num_cores), spans)


def share(acc: np.ndarray, n: int) -> np.ndarray:
    """acc / n in integers: each row rounded by largest remainder so the rows sum to
    acc.sum() / n, then each row's causes likewise to its row total."""
    if n == 1:
        return acc
    total = acc.sum() // n

    def spread(values, target):
        base, rem = values // n, values % n
        order = np.argsort(-rem, kind="stable")
        base[order[:int(target - base.sum())]] += 1
        return base

    rows = spread(acc.sum(axis=1), total)
    return np.array([spread(r, t) if t else np.zeros_like(r) for r, t in zip(acc, rows)],
                    np.int64).reshape(acc.shape)


def overlap(df, layer, num_layers: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start, end, overlap) per layer: its first start, its last end, and the cycles of
    [start, end) during which an instruction of another layer was in flight (between its
    start and end, on any unit of any core). -1 start/end for a layer without instructions."""
    start, end = df["start"].to_numpy(), df["end"].to_numpy()
    first = np.full(num_layers, -1, np.int64)
    last = np.full(num_layers, -1, np.int64)
    over = np.zeros(num_layers, np.int64)
    run = end > start
    start, end, layer = start[run], end[run], layer[run]
    if not len(start):
        return first, last, over
    bounds = np.unique(np.concatenate([start, end]))
    seg = bounds[:-1]
    length = np.diff(bounds)
    all_s, all_e = np.sort(start), np.sort(end)
    in_flight = (np.searchsorted(all_s, seg, side="right")
                 - np.searchsorted(all_e, seg, side="right"))
    order = np.argsort(layer, kind="stable")
    cuts = np.searchsorted(layer[order], np.arange(num_layers + 1))
    for i in range(num_layers):
        rows = order[cuts[i]:cuts[i + 1]]
        if not len(rows):
            continue
        ls, le = np.sort(start[rows]), np.sort(end[rows])
        first[i], last[i] = ls[0], le[-1]
        lo, hi = np.searchsorted(seg, [first[i], last[i]])
        s = seg[lo:hi]
        mine = np.searchsorted(ls, s, side="right") - np.searchsorted(le, s, side="right")
        over[i] = int(length[lo:hi][in_flight[lo:hi] > mine].sum())
    return first, last, over


def stall_sums(df, layer, klass, num_layers: int) -> np.ndarray:
    """[layer, unit class, cause] stall cycles summed over the layer's instructions."""
    out = np.zeros((num_layers, len(UNIT_CLASSES), len(STALL_CAUSES)), np.int64)
    for j, cause in enumerate(STALL_CAUSES):
        np.add.at(out[:, :, j], (layer, klass), df[f"stall_{cause}"].to_numpy())
    return out


def bound(cycles: int, compute: float, memory: float, stalls: dict, by_cause: dict) -> str:
    """compute | memory | latency, from the roofline terms (compute: MACs at peak or the
    vector work; memory: DRAM bytes at the port's bandwidth) and the measured causes."""
    if cycles > LATENCY_FACTOR * max(compute, memory):
        if 2 * by_cause["compute"] >= cycles:
            return "compute"
        sync = stalls["token"] + stalls["barrier"] + stalls["queue"]
        return "memory" if stalls["dram"] >= sync else "latency"
    return "memory" if memory >= compute else "compute"


def layer_table(artifact, result) -> list:
    """One row per layer (docs/layers.md): name, kind, MACs, cycles (a partition of the run),
    utilization, DRAM bytes, bound, roofline on the run's Target, the compiler's estimate and
    schedule, start, end, overlap_cycles, stalls, stalls_by_unit and cycles_by_cause."""
    return LayerTable(artifact, result).rows()


class LayerTable:
    """The vectorized sweeps over one run's trace that layer_table() puts in rows; `spans`
    are the partition's per-core layer spans (the Perfetto layer track)."""

    def __init__(self, artifact, result):
        from isa import timing
        self.artifact, self.result = artifact, result
        df = result.trace
        target = result.target
        n = len(artifact.layers)
        self.layer = row_layers(artifact, df)
        self.klass = unit_classes(df)
        dispatch = timing.RULES["dispatch"](timing.HwParams.from_target(target))
        self.part = partition(df, self.layer, self.klass, int(result.cycles),
                              target.num_cores, n, dispatch)
        self.first, self.last, self.over = overlap(df, self.layer, n)
        self.stalls = stall_sums(df, self.layer, self.klass, n)
        dur = (df["end"] - df["start"] - df["stall"]).to_numpy()
        vec = self.klass == 1
        self.vector_busy = np.bincount(self.layer[vec], dur[vec], minlength=n)
        dma = self.klass == 2  # bytes: what a load/store moved over the DRAM port, else 0
        self.dram_bytes = np.bincount(self.layer[dma], df["bytes"].to_numpy()[dma], minlength=n)

    @property
    def spans(self) -> list:
        return self.part.spans

    def rows(self) -> list:
        from compiler.lower.program import roofline_cycles
        target = self.result.target
        peak = target.derived.peak_macs_per_cycle
        rows = []
        for i, info in enumerate(self.artifact.layers):
            by_cause = {k: int(v) for k, v in zip(CAUSES, self.part.cycles[i])}
            cycles = sum(by_cause.values())
            stalls = {k: int(v) for k, v in zip(STALL_CAUSES, self.stalls[i].sum(axis=0))}
            macs = int(info["macs"])  # the model's MACs (executed ones include zero weights)
            nbytes = int(self.dram_bytes[i])
            # a layer the compiler introduced has no roofline of its own (0 in the manifest)
            roof = (roofline_cycles(macs, info["min_dram_bytes"], target)
                    if info.get("roofline_cycles") and "min_dram_bytes" in info
                    else float(info.get("roofline_cycles") or 0.0))
            # the cores share the vector work of a layer and the DRAM port
            compute = max(macs / peak, self.vector_busy[i] / target.num_cores)
            memory = nbytes / target.dram_bw
            rows.append({
                "name": info["name"], "kind": info["kind"], "macs": macs, "cycles": cycles,
                "utilization": macs / (cycles * peak) if cycles else 0.0,
                "dram_bytes": nbytes, "bound": bound(cycles, compute, memory, stalls, by_cause),
                "roofline_cycles": round(roof, 1), "est_cycles": info.get("est_cycles"),
                "schedule": info.get("schedule", ""),
                "start": int(self.first[i]) if self.first[i] >= 0 else None,
                "end": int(self.last[i]) if self.last[i] >= 0 else None,
                "overlap_cycles": int(self.over[i]), "stalls": stalls,
                "stalls_by_unit": {u: {k: int(v) for k, v in zip(STALL_CAUSES, self.stalls[i, j])}
                                   for j, u in enumerate(UNIT_CLASSES)},
                "cycles_by_cause": by_cause})
        return rows
