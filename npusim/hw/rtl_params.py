"""Target -> HDL parameters of the RTL units and their testbench tops (sizes are typed only in
the Target), and which rtl/ files and top module make each unit."""

from __future__ import annotations

from isa.spec import load_spec
from isa.target import Target, TargetError

UNIT_TOPS = {"matrix": "matrix_engine", "vector": "vector_unit", "dma": "dma_engine"}
# the matrix engine of each array dataflow (the Target's -dataflow): the same ports, the
# testbench's OS parameter picks one
MATRIX_ENGINES = {"ws": "matrix_engine", "os": "matrix_engine_os"}
# rtl/ files of each unit, top module first (the DRAM model is the DMA testbench's, not the unit's)
UNIT_SOURCES = {
    "matrix": ["matrix_engine.v", "systolic_array.v", "systolic_pe.v",
               "matrix_engine_os.v", "systolic_array_os.v", "systolic_pe_os.v"],
    "vector": ["vector_unit.v", "vector_lane.v"],
    "dma": ["dma_engine.v", "dma_addr_gen.v", "dma_pad_gen.v"],
}
UNITS = tuple(UNIT_SOURCES)  # the unit classes of the ISA's unit enum that have RTL

# rtl/ files of the depthwise-mode unit, top module first (npu_core's matrix_unit_dw runs it
# beside matrix_unit)
DWCONV_SOURCES = ["dwconv_unit.v", "systolic_array_dw.v", "systolic_pe.v"]

# The modules the area model is fitted on (npusim.hw.area, experiments/rtl_area.py --fit), each
# its own top: the matrix unit as the core instantiates it (engine + conv sequencer), the
# vector unit, one DMA channel, and the dispatch logic (dispatcher, one queue, the semaphores).
AREA_SOURCES = {
    "matrix_unit": ["matrix_unit.v", "conv_im2col.v", *UNIT_SOURCES["matrix"]],
    # the output-stationary matrix unit (-dataflow=os): its own per-lane im2col, no conv_im2col
    "matrix_unit_os": ["matrix_unit_os.v", *UNIT_SOURCES["matrix"]],
    "vector_unit": UNIT_SOURCES["vector"],
    "dma_engine": UNIT_SOURCES["dma"],
    "dispatcher": ["dispatcher.v"],
    "unit_queue": ["unit_queue.v"],
    "semaphores": ["semaphores.v"],
    # the depthwise mode's unit beside the matrix unit (-depthwise-mode=1: matrix_unit_dw)
    "dwconv_unit": DWCONV_SOURCES,
}


def rtl_target(target) -> Target:
    """The Target, checked to be one the RTL implements (the int8 datapath)."""
    t = Target.create(target)
    if t.kind != "npu":
        raise TargetError(f"the RTL implements npu targets, not kind '{t.kind}'",)
    if t.dtype != "int8":
        raise TargetError(f"the RTL implements the int8 datapath only; target has dtype={t.dtype}; "
                          "hint: use -dtype=int8 (fp16 is modelled in npusim, not in RTL)")
    rows, elems = base_limits()  # the units read split fields' first parts only (rtl/npu_isa.vh)
    big = {b: n for b, n in t.derived.buffer_elems.items() if n > elems}
    if max(t.array_rows, t.array_cols) > rows or big:
        what = (f"array {t.array_rows}x{t.array_cols}" if not big else
                ", ".join(f"{b} of {n} elements" for b, n in big.items()))
        raise TargetError(f"the RTL implements arrays up to {rows}x{rows} and buffers up to "
                          f"{elems} elements (ISA {load_spec().base_version} field widths); "
                          f"target has {what}; hint: npusim models it, the RTL does not")
    return t


def base_limits() -> tuple[int, int]:
    """(array rows/cols, buffer elements) the rtl/ units address: what the first parts of the
    split fields hold (gemm's k, every buffer address), the ISA's base-version ranges."""
    spec = load_spec()
    k = spec.by_mnemonic["gemm"].field_map["k"]
    addr = min(f.parts[0][1] for i in spec.instructions for f in i.fields if f.buffer)
    return (1 << k.parts[0][1]) - 1, 1 << addr


