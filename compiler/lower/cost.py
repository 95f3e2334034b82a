"""Analytical cost model of one NPU core: the ISA's cycle rules (isa.timing, each instruction's
chosen by its spec `timing` key) under the lowering's estimators, plus the DMA and SRAM limits.

The compiler calls the same rule functions the simulator does, through `Hw.cycles(mnemonic,
**operands)`; what it adds is aggregates (dma_time) over them. Everything is read from the
Target and the ISA spec, never a constant."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from math import ceil, isqrt

from isa import timing
from isa.spec import IsaSpec, load_spec


def _field_max(spec: IsaSpec) -> dict:
    """The largest value lowering may put in each instruction field it sizes tiles by."""
    hi = lambda mnemonic, name: spec.instruction(mnemonic).field_map[name].legal[1]  # noqa: E731
    reg = lambda name: spec.registers[name].range[1]  # noqa: E731
    return {"rows": hi("load", "rows"), "cols": hi("load", "cols"), "planes": reg("dma_planes"),
            "in_hw": min(hi("conv", "in_h"), hi("conv", "in_w"), hi("vmaxpool", "in_h"),
                         hi("vmaxpool", "in_w")),
            "cin": hi("conv", "cin"),
            "channels": min(hi("vrequant", "channels"), hi("vbias", "channels"),
                            hi("vmaxpool", "channels")),
            "len": hi("vadd", "len"), "m": hi("gemm", "m"),
            "pad": min(hi("load", p) for p in ("pad_top", "pad_bottom", "pad_left", "pad_right")),
            "conv_pad": min(reg(f"conv_pad_{s}") for s in ("top", "left", "bottom", "right")),
            "conv_kernel": min(reg("conv_kh"), reg("conv_kw")),
            "pool_window": min(reg("pool_kh"), reg("pool_kw")),
            "pool_pad": min(reg(f"pool_pad_{s}") for s in ("top", "left", "bottom", "right"))}


FIELD_MAX = _field_max(load_spec())

ROLES = ("in", "w", "out", "res")  # DMA traffic: activations in, weights/tables, out, residuals


def channel_map(engines: int) -> dict:
    """DMA channel (index) per traffic role: activations in, weights/tables, results out,
    residuals. Stores share the activation channel when there are two (weights are the
    steady stream). The cost model serializes each channel's transfers by this map, and the
    npu backend places them by it."""
    table = {1: (0, 0, 0, 0), 2: (0, 1, 0, 0), 3: (0, 1, 2, 0)}
    return dict(zip(ROLES, table.get(engines, (0, 1, 2, 3))))


def _shared_port(fixed: int, beats: int, others: int) -> int:
    """Cycles of one channel's in-order stream (`fixed` setup + latency cycles, `beats` data
    beats) while the other channels move `others` beats over the same port. The port hands
    over burst by burst (npusim.dram.DramPort), so a beat of this channel waits for the
    others' bursts about as often as they hold the port: T = fixed + beats + beats * others / T,
    whose root is below. Without it the estimate took the channel and the port as if each
    could run flat out beside the other: a stream of many small loads on its own channel
    (more engines) looked as cheap as a few large ones when in fact each load is stretched
    by the stores and weights sharing the port (MobileNetV2's block0.project, 112x112x32 ->
    16, at 4 engines: 1-row tiles estimated 38.5k cycles, simulated 43.1k, against 38.1k
    for 8-row tiles; with the term 45.1k). Zero others: the channel's own cycles."""
    a = fixed + beats
    return (a + isqrt(a * a + 4 * beats * others) + 1) // 2


