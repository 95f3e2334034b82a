"""Target -> HDL parameters of rtl/npu_core.v: the units', the buffers', the DRAM's, the queues'."""

from __future__ import annotations

from isa.checks import core_units
from isa.target import TargetError
from isa.timing import depthwise_cols
from npusim.hw.rtl_params import buffer_params, dma_params, dram_params, matrix_params, rtl_target
from npusim.hw.rtl_params import vector_params

# Words of the core's instruction memory (a microarchitecture choice, not a Target attribute).
IMEM_DEPTH = 1024
# The core's DRAM model in simulation: enough for the tiny programs, cheap to read back.
CORE_DRAM_BYTES = 8 * 1024
# The RTL core's units, in the ISA's unit enum order (matrix = 0, vector = 1, dma0 = 2).
CORE_UNITS = tuple(core_units(1))


def core_target(target):
    """The Target, checked to be one the RTL core implements (int8, one core, one DMA channel)."""
    t = rtl_target(target)
    if t.num_cores != 1:
        raise TargetError(f"the RTL core is one core; target has num-cores={t.num_cores}; "
                          "hint: use -num-cores=1 (multi-core runs are modelled in npusim)")
    if t.dma_engines != 1:
        raise TargetError(f"the RTL core has one DMA channel on one DRAM port; target has "
                          f"dma-engines={t.dma_engines}; hint: use -dma-engines=1 (the shared "
                          "port's burst arbitration is modelled in npusim, not in RTL)")
    return t


def core_params(target, dram_bytes: int = CORE_DRAM_BYTES) -> dict:
    """HDL parameters of npu_core for `target` (every size from the Target)."""
    t = core_target(target)
    dram = dram_params(t, dram_bytes)
    return {**matrix_params(t), **vector_params(t), **dma_params(t), **buffer_params(t),
            "LAT": dram["LAT"], "DRAM_BYTES": dram["DRAM_BYTES"], "Q": t.queue_depth,
            "NSEM": t.semaphores, "IMEM_DEPTH": IMEM_DEPTH,
            "OS": int(t.dataflow == "os"),  # the output-stationary matrix unit (matrix_unit_os)
            "DW": int(depthwise_cols(t) > 0),  # the depthwise mode's unit (matrix_unit_dw)
            "WB": t.weight_buffers}  # the PEs' weight banks (rtl/systolic_array.v)
