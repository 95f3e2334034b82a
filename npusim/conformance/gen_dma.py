"""Conformance tests of the DMA engines: every buffer, every padding side over a dirty buffer,
strides with gaps and stride 0, 2-D and 3-D shapes, every channel, addresses at the ends of SRAM
and DRAM, field and register extremes, strided and 3-D stores, and seeded random transfers."""

from __future__ import annotations

import numpy as np

from npusim.conformance.case import Builder

BUFS = ("ibuf", "wbuf", "abuf", "obuf")
DIRT = 0x5A  # what a buffer holds before a padded load: padding must overwrite it with zeros


def _elem(t, buf):
    return t.derived.elem_bytes[buf]


def _data(rng, buf, n):
    if buf == "abuf":
        return rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    return rng.integers(-128, 128, n).astype(np.int8)


def load_case(name, t, rng, buf="ibuf", rows=3, cols=5, stride=None, pads=None, planes=1,
              plane_stride=None, chan=0, dirty=True, top=False, dram_top=False, doc=""):
    """A load of rows x cols (x planes) from a DRAM tensor, then the whole SRAM tile (padding
    included) stored to the signature."""
    pads = dict(pads or {})
    eb = _elem(t, buf)
    stride = cols * eb + 2 * eb if stride is None else stride
    plane_stride = rows * max(stride, cols * eb) + 3 * eb if plane_stride is None else plane_stride
    span = (planes - 1) * plane_stride + (rows - 1) * stride + cols * eb
    b = Builder(name, t, doc)
    src = _data(rng, buf, -(-span // eb))
    at = t.derived.dram_bytes - src.nbytes if dram_top else None
    dram = b.tensor("SRC", src, at=at)
    prow = pads.get("pad_top", 0) + rows + pads.get("pad_bottom", 0)
    pcol = pads.get("pad_left", 0) + cols + pads.get("pad_right", 0)
    tile = planes * prow * pcol
    sram = b.alloc(buf, tile, top=top)
    if dirty:  # the tile region holds other data first, loaded on the same channel
        b.load_array("DIRT", np.full(tile, DIRT if eb == 1 else 0x5A5A5A5A, np.int64).astype(
            np.int8 if eb == 1 else np.int32), buf, sram, chan=chan)
    if planes != 1:
        b.emit("cfg", unit=f"dma{chan}", reg="dma_planes", value=planes)
        b.emit("cfg", unit=f"dma{chan}", reg="dma_plane_stride", value=plane_stride)
    b.load(buf, sram, dram, rows, cols, stride=stride, chan=chan, **pads)
    b.output(buf, sram, tile, chan=chan)
    return b


def store_case(name, t, rng, buf="obuf", rows=3, cols=4, stride=None, planes=1,
               plane_stride=None, chan=0, dram_top=False, doc=""):
    """SRAM data stored with a stride (and planes) into a DRAM region pre-filled with a pattern,
    which is then read back whole into the signature."""
    eb = _elem(t, buf)
    stride = cols * eb + eb if stride is None else stride
    plane_stride = rows * stride + 2 * eb if plane_stride is None else plane_stride
    span = (planes - 1) * plane_stride + (rows - 1) * stride + cols * eb
    span = -(-span // eb) * eb
    b = Builder(name, t, doc)
    n = planes * rows * cols
    sram = b.put("DATA", _data(rng, buf, n), buf)
    pattern = np.full(span // eb, 0x33, np.int64).astype(np.int8 if eb == 1 else np.int32)
    at = t.derived.dram_bytes - span if dram_top else None
    region = b.tensor("REGION", pattern, at=at)
    if planes != 1:
        b.emit("cfg", unit=f"dma{chan}", reg="dma_planes", value=planes)
        b.emit("cfg", unit=f"dma{chan}", reg="dma_plane_stride", value=plane_stride)
    b.handoff("dma0", f"dma{chan}")
    b.emit("store", chan=chan, sram=(buf, sram), dram=region, rows=rows, cols=cols, stride=stride)
    if planes != 1:
        b.emit("cfg", unit=f"dma{chan}", reg="dma_planes", value=1)
    back = b.alloc(buf, span // eb)
    b.load(buf, back, region, 1, span // eb, chan=chan)   # same channel: in order after the store
    b.output(buf, back, span // eb, chan=chan)
    return b


def generate(t, rng):
    for buf in BUFS:
        yield load_case(f"load/{buf}", t, rng, buf, dirty=False, doc=f"a plain 2-D load into {buf}")
        yield store_case(f"store/{buf}", t, rng, buf, doc=f"a strided store from {buf}")
    for side in ("pad_top", "pad_bottom", "pad_left", "pad_right"):
        for buf in ("ibuf", "abuf"):
            yield load_case(f"load/{side}-{buf}", t, rng, buf, pads={side: 2},
                            doc=f"{side} zeros over a dirty {buf} tile")
        yield load_case(f"load/{side}-max", t, rng, "wbuf", rows=2, cols=2, pads={side: 7})
    yield load_case("load/pad-all", t, rng, "obuf", pads={"pad_top": 1, "pad_bottom": 2,
                                                          "pad_left": 3, "pad_right": 1})
    yield load_case("load/pad-all-max", t, rng, "ibuf", rows=1, cols=1,
                    pads={p: 7 for p in ("pad_top", "pad_bottom", "pad_left", "pad_right")},
                    doc="1x1 data in a 15x15 zero frame: the zero fill dominates the cycles")
    yield load_case("load/pad-3d", t, rng, "ibuf", rows=2, cols=3, planes=3,
                    pads={"pad_top": 1, "pad_left": 1, "pad_right": 2},
                    doc="every plane of a 3-D load gets its own zero frame")
    yield load_case("load/stride-contiguous", t, rng, "ibuf", stride=5)
    yield load_case("load/stride-gap", t, rng, "wbuf", rows=4, cols=3, stride=11)
    yield load_case("load/stride-zero", t, rng, "ibuf", rows=4, cols=6, stride=0,
                    doc="stride 0 repeats one DRAM row")
    yield load_case("load/stride-max", t, rng, "ibuf", rows=1, cols=4, stride=(1 << 24) - 1,
                    doc="the largest stride (unused with one row)")
    yield load_case("load/3d", t, rng, "ibuf", rows=2, cols=4, planes=3)
    yield load_case("load/3d-abuf", t, rng, "abuf", rows=2, cols=2, planes=2)
    yield load_case("load/3d-plane-stride-zero", t, rng, "ibuf", rows=2, cols=3, planes=2,
                    plane_stride=0, doc="plane stride 0 repeats the plane")
    yield load_case("load/rows-1-cols-1", t, rng, "obuf", rows=1, cols=1)
    yield load_case("load/sram-top", t, rng, "ibuf", top=True, doc="the tile ends at the buffer's end")
    yield load_case("load/sram-top-abuf", t, rng, "abuf", top=True)
    yield load_case("load/dram-top", t, rng, "ibuf", dram_top=True,
                    doc="the source ends at the last DRAM byte")
    chan = t.dma_engines - 1
    yield load_case(f"load/chan-{chan}", t, rng, "ibuf", chan=chan, pads={"pad_left": 1})
    yield store_case(f"store/chan-{chan}", t, rng, "obuf", chan=chan)
    yield store_case("store/3d", t, rng, "ibuf", rows=2, cols=3, planes=3)
    yield store_case("store/3d-abuf", t, rng, "abuf", rows=2, cols=2, planes=2)
    yield store_case("store/contiguous", t, rng, "wbuf", stride=4, cols=4)
    yield store_case("store/stride-gap", t, rng, "obuf", rows=5, cols=2, stride=9)
    yield store_case("store/dram-top", t, rng, "obuf", dram_top=True)
    for i in range(10):
        buf = BUFS[i % 4]
        eb = _elem(t, buf)
        rows, cols = int(rng.integers(1, 6)), int(rng.integers(1, 9))
        pads = {p: int(rng.integers(0, 3)) for p in ("pad_top", "pad_bottom", "pad_left",
                                                      "pad_right")}
        yield load_case(f"load/random-{i}", t, rng, buf, rows, cols,
                        stride=eb * int(rng.integers(cols, cols + 4)), pads=pads,
                        planes=int(rng.integers(1, 3)), chan=int(rng.integers(0, t.dma_engines)),
                        doc="seeded random load")
        yield store_case(f"store/random-{i}", t, rng, buf, rows, cols,
                         stride=eb * int(rng.integers(cols, cols + 3)),
                         planes=int(rng.integers(1, 3)), chan=int(rng.integers(0, t.dma_engines)),
                         doc="seeded random store")