@dataclass(frozen=True)
class Hw:
    """The Target values lowering reads: array, lanes, buffers (elements), DMA and DRAM."""

    rows: int
    cols: int
    lanes: int
    pipeline: int
    dma_setup: int
    dram_latency: int
    dram_bw: int
    dma_engines: int
    num_cores: int
    semaphores: int
    queue_depth: int
    buffer_elems: dict
    elem_bytes: dict
    dtype: str
    freq_mhz: int
    # zero-fill elements per cycle of a padded load; None where nothing writes padding (the
    # cpu/gpu backends' stand-in Hw, which moves no data through a DMA)
    dma_fill_lanes: int | None = None
    # the array's dataflow (ws, os): which cycle rule and field limits each matrix instruction
    # has (the spec's [dataflow] table, through isa.timing.rule_name and limits_for)
    dataflow: str = "ws"
    # channels of one dwconv (the array's depthwise mode, isa.timing.depthwise_cols): its
    # columns on a Target with -depthwise-mode=1, else 0 (depthwise convs run block-diagonal)
    depthwise_cols: int = 0
    # weight banks per PE (-weight-buffers): 2 overlaps a conv's next weight load with the
    # current pass's stream (the spec's [weight_buffers] table picks the conv's rule)
    weight_buffers: int = 1
    # the ISA spec whose timing keys choose each instruction's rule (None: isa/npu_isa.toml)
    spec: IsaSpec | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_target(cls, t, spec: IsaSpec | None = None) -> "Hw":
        return cls(rows=t.array_rows, cols=t.array_cols, lanes=t.vector_lanes,
                   pipeline=t.vector_pipeline, dma_setup=t.dma_setup,
                   dram_latency=t.dram_latency, dram_bw=t.dram_bw, dma_engines=t.dma_engines,
                   num_cores=t.num_cores, semaphores=t.semaphores, queue_depth=t.queue_depth,
                   buffer_elems=dict(t.derived.buffer_elems),
                   elem_bytes=dict(t.derived.elem_bytes), dtype=t.dtype, freq_mhz=t.freq_mhz,
                   dma_fill_lanes=t.dma_fill_lanes, dataflow=t.dataflow,
                   depthwise_cols=timing.depthwise_cols(t),
                   weight_buffers=getattr(t, "weight_buffers", 1), spec=spec)

    @functools.cached_property
    def params(self) -> timing.HwParams:
        """These values as the cycle rules' parameters."""
        return timing.HwParams(array_rows=self.rows, array_cols=self.cols,
                               vector_lanes=self.lanes, vector_pipeline=self.pipeline,
                               dma_setup=self.dma_setup, dram_latency=self.dram_latency,
                               dram_bw=self.dram_bw, dma_fill_lanes=self.dma_fill_lanes,
                               dataflow=self.dataflow, depthwise_cols=self.depthwise_cols,
                               weight_buffers=self.weight_buffers)

    @property
    def act_bytes(self) -> int:
        """Bytes of one activation/weight element in DRAM (int8: 1, fp16: 2)."""
        return self.elem_bytes["ibuf"]

    # ---- one instruction, uncontended: the rule its spec entry names ----------------------
    def cycles(self, mnemonic: str, **operands) -> int:
        """Cycles of one `mnemonic` instruction with these operands (the names its spec
        formula uses: len, m/k/n, bytes/fill, oh/ow/kh/kw/channels, ...)."""
        known = self._instructions.get(mnemonic)
        if known is None:
            ins = (self.spec or load_spec()).instruction(mnemonic)
            known = self._instructions[mnemonic] = (
                ins, ins.timing_for(self.dataflow, self.weight_buffers))
        ins, name = known
        # timing.cycles(self.params, ins, **operands) without its two extra calls: lowering
        # and codegen ask this some 10^5 times per model. The rule is looked up by its name
        # per call (timing.override may swap it); on a failure timing.cycles raises its own
        # error.
        rule = timing.RULES.get(name)
        if rule is not None:
            try:
                return rule(self.params, **operands)
            except TypeError:
                pass
        return timing.cycles(self.params, ins, **operands)

    @functools.cached_property
    def _instructions(self) -> dict:
        """(spec entry, its rule's name on this dataflow and weight banks) by mnemonic, looked
        up once (the tile choosers ask for thousands)."""
        return {}

    @functools.cached_property
    def gemm_k(self) -> int:
        """The deepest reduction one gemm takes: the array rows on a weight-stationary array,
        the k field's range on an output-stationary one (its [dataflow] limits): its ISA 1.0
        range (255) on an array that range covers, so such a Target's programs stay 1.0
        programs (the rtl/ units read k's first part), the whole field (511) on a larger one."""
        spec = (self.spec or load_spec()).instruction("gemm")
        limited = spec.limits_for(self.dataflow).get("k") == "array_rows"
        k = spec.field_map["k"]
        base = k.base_legal[1]
        return self.rows if limited else (k.legal[1] if self.rows > base else base)

    @functools.cached_property
    def m_fold(self) -> int:
        """Pixels (gemm rows) the array takes at a time, read off the gemm rule: R where m = 1
        costs what m = R does (an output-stationary array's whole folds of R rows), else 1 (a
        weight-stationary array's rule is affine in m). The tile choosers offer tiles of whole
        folds by it."""
        whole = self.gemm(1, 1, 1) == self.gemm(self.rows, 1, 1)
        return self.rows if whole and self.rows > 1 else 1

    def gemm(self, m: int, k: int, n: int) -> int:
        return self.cycles("gemm", m=m, k=k, n=n)

    def conv(self, m: int, kh: int, kw: int, cin: int, cout: int) -> int:
        """A conv tile of `m` = oh * ow output pixels."""
        return self.cycles("conv", m=m, kh=kh, kw=kw, cin=cin, cout=cout)

    def dwconv(self, m: int, kh: int, kw: int, channels: int) -> int:
        """A depthwise-mode tile of `m` = oh * ow output pixels."""
        return self.cycles("dwconv", m=m, kh=kh, kw=kw, channels=channels)

    def conv_passes(self, kh: int, kw: int, cin: int) -> list:
        return timing.conv_passes(self.params, kh, kw, cin)

    def pool(self, oh: int, ow: int, kh: int, kw: int, channels: int,
             mnemonic: str = "vmaxpool") -> int:
        return self.cycles(mnemonic, oh=oh, ow=ow, kh=kh, kw=kw, channels=channels)

    def dma(self, nbytes: int, fill_elems: int = 0, mnemonic: str = "load") -> int:
        """A load (or `mnemonic`="store") moving `nbytes`; fill = a padded load's SRAM tile."""
        return self.cycles(mnemonic, bytes=nbytes, fill=fill_elems)

    def dma_fill(self, fill_elems: int) -> int:
        """Cycles the SRAM side needs to zero-fill `fill_elems` (counted from the start)."""
        return timing.dma_fill(self.params, fill_elems)

    def beats(self, nbytes: int) -> int:
        return timing.dma_beats(self.params, nbytes)

    # ---- aggregate estimates used by the tile choosers --------------------------------------
    def dma_time(self, transfers: int, nbytes: int) -> int:
        """Cycles to move `nbytes` in `transfers` DMAs over all channels sharing one port:
        the port's beats, or the channels' fixed costs spread over the engines."""
        fixed = transfers * (self.dma_setup + self.dram_latency)
        return max(self.beats(nbytes), ceil((fixed + self.beats(nbytes)) / self.dma_engines))

    def dma_streams(self, roles: dict, cores: int = 1) -> int:
        """Cycles to move each role's (transfers, bytes) of `roles` on its channel (channel_map): a
        channel runs its transfers one after another (setup, beats, latency each: its queue
        is in order), and all channels share the port's beats: each channel's beats wait for
        the other channels' bursts (_shared_port). A stream of many small loads on one
        channel is bound by their fixed costs, which other engines cannot hide.
        `cores`: the counts are one core's share of a layer that `cores` cores run at once
        (the conv choosers size one core's tiles), so the port carries that many times the
        beats, and each channel is charged its role's beats of every core (the cores' same
        streams interleave on the port): that bound stands for the waits, without the
        burst-sharing term (which, added to it, made npu-edge -num-cores=2's ResNet-18 at
        32 1.1% slower; npu-server's programs moved both ways)."""
        fixed = self.dma_setup + self.dram_latency
        own: dict = {}   # channel -> (its fixed cycles, its beats: every core's)
        total = 0        # the port's beats
        for role, (transfers, nbytes) in roles.items():
            beats = self.beats(nbytes) * cores
            total += beats
            c = self._channels[role]
            f, b = own.get(c, (0, 0))
            own[c] = (f + transfers * fixed, b + beats)
        if cores > 1:  # each channel already charged every core's beats of its role
            return max([total, *(f + b for f, b in own.values())])
        return max([total, *(_shared_port(f, b, total - b) for f, b in own.values())])

    def dma_shared(self, nbytes: int) -> int:
        """One load of `nbytes` while every core loads as much (a layer split over the cores
        runs on all at once, and they share the port): setup, latency and the beats of all."""
        return self.dma_setup + self.dram_latency + self.beats(nbytes) * self.num_cores

    @functools.cached_property
    def _channels(self) -> dict:
        return channel_map(self.dma_engines)
