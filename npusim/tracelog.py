"""The trace as a run records it: per unit, one tuple of ints per instruction, expanded when read."""

from __future__ import annotations

# the columns of a recorded row (npusim.stats.trace_frame adds the stall sum and stall_queue)
RECORDED = ("core", "unit", "index", "mnemonic", "start", "end", "bytes", "macs", "stall_token",
            "stall_dram", "stall_barrier", "dispatched")
# instructions that run without an ExecInfo (npusim.units.base: no bytes, no MACs)
NO_INFO = frozenset(("signal", "wait"))


class TraceLog:
    """What the units and dispatchers of a run append, cheaply, while it runs.

    A unit appends (index, start, end, stall_token, stall_dram, dispatched) to its own list
    (`unit_rows`): ints only, so the collector, which scans what a run leaves alive once it
    is on again, drops them after one look. The mnemonic comes from the core's stream at that
    index, bytes and MACs from the unit's ExecInfos (`Unit.infos`, one per instruction in
    run order, except signal and wait). A dispatcher appends whole rows (RECORDED) to `rows`.
    `columns()` expands both into the trace's columns when the trace is asked for.
    """

    def __init__(self):
        self.units: list = []   # (Unit, its list of rows)
        self.rows: list = []    # RECORDED tuples (the dispatchers' own instructions)

    def unit_rows(self, unit) -> list:
        rows: list = []
        self.units.append((unit, rows))
        return rows

    def __len__(self) -> int:
        return len(self.rows) + sum(len(rows) for _, rows in self.units)

    def columns(self) -> dict:
        """{column: values} of every recorded row (RECORDED), units first, then dispatchers."""
        cols: dict = {c: [] for c in RECORDED}
        for unit, rows in self.units:
            if not rows:
                continue
            stream = unit.core.dispatcher.entries  # (instr, unit, kind, arg) per index
            indexes, starts, ends, tokens, drams, dispatched = zip(*rows)
            mnemonics = [stream[i][0].spec for i in indexes]
            infos = iter(unit.infos)
            work = [(0, 0) if spec.ref in NO_INFO else _work(next(infos)) for spec in mnemonics]
            n = len(rows)
            cols["core"] += [unit.core.index] * n
            cols["unit"] += [unit.name] * n
            cols["index"] += indexes
            cols["mnemonic"] += [spec.mnemonic for spec in mnemonics]
            cols["start"] += starts
            cols["end"] += ends
            cols["bytes"] += [b for b, _ in work]
            cols["macs"] += [m for _, m in work]
            cols["stall_token"] += tokens
            cols["stall_dram"] += drams
            cols["stall_barrier"] += [0] * n
            cols["dispatched"] += dispatched
        for row in self.rows:
            for column, value in zip(RECORDED, row):
                cols[column].append(value)
        return cols


def _work(info) -> tuple:
    return info.dram_bytes, info.macs
