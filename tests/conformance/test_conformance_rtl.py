"""The rtl DUT: rtl/npu_core.v under cocotb/Icarus runs a documented subset of the npu-tiny
suite (one simulator process), signatures and every cycle rule equal; skipped without Icarus.

The whole npu-tiny suite runs with `npusim conformance run --dut rtl --timing` (minutes)."""

import shutil

import pytest

from npusim.conformance.registry import load_dut
from npusim.conformance.runner import run
from npusim.conformance.suite import select, suite

# every instruction class and the corners most likely to differ in hardware
RTL_SUBSET = ("load/pad*,load/3d,store/3d,store/stride-gap,gemm/full-array,gemm/accumulate-chain,"
              "gemm/wrap-int32,conv/pad-*,conv/stride-2,conv/channel-blocks,vadd/lane-tail*,"
              "vmul/saturate-int8,vrequant/ties*,vrequant/zp-128-relu1,vshr/ties*,vclip/lo-above-hi,"
              "vbias/channels-wrap,vlut/index-ends,vmaxpool/pad-all-negative,vsumpool/2x2-stride-2,"
              "sync/wait-blocks-*,sync/semaphore-counts,sync/every-unit,sync/gbarrier-one-core,"
              "sync/barrier-orders-dram,control/nop,"
              # the transformer instructions
              "gemm/wt-ragged,vrmax/lane-tail,vrsum/saturate-int32,vrsub/saturate-int8,"
              "vrmul/ties*,vexp/edges,vrecip/edges,vrsqrt/edges")


@pytest.mark.skipif(shutil.which("iverilog") is None or shutil.which("vvp") is None,
                    reason="Icarus Verilog (iverilog, vvp) is not installed; the rtl DUT needs it")
def test_rtl_core_passes_the_documented_subset_with_timing():
    entries = select(suite("npu-tiny"), RTL_SUBSET)
    assert len(entries) >= 30
    result = run(entries, load_dut("rtl"), "npu-tiny", timing=True)
    assert result.count("skipped") == 0, [o.message for o in result.outcomes if o.message]
    assert result.failures == [], result.table()


# the depthwise mode (npu_core's DW parameter: matrix_unit_dw): its corners most likely to
# differ in hardware, beside a gemm and a conv that share the unit and the cfg registers
DW_SUBSET = ("dwconv/3x3-all-columns,dwconv/pad-left,dwconv/stride-2,dwconv/taps-over-rows,"
             "dwconv/accumulate-chain,gemm/full-array,conv/pad-top")


@pytest.mark.skipif(shutil.which("iverilog") is None or shutil.which("vvp") is None,
                    reason="Icarus Verilog (iverilog, vvp) is not installed; the rtl DUT needs it")
def test_rtl_core_with_the_depthwise_mode_passes_its_subset_with_timing():
    target = "npu-tiny -depthwise-mode=1"
    entries = select(suite(target), DW_SUBSET)
    assert len(entries) == 8  # conv/pad-top selects dwconv/pad-top too
    result = run(entries, load_dut("rtl"), target, timing=True)
    assert result.count("skipped") == 0, [o.message for o in result.outcomes if o.message]
    assert result.failures == [], result.table()
