"""The npu Target a SCALE-Sim config describes: its array, its three SRAMs as our buffers,
and its DRAM interface (CALC: a memory that never stalls the array; USER: its bandwidth)."""

from __future__ import annotations

from isa.target import Target, TargetError, get_target_kind

from .config import ScaleConfig
from .errors import ScaleSimError

# CALC: SCALE-Sim sizes the interface so the array never waits. Our nearest machine: the
# widest DRAM port the npu kind has (B/cycle) and no DRAM latency; the DMA engines' own
# setup cycles and the layer's first loads and last stores stay (they are not the memory).
CALC_DRAM = {"dram-bw": 1024, "dram-latency": 0}
ABUF_PER_OFMAP = 4  # SCALE-Sim's ofmap SRAM holds the partial sums: as many int32 words
# SCALE-Sim has no post-processing; an epilogue slower than the array makes our compiler split
# a layer into more tiles to overlap it, which refills the array. The epilogue is about two
# vector instructions per output (bias and requantize), and the array emits up to C outputs
# a cycle: two vector lanes per array column (the npu kind's default lanes at least, its
# most at most)
LANES_PER_COLUMN = 2
_LANES = get_target_kind("npu").attr("vector-lanes")
# the largest accumulator the npu kind has (32 MiB: what its element addresses reach)
_ABUF_MAX_KB = get_target_kind("npu").attr("abuf-kb").max


def target_attrs(config: ScaleConfig) -> dict:
    """The npu attributes a config sets, as {name: value} in target-string spelling."""
    attrs = {"array": f"{config.array_rows}x{config.array_cols}",
             "ibuf-kb": config.ifmap_sram_kb, "wbuf-kb": config.filter_sram_kb,
             "obuf-kb": config.ofmap_sram_kb,
             "abuf-kb": min(_ABUF_MAX_KB, ABUF_PER_OFMAP * config.ofmap_sram_kb),
             "vector-lanes": min(_LANES.max,
                                 max(_LANES.default, LANES_PER_COLUMN * config.array_cols))}
    if config.bandwidth_mode == "CALC":
        attrs.update(CALC_DRAM)
    else:
        attrs["dram-bw"] = config.user_bandwidth
    attrs["dataflow"] = config.dataflow
    return attrs


# which config key set each attribute, for errors that name the user's own setting
_KEYS = {"array": "ArrayHeight x ArrayWidth", "ibuf-kb": "IfmapSramSzkB",
         "wbuf-kb": "FilterSramSzkB", "obuf-kb": "OfmapSramSzkB",
         "abuf-kb": "OfmapSramSzkB (x4 as int32 partial sums)", "dram-bw": "Bandwidth"}


def config_target(config: ScaleConfig, overrides: str = "") -> Target:
    """The Target of `config`, plus `overrides` (target-string attributes such as
    '-dma-engines=4', applied last)."""
    attrs = target_attrs(config)
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
