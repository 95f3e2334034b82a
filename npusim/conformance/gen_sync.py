"""Ordering tests of the sync instructions, and the control instructions: programs whose
signature depends on signal/wait, barrier and gbarrier ordering between units and cores, so an
implementation that lets a unit run past a wait (or a core past a barrier) reads stale data;
every unit signals and waits; cfg registers at their range ends; nop."""

from __future__ import annotations

import numpy as np

from isa.spec import load_spec
from npusim.conformance.case import Builder


def _i8(rng, n):
    return rng.integers(-128, 128, n).astype(np.int8)


def _delay(b, n: int) -> None:
    """Keep the vector unit busy for about n / L cycles (a long copy inside obuf's scratch)."""
    src = b.put("DELAY", np.ones(n, np.int8), "wbuf")
    b.handoff("dma0", "vector")
    dst = b.alloc("wbuf", n)
    b.emit("vcopy", dst=("wbuf", dst), src0=("wbuf", src), len=n)


def wait_blocks_vector(t, rng):
    """The vector unit copies a tile right after its wait: only if the wait blocked until the
    load that replaces the tile finished does it copy the new tile, not the old one."""
    b = Builder("sync/wait-blocks-vector", t, wait_blocks_vector.__doc__)
    n = 4 * t.vector_lanes
    old = b.put("OLD", _i8(rng, n), "ibuf")
    b.emit("barrier")
    new = b.tensor("NEW", _i8(rng, n))
    b.load("ibuf", old, new, 1, n)
    b.handoff("dma0", "vector")
    out = b.alloc("obuf", n)
    b.emit("vcopy", dst=("obuf", out), src0=("ibuf", old), len=n)
    b.output("obuf", out, n, src="vector")
    return b


def wait_blocks_matrix(t, rng):
    """gemm right after its wait must see the weights of the load that signalled it."""
    b = Builder("sync/wait-blocks-matrix", t, wait_blocks_matrix.__doc__)
    R, C = t.array_rows, t.array_cols
    a = b.put("A", _i8(rng, 2 * R), "ibuf")
    w = b.put("W0", _i8(rng, R * C), "wbuf")
    b.emit("barrier")
    b.load("wbuf", w, b.tensor("W1", _i8(rng, R * C)), 1, R * C)
    b.handoff("dma0", "matrix")
    acc = b.alloc("abuf", 2 * C)
    b.emit("gemm", ibuf=a, wbuf=w, abuf=acc, m=2, k=R, n=C)
    b.output("abuf", acc, 2 * C, src="matrix")
    return b


def wait_blocks_dma(t, rng):
    """A load that overwrites a tile waits for the vector unit to have read it (write after
    read): the vector unit is busy first, so a load that did not wait would land too early."""
    b = Builder("sync/wait-blocks-dma", t, wait_blocks_dma.__doc__)
    n = 2 * t.vector_lanes
    tile = b.put("A", _i8(rng, n), "ibuf")
    _delay(b, 64 * t.vector_lanes)
    first = b.alloc("obuf", n)
    b.emit("vcopy", dst=("obuf", first), src0=("ibuf", tile), len=n)
    b.handoff("vector", "dma0")
    b.load("ibuf", tile, b.tensor("C", _i8(rng, n)), 1, n)
    b.handoff("dma0", "vector")
    second = b.alloc("obuf", n)
    b.emit("vadd", dst=("obuf", second), src0=("ibuf", tile), src1=("obuf", first), len=n)
    b.output("obuf", first, n, src="vector")
    b.output("obuf", second, n)
    return b


def semaphore_counts(t, rng):
    """Two signals on one semaphore release two waits, each after its own tile arrived."""
    b = Builder("sync/semaphore-counts", t, semaphore_counts.__doc__)
    n = 2 * t.vector_lanes
    sem = t.semaphores - 1
    tiles = [b.alloc("ibuf", n) for _ in range(2)]
    for i, addr in enumerate(tiles):
        b.load("ibuf", addr, b.tensor(f"T{i}", _i8(rng, n)), 1, n)
        b.emit("signal", unit="dma0", sem=sem)
    outs = []
    for addr in tiles:
        b.emit("wait", unit="vector", sem=sem)
        out = b.alloc("obuf", n)
        b.emit("vrelu", dst=("obuf", out), src0=("ibuf", addr), len=n)
        outs.append(out)
    b.output("obuf", outs[0], 2 * n, src="vector")
    return b


def barrier_orders_dram(t, rng):
    """A store, a barrier, then a load of the bytes it stored on another channel: without the
    barrier's drain the load would read DRAM before the store wrote it."""
    b = Builder("sync/barrier-orders-dram", t, barrier_orders_dram.__doc__)
    n = 2 * t.vector_lanes
    x = b.put("X", _i8(rng, n), "ibuf")
    _delay(b, 32 * t.vector_lanes)
    y = b.alloc("obuf", n)
    b.emit("vadd", dst=("obuf", y), src0=("ibuf", x), src1=("ibuf", x), len=n)
    b.handoff("vector", "dma0")
    scratch = b.scratch(n)
    b.emit("store", chan=0, sram=("obuf", y), dram=scratch, rows=1, cols=n, stride=n)
    b.emit("barrier")
    chan = t.dma_engines - 1
    back = b.alloc("wbuf", n)
    b.load("wbuf", back, scratch, 1, n, chan=chan)
    b.output("wbuf", back, n, chan=chan)
    return b