def buffer_params(t: Target) -> dict:
    elems = t.derived.buffer_elems
    return {f"{b.upper()}_DEPTH": elems[b] for b in load_spec().buffer_names}


def matrix_params(t: Target) -> dict:
    return {"R": t.array_rows, "C": t.array_cols}


def matrix_unit_params(t: Target) -> dict:
    """The weight-stationary matrix unit's: the array, and its PEs' weight banks (WB)."""
    return {**matrix_params(t), "WB": t.weight_buffers}


def vector_params(t: Target) -> dict:
    return {"L": t.vector_lanes, "P": t.vector_pipeline}


def dma_params(t: Target) -> dict:
    # PAD_LANES: the zero-fill walker's lanes, the `F` of the dma cycle rule
    return {"BW": t.dram_bw, "SETUP": t.dma_setup, "PAD_LANES": t.dma_fill_lanes}


def dram_params(t: Target, dram_bytes: int | None = None) -> dict:
    """The DRAM model: bandwidth and latency from the Target; size capped for fast simulation."""
    size = t.derived.dram_bytes if dram_bytes is None else min(dram_bytes, t.derived.dram_bytes)
    return {"BW": t.dram_bw, "LAT": t.dram_latency, "DRAM_BYTES": size}


UNIT_PARAMS = {"matrix": matrix_params, "vector": vector_params, "dma": dma_params,
               # the matrix unit's depthwise mode (rtl/dwconv_unit.v, -depthwise-mode=1): its
               # own testbench until npu_core instantiates it
               "dwconv": matrix_params,
               # the whole weight-stationary matrix unit (engine + conv sequencer,
               # rtl/matrix_unit.v): gemm, cfg and conv, WB weight banks
               "matrix_unit": matrix_unit_params}


def queued_units(t: Target) -> int:
    """Units with a queue: matrix, vector and one per DMA channel (the RTL's NU)."""
    return 2 + t.dma_engines


# the area module of each array dataflow: the matrix unit npu_core instantiates for it
MATRIX_AREA_MODULES = {"ws": "matrix_unit", "os": "matrix_unit_os"}

AREA_PARAMS = {
    "matrix_unit": matrix_unit_params,
    "matrix_unit_os": matrix_params,
    "vector_unit": vector_params,
    "dma_engine": dma_params,
    "dispatcher": lambda t: {"NU": queued_units(t)},
    "unit_queue": lambda t: {"Q": t.queue_depth},
    "semaphores": lambda t: {"NSEM": t.semaphores, "NU": queued_units(t)},
    "dwconv_unit": matrix_params,
}


def area_params(module: str, target) -> dict:
    """HDL parameters of an area-model module for any npu Target (the area model also prices
    fp16 targets, whose datapath the RTL does not implement: see npusim.hw.area)."""
    if module not in AREA_PARAMS:
        raise KeyError(f"unknown area module '{module}'; known: {', '.join(AREA_PARAMS)}")
    t = Target.create(target)
    if t.kind != "npu":
        raise TargetError(f"the area model prices npu targets, not kind '{t.kind}'")
    return AREA_PARAMS[module](t)


def unit_params(unit: str, target) -> dict:
    """HDL parameters of one unit (the module under rtl/)."""
    if unit not in UNIT_PARAMS:
        raise KeyError(f"unknown RTL unit '{unit}'; known: {', '.join(UNITS)}")
    return UNIT_PARAMS[unit](rtl_target(target))


def tb_params(unit: str, target, dram_bytes: int | None = None) -> dict:
    """HDL parameters of rtl_tests/hdl/tb_<unit>.v: the unit's, the buffers', the DRAM's."""
    t = rtl_target(target)
    params = {**unit_params(unit, t), **buffer_params(t)}
    if unit == "matrix":  # tb_matrix instantiates matrix_engine_os where OS=1
        params["OS"] = int(MATRIX_ENGINES[t.dataflow] == "matrix_engine_os")
        params["WB"] = t.weight_buffers
    if unit == "dma":
        dram = dram_params(t, dram_bytes)
        params.update(LAT=dram["LAT"], DRAM_BYTES=dram["DRAM_BYTES"])
    return params
