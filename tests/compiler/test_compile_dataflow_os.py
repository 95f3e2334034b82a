"""Compiling for -dataflow=os: programs legal on the output-stationary array (gemm k past R),
bit-exact, tiled by its cycle rules; the default (ws) programs do not change."""

import pytest

from compiler.lower.conv import _row_options
from compiler.lower.cost import Hw
from compiler.lower.dense import k_blocks
from isa.target import Target
from npusim import flow
from npusim.runtime.errors import ProgramError

OS = "npu-tiny -dataflow=os"


@pytest.mark.parametrize("model", ["mlp", "small_cnn"])
def test_os_programs_run_bit_exact(model):
    r = flow.run(model, OS, num_calib=2)
    assert r.verified is True and r.verification.bit_exact is True
    ws = flow.run(model, "npu-tiny", num_calib=2)
    # the same integers, other cycles: the array's rules differ
    assert all((r.outputs[k] == ws.outputs[k]).all() for k in ws.outputs)
    assert r.cycles != ws.cycles


def test_os_dense_uses_gemms_deeper_than_the_array():
    ws = flow.compile("mlp", "npu-tiny", num_calib=2).artifact.program.instructions()
    os_ = flow.compile("mlp", OS, num_calib=2).artifact.program.instructions()
    depth = lambda ins: max(i.fields["k"] for i in ins if i.mnemonic == "gemm")  # noqa: E731
    assert depth(ws) == 4 and depth(os_) > 4
    # such a program is not legal on the weight-stationary array of the same size
    with pytest.raises(ProgramError, match="-dataflow=os vs -dataflow=ws"):
        flow.simulate(flow.compile("mlp", OS, num_calib=2), target="npu-tiny", timing_only=True)


def test_os_gemms_stay_within_isa_1_0_on_arrays_it_covers():
    """k's 1.0 range (255) on arrays up to 255 rows: those programs stay 1.0 programs, which
    the RTL runs; a 256-row os array (google.cfg's TPU) takes ISA 1.1's whole field."""
    depth = lambda t: Hw.from_target(Target.create(t)).gemm_k  # noqa: E731
    assert depth("npu -array=255x255 -dataflow=os") == 255
    assert depth("npu -array=256x256 -dataflow=os") == 511
    assert depth("npu -array=256x256") == 256


def test_the_cost_model_follows_the_dataflow():
    ws, os_ = (Hw.from_target(Target.create(t)) for t in ("npu-edge", "npu-edge -dataflow=os"))
    assert (ws.gemm_k, os_.gemm_k) == (16, 255)
    assert k_blocks(784, ws) == [16] and k_blocks(784, os_) == [16, 32, 64, 128, 255]
    # 40 rows, k = 16 on 16x16: ws k + m + R + C - 1 = 87; os 3 folds of 16 + 31 = 141
    assert (ws.gemm(40, 16, 16), os_.gemm(40, 16, 16)) == (87, 141)
    # a 3x3x64 conv of 196 pixels: os 13 folds of 576 + 31 cycles
    assert os_.conv(196, 3, 3, 64, 16) == 13 * 607
    # os rounds m up to folds of R: the conv tiler also offers tile heights of whole folds
    assert (ws.m_fold, os_.m_fold) == (1, 16)
    assert _row_options(28) == _row_options(28, 28, ws.m_fold) == [28, 14, 10, 7, 6, 5, 4, 3, 2, 1]
    assert set(_row_options(28, 28, 32)) - set(_row_options(28)) == {8, 16, 24}  # 224 px = 7 folds