def every_unit(t, rng):
    """Data handed along every unit: dma0 -> matrix -> vector -> the last DMA channel, each
    unit signalling the next, the largest semaphore index used."""
    b = Builder("sync/every-unit", t, every_unit.__doc__)
    R, C = t.array_rows, t.array_cols
    a = b.put("A", _i8(rng, 2 * R), "ibuf")
    w = b.put("W", _i8(rng, R * C), "wbuf")
    b.handoff("dma0", "matrix", sem=t.semaphores - 1)
    acc = b.alloc("abuf", 2 * C)
    b.emit("gemm", ibuf=a, wbuf=w, abuf=acc, m=2, k=R, n=C)
    b.handoff("matrix", "vector", sem=0)
    out = b.alloc("obuf", 2 * C)
    b.emit("vshr", dst=("obuf", out), src0=("abuf", acc), len=2 * C, shift=6)
    chan = t.dma_engines - 1
    b.output("obuf", out, 2 * C, src="vector", chan=chan)
    units = load_spec().enums["unit"].values
    for unit in [u for u in units if u.startswith("dma") and int(u[3:]) < t.dma_engines]:
        # every channel waits once (a token passed around the channels)
        b.handoff("vector", unit)
        b.emit("cfg", unit=unit, reg="dma_plane_stride", value=0)
        b.handoff(unit, "vector")
    return b


def gbarrier_cores(t, rng):
    """Core 0 computes and stores a tile, the cores meet at gbarrier, core 1 loads the tile,
    transforms it and stores it: only a core 1 that waited at the gbarrier sees the tile."""
    from isa.checks import target_name
    from isa.target import Target
    t2 = Target.create(f"{target_name(t)} -num-cores=2") if t.num_cores < 2 else t
    b = Builder("sync/gbarrier-two-cores", t2, gbarrier_cores.__doc__)
    n = 2 * t.vector_lanes
    x = b.put("X", _i8(rng, n), "ibuf")
    _delay(b, 32 * t.vector_lanes)
    y = b.alloc("obuf", n)
    b.emit("vsub", dst=("obuf", y), src0=("ibuf", x), src1=("wbuf", 0), len=n)
    b.handoff("vector", "dma0")
    scratch = b.scratch(n)
    b.emit("store", chan=0, sram=("obuf", y), dram=scratch, rows=1, cols=n, stride=n)
    b.emit("gbarrier", id=0)
    b.emit("gbarrier", id=255)
    b.on_core(1)
    b.emit("gbarrier", id=0)
    back = b.alloc("ibuf", n)
    b.load("ibuf", back, scratch, 1, n)
    b.handoff("dma0", "vector")
    out = b.alloc("obuf", n)
    b.emit("vrelu", dst=("obuf", out), src0=("ibuf", back), len=n)
    b.output("obuf", out, n, src="vector")
    b.emit("gbarrier", id=255)
    return b


def gbarrier_one_core(t, rng):
    """On one core a gbarrier is a barrier: the store before it is in DRAM before the load
    after it (ids 0 and 255)."""
    b = Builder("sync/gbarrier-one-core", t, gbarrier_one_core.__doc__)
    n = 2 * t.vector_lanes
    x = b.put("X", _i8(rng, n), "obuf")
    scratch = b.scratch(n)
    b.emit("store", chan=0, sram=("obuf", x), dram=scratch, rows=1, cols=n, stride=n)
    b.emit("gbarrier", id=255)
    back = b.alloc("ibuf", n)
    b.load("ibuf", back, scratch, 1, n, chan=t.dma_engines - 1)
    b.emit("gbarrier", id=0)
    b.output("ibuf", back, n)
    return b


def cfg_extremes(t, rng):
    """Every config register written with the ends of its range, then its reset value again,
    around a copy: the decode of each extreme value, and a unit that goes on working after it."""
    spec = load_spec()
    for reg in spec.registers.values():
        for value, end in zip(reg.range, ("min", "max")):
            b = Builder(f"cfg/{reg.name}-{end}", t, f"cfg {reg.name} = {value}, then reset")
            unit = {"matrix": "matrix", "vector": "vector", "dma": "dma0"}[reg.unit]
            b.emit("cfg", unit=unit, reg=reg.name, value=value)
            b.emit("cfg", unit=unit, reg=reg.name, value=reg.reset)
            x = b.put("X", _i8(rng, 8), "ibuf")
            b.handoff("dma0", "vector")
            out = b.alloc("obuf", 8)
            b.emit("vcopy", dst=("obuf", out), src0=("ibuf", x), len=8)
            b.output("obuf", out, 8, src="vector")
            yield b


def nop_case(t, rng):
    b = Builder("control/nop", t, "nop between a load and its use changes nothing")
    x = b.put("X", _i8(rng, 8), "ibuf")
    for _ in range(3):
        b.emit("nop")
    b.handoff("dma0", "vector")
    b.emit("nop")
    out = b.alloc("obuf", 8)
    b.emit("vcopy", dst=("obuf", out), src0=("ibuf", x), len=8)
    b.output("obuf", out, 8, src="vector")
    return b


def generate(t, rng):
    for gen in (wait_blocks_vector, wait_blocks_matrix, wait_blocks_dma, semaphore_counts,
                barrier_orders_dram, every_unit, gbarrier_cores, gbarrier_one_core, nop_case):
        yield gen(t, rng)
    yield from cfg_extremes(t, rng)
