"""Across a gbarrier: the next layer's first constant loads run before it, in this layer's tail.

Split over cores, a gbarrier separates every two layers, so each layer began with its first
weight and table loads, all cores at once on the shared DRAM port (npu-server's MobileNetV2:
47.6k cycles from the layers' starts to their first matrix instruction), while the port sat
nearly idle in the layer before's tail (its last epilogues and stores) and the barrier's wait
for the slowest core. A load that reads only constants (DRAM from the constants' base up,
which nothing writes) and writes only this core's SRAM depends on nothing another core does,
so it may run before the barrier: after the slot it fills is free on this core (the hazard
tracker's order against the layer before, which it still sees), and after that layer's last
loads, so that it takes the port only once this core's layer no longer needs it for input."""

from __future__ import annotations


def constant_load(op, const_base: int) -> bool:
    """A DMA op that reads DRAM only from the constants up and writes no DRAM."""
    if not op.nbytes or not op.unit.startswith("dma"):
        return False
    if any(space == "dram" for space, _, _ in op.writes):
        return False
    dram = [lo for space, lo, _ in op.reads if space == "dram"]
    return bool(dram) and min(dram) >= const_base


def split_head(ops: list, before: list, const_base: int) -> tuple:
    """(hoisted, rest) of one core's `ops` of a layer, `before` that core's ops of the layer
    before (not yet scheduled): the hoisted are the layer's constant loads ahead of its first
    compute op in program order whose dependencies are all on `before` (or on other hoisted
    ones); each also follows `before`'s last DRAM load on every DMA unit."""
    if not ops:
        return [], ops
    first = ops[0].id
    compute = next((k for k, op in enumerate(ops) if op.unit == "matrix"), None)
    if compute is None:
        compute = next((k for k, op in enumerate(ops) if op.unit == "vector"), len(ops))
    last_loads: dict = {}
    for op in before:
        if op.nbytes and op.unit.startswith("dma") and \
                not any(space == "dram" for space, _, _ in op.writes):
            last_loads[op.unit] = op.id
    after = sorted(last_loads.values())
    hoisted, moved = [], set()
    for op in ops[:compute]:
        if constant_load(op, const_base) and \
                all(d < first or d in moved for d in op.deps):
            op.deps = sorted(set(op.deps).union(after))
            hoisted.append(op)
            moved.add(op.id)
    if not hoisted:
        return [], ops
    return hoisted, [op for op in ops if op.id not in moved]
