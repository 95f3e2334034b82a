"""The npu Target a SCALE-Sim config describes: its array, its SRAMs as our buffers (CALC:
sized to SCALE-Sim's folds), its DRAM interface (CALC: never stalls; USER: its bandwidth)."""

from __future__ import annotations

from isa.target import Target, TargetError, get_target_kind

from .config import ScaleConfig
from .errors import ScaleSimError

# CALC: SCALE-Sim sizes the interface so the array never waits. Our nearest machine: the
# widest DRAM port the npu kind has (B/cycle) and no DRAM latency; the DMA engines' own
# setup cycles and the layer's first loads and last stores stay (they are not the memory).
CALC_DRAM = {"dram-bw": 1024, "dram-latency": 0}
ABUF_PER_OFMAP = 4  # SCALE-Sim's ofmap SRAM holds the partial sums: as many int32 words
# SCALE-Sim has no post-processing. Ours (bias and requantize, two vector instructions per
# output) runs after a tile's last pass, so the last tile's epilogue is exposed; the compiler
# minimizes the layer's time and, with an epilogue near the array's time, splits the layer
# into more tiles, each refilling the array. The widest vector unit the npu kind has (512
# lanes: 16 per column of a 32-wide array, 2 of a 256-wide one) keeps every tail short
# enough that it does not (as CALC gives the widest DRAM port)
_LANES = get_target_kind("npu").attr("vector-lanes")
# the largest buffers the npu kind has (8 MiB int8, a 32 MiB accumulator: what its element
# addresses reach)
_MAX_KB = {b: get_target_kind("npu").attr(f"{b}-kb").max
           for b in ("ibuf", "wbuf", "obuf", "abuf")}
_ABUF_MAX_KB = _MAX_KB["abuf"]
# bytes of headroom in a fold-sized buffer before rounding up: the epilogue's per-channel
# tables and scratch beside the accumulators, the strided loads' slack beside the inputs
_HEADROOM = 16 * 1024


def fold_bytes(layer, rows: int, cols: int) -> dict:
    """{buffer: bytes} one SCALE-Sim fold order needs of each buffer to run `layer` in one
    tile per column block, double-buffered: SCALE-Sim streams every one of the M input rows
    past each array-sized weight tile with no refill (compute/systolic_compute_{ws,os}.py),
    and its compute cycles never look at its SRAM sizes. ibuf: the whole input (the ifmap,
    or its M x K im2col matrix when that is larger); wbuf: the K x C weights of one column
    block; abuf: the M x C int32 partial sums of one column block; obuf: its M x C int8
    outputs."""
    c = min(cols, layer.n)
    conv_in = layer.m * layer.k if layer.kind == "gemm" else \
        max(layer.ifmap_h * layer.ifmap_w * layer.channels, layer.m * layer.k)
    return {"ibuf": 2 * conv_in, "wbuf": 2 * layer.k * c, "abuf": 2 * 4 * layer.m * c,
            "obuf": 2 * layer.m * c}


def _pow2_kb(nbytes: int) -> int:
    kb = -(-(nbytes + _HEADROOM) // 1024)
    return 1 << (kb - 1).bit_length()


def config_buffers(config: ScaleConfig) -> dict:
    """{attribute: KiB} of the config's own SRAMs as our buffers (USER runs on these)."""
    return {"ibuf-kb": config.ifmap_sram_kb, "wbuf-kb": config.filter_sram_kb,
            "obuf-kb": config.ofmap_sram_kb,
            "abuf-kb": min(_ABUF_MAX_KB, ABUF_PER_OFMAP * config.ofmap_sram_kb)}


def calc_buffers(config: ScaleConfig, layers) -> dict:
    """{attribute: KiB} of the buffers a CALC run gets: each the config's size, raised to
    what the topology's largest fold needs (fold_bytes, rounded up to a power of two KiB),
    at most the npu kind's largest. A layer past that cap tiles as the capped buffer lets."""
    sizes = config_buffers(config)
    for layer in layers:
        for buf, nbytes in fold_bytes(layer, config.array_rows, config.array_cols).items():
            key = f"{buf}-kb"
            sizes[key] = max(sizes[key], min(_MAX_KB[buf], _pow2_kb(nbytes)))
    return sizes


def calc_note(config: ScaleConfig, target) -> str | None:
    """The note a CALC run prints when its buffers are larger than the config's SRAMs."""
    mine = config_buffers(config)
    got = {k: getattr(target, k.replace("-", "_")) for k in mine}
    if config.bandwidth_mode != "CALC" or got == mine:
        return None
    sizes = ", ".join(f"{k[:4]} {got[k]}" for k in mine)
    own = " ".join(f"-{k}={v}" for k, v in mine.items())
    return (f"InterfaceBandwidth CALC: buffers sized to one SCALE-Sim fold of the largest "
            f"layer ({sizes} KiB), as its compute cycles never depend on its SRAMs; "
            f"--target-attrs='{own}' runs within the config's")


def target_attrs(config: ScaleConfig, layers=()) -> dict:
    """The npu attributes a config sets, as {name: value} in target-string spelling. With
    CALC and the topology's `layers`, the buffers are fold-sized (calc_buffers); USER keeps
    the config's SRAM sizes (they decide what the finite bandwidth must carry)."""
    attrs = {"array": f"{config.array_rows}x{config.array_cols}", **config_buffers(config),
             "vector-lanes": _LANES.max}
    if config.bandwidth_mode == "CALC":
        attrs.update(CALC_DRAM)
        attrs.update(calc_buffers(config, layers))
    else:
        attrs["dram-bw"] = config.user_bandwidth
    attrs["dataflow"] = config.dataflow
    return attrs


# which config key set each attribute, for errors that name the user's own setting
_KEYS = {"array": "ArrayHeight x ArrayWidth", "ibuf-kb": "IfmapSramSzkB",
         "wbuf-kb": "FilterSramSzkB", "obuf-kb": "OfmapSramSzkB",
         "abuf-kb": "OfmapSramSzkB (x4 as int32 partial sums)", "dram-bw": "Bandwidth"}


def config_target(config: ScaleConfig, overrides: str = "", layers=()) -> Target:
    """The Target of `config` for the topology `layers` (CALC sizes its buffers by them),
    plus `overrides` (target-string attributes such as '-dma-engines=4', applied last)."""
    attrs = target_attrs(config, layers)
    # an attribute the overrides set replaces the config's (a target string takes each once)
    given = {t[1:].split("=", 1)[0] for t in overrides.split() if t.startswith("-")}
    text = "npu " + " ".join(f"-{k}={v}" for k, v in attrs.items() if k not in given)
    try:
        for name, value in attrs.items():  # one at a time, so an error names its key
            Target.from_string(f"npu -{name}={value}")
        return Target.from_string(f"{text} {overrides}".strip())
    except TargetError as e:
        bad = next((k for k in attrs if f"'{k}'" in str(e)), None)
        key = f" ({_KEYS[bad]} = {attrs[bad]})" if bad in _KEYS else ""
        raise ScaleSimError(f"{config.source}{key}: {e}") from None
