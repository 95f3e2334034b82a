"""Pooling lowering (max, average, global average): output-row x channel tiles on the vector
unit; average pooling sums to int32/fp32 and scales (requantize or multiply)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from math import ceil

from ..errors import CompilerError
from ..ops import get_op, register_hook
from .cost import FIELD_MAX, Hw
from .geometry import ConvGeom
from .layer import OneInput


@dataclass(frozen=True)
class PoolSchedule:
    rows: int
    channels: int
    in_slots: int
    est: dict = field(default_factory=dict, compare=False)

    def describe(self) -> str:
        return f"rows={self.rows} channels={self.channels} in_slots={self.in_slots}"


@dataclass
class PoolLayer(OneInput):
    """kind max: y = maxpool(x); avg: y = scale(sumpool(x)) with (mult, shift) (int8) or
    a float multiplier (fp16); geometry as a depthwise conv of the window."""

    name: str
    x: str
    y: str
    geom: ConvGeom          # cin = cout = channels, groups = channels (shape only)
    pool: str               # max | avg
    mult: int = 0
    shift: int = 0
    scale: float = 1.0      # float path: the multiplier of the sum
    schedule: PoolSchedule | None = None
    kind: str = "pool"
    note: str = ""

    def tiles(self) -> list:
        """(image, r0, r1, c0, c1) per vector pool instruction."""
        s, g = self.schedule, self.geom
        return [(n, r0, min(r0 + s.rows, g.oh), c0, min(c0 + s.channels, g.cin))
                for n in range(g.n) for r0 in range(0, g.oh, s.rows)
                for c0 in range(0, g.cin, s.channels)]


def choose_pool(geom: ConvGeom, pool: str, hw: Hw, name: str = "") -> PoolSchedule:
    g, eb = geom, hw.act_bytes
    best = None
    ch_opts = sorted({g.cin} | {hw.lanes * k for k in range(1, ceil(g.cin / hw.lanes))},
                     reverse=True)
    if max(g.kh, g.kw) > FIELD_MAX["pool_window"] or max(g.pads) > FIELD_MAX["pool_pad"]:
        raise CompilerError(f"layer '{name}': pool window {g.kh}x{g.kw} / pads {g.pads} exceed "
                            f"the pool_* registers (window <= {FIELD_MAX['pool_window']}, "
                            f"pads <= {FIELD_MAX['pool_pad']})")
    for rows in sorted({ceil(g.oh / k) for k in range(1, g.oh + 1)}, reverse=True):
        in_rows = min((rows - 1) * g.sh + g.kh, g.h)
        if in_rows > FIELD_MAX["in_hw"] or g.w > FIELD_MAX["in_hw"]:
            continue
        for cs in ch_opts:
            if cs > FIELD_MAX["channels"]:
                continue
            n_t = g.n * ceil(g.oh / rows) * ceil(g.cin / cs)
            in_tile, out_tile = in_rows * g.w * cs, rows * g.ow * cs
            slots = min(2, hw.buffer_elems["wbuf"] // in_tile, n_t)  # input staged in wbuf
            if slots < 1 or 2 * out_tile > hw.buffer_elems["obuf"] or \
                    (pool == "avg" and out_tile + 2 > hw.buffer_elems["abuf"]):
                continue
            vec = n_t * hw.pool(rows, g.ow, g.kh, g.kw, cs,
                                "vsumpool" if pool == "avg" else "vmaxpool")
            if pool == "avg":  # the divide: vrequant, or vmul + vcopy in fp16 (npu/pool_gen)
                divide = ("vrequant",) if hw.dtype == "int8" else ("vmul", "vcopy")
                vec += n_t * sum(hw.cycles(op, len=out_tile) for op in divide)
            nbytes = (n_t * in_tile + g.n * g.oh * g.ow * g.cin) * eb
            dma = hw.dma_streams({"in": (n_t, n_t * in_tile * eb),
                                  "out": (n_t, g.n * g.oh * g.ow * g.cin * eb)})
            serial = n_t * hw.dma(in_tile * eb) if slots == 1 and n_t > 1 else 0
            total = max(vec, dma) + hw.dma(in_tile * eb) + hw.dma(out_tile * eb) + serial
            s = PoolSchedule(rows, cs, slots, {"cycles": total, "vector": vec, "dma": dma,
                                                "dram_bytes": nbytes, "instructions": n_t})
            if best is None or (total, n_t) < (best.est["cycles"], best.est["instructions"]):
                best = s
    if best is None:
        raise CompilerError(f"layer '{name}': no tiling of pool {g.h}x{g.w}x{g.cin} fits the "
                            f"Target's buffers (elements: {dict(hw.buffer_elems)})")
    return best


def lower_pool(lw, n, kind: str, glob: bool) -> None:
    """max/avg pooling (glob: over the whole image) as a depthwise window program."""
    a, x = n.attrs, lw.g.type_of(n.inputs[0])
    if a.get("layout", "NHWC") != "NHWC":
        raise CompilerError(f"node '{n.name}': pooling must be NHWC (run convert-layout)")
    nb, h, wd, c = x.shape
    kernel = (h, wd) if glob else tuple(a["kernel"])
    strides = (1, 1) if glob else tuple(a["strides"])
    pads = (0, 0, 0, 0) if glob else tuple(a["pads"])
    geom = ConvGeom(nb, h, wd, c, c, *kernel, *strides, pads, groups=c)
    layer = PoolLayer(n.name, n.inputs[0], n.output, geom, kind)
    if kind == "avg":
        if get_op(n.op).quantized:
            layer.mult, layer.shift = int(a["mult"]), int(a["shift"])
        else:
            if any(pads) and not a.get("count_include_pad", False):
                raise CompilerError(
                    f"node '{n.name}': average pooling with padding that excludes the pad "
                    "from the count divides by a different number per output; the NPU "
                    "scales every output by one constant")
            layer.scale = 1.0 / (kernel[0] * kernel[1])
    layer.schedule = choose_pool(geom, kind, lw.hw, n.name)
    lw.layers.append(layer)


for _op, _kind, _glob in (("qnn.max_pool2d", "max", False), ("nn.max_pool2d", "max", False),
                          ("qnn.avg_pool2d", "avg", False), ("nn.avg_pool2d", "avg", False),
                          ("qnn.global_avg_pool2d", "avg", True),
                          ("nn.global_avg_pool2d", "avg", True)):
    register_hook("lower", _op, value=partial(lower_pool, kind=_kind, glob=_glob))
