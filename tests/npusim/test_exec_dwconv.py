"""npusim.exec dwconv (the array's depthwise mode): bit-exact against a plain numpy loop, its
cycle rule in exact numbers, refused (assembler) and faulted (engine) on an array without the
mode, and priced by the area model only where the array has it."""

import numpy as np
import pytest

from isa import instruction as I
from isa.checks import TargetCheckError, check_instruction
from isa.target import Target
from npusim.exec import CoreState, execute
from npusim.faults import IllegalInstructionError
from npusim.hw.area import area_breakdown, module_um2

rng = np.random.default_rng(11)


def naive_dwconv(x, w, stride, pads, dil):
    top, left, bottom, right = pads
    xp = np.pad(x.astype(np.int64), ((top, bottom), (left, right), (0, 0)))
    kh, kw, c = w.shape
    oh = (xp.shape[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (xp.shape[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((oh, ow, c), np.int64)
    for y in range(oh):
        for x_ in range(ow):
            for i in range(kh):
                for j in range(kw):
                    out[y, x_] += xp[y * stride[0] + i * dil[0], x_ * stride[1] + j * dil[1]] \
                        * w[i, j].astype(np.int64)
    return out


def _run(target, h, w, c, regs, acc_init=None):
    state = CoreState(target)
    x = rng.integers(-128, 128, (h, w, c))
    k = rng.integers(-128, 128, (regs.get("conv_kh", 1), regs.get("conv_kw", 1), c))
    state.buffers["ibuf"][10:10 + x.size] = x.reshape(-1)
    state.buffers["wbuf"][3:3 + k.size] = k.reshape(-1)
    for reg, value in regs.items():
        execute(I("cfg", unit="matrix", reg=reg, value=value), state, None)
    want = naive_dwconv(x, k, (regs.get("conv_stride_h", 1), regs.get("conv_stride_w", 1)),
                        tuple(regs.get(f"conv_pad_{s}", 0) for s in
                              ("top", "left", "bottom", "right")),
                        (regs.get("conv_dilation_h", 1), regs.get("conv_dilation_w", 1)))
    if acc_init is not None:
        state.buffers["abuf"][50:50 + want.size] = acc_init
        want = want + acc_init.reshape(want.shape)
    info = execute(I("dwconv", ibuf=10, wbuf=3, abuf=50, in_h=h, in_w=w, channels=c,
                     acc=int(acc_init is not None)), state, None)
    got = state.buffers["abuf"][50:50 + want.size].reshape(want.shape)
    assert got.tolist() == want.tolist()
    return info


def test_each_channel_from_its_own_input_channel_with_padding_stride_dilation():
    regs = dict(conv_kh=3, conv_kw=3, conv_stride_h=2, conv_stride_w=1, conv_pad_top=1,
                conv_pad_left=2, conv_pad_bottom=0, conv_pad_right=1, conv_dilation_w=2)
    _run("npu-edge -depthwise-mode=1", 7, 6, 16, regs)
    _run("npu-tiny -depthwise-mode=1", 5, 5, 3, dict(conv_kh=3, conv_kw=3),
         acc_init=rng.integers(-1000, 1000, 27))


def test_cycles_are_one_pass_per_block_of_r_taps():
    # npu-edge: 9 taps in one pass: 9 + 14*14 + 16 + 16 - 1
    info = _run("npu-edge -depthwise-mode=1", 16, 16, 16, dict(conv_kh=3, conv_kw=3))
    assert (info.cycles, info.macs) == (9 + 196 + 31, 196 * 9 * 16)
    # npu-tiny (4 rows): 9 taps in passes of 4, 4, 1: 9 + 3 * (3*3 + 4 + 4 - 1)
    info = _run("npu-tiny -depthwise-mode=1", 5, 5, 4, dict(conv_kh=3, conv_kw=3))
    assert info.cycles == 9 + 3 * (9 + 7)


def test_refused_and_faulted_without_the_mode():
    ins = I("dwconv", ibuf=0, wbuf=0, abuf=0, in_h=3, in_w=3, channels=4)
    for tag in ("npu-edge -depthwise-mode=0", "npu-edge -depthwise-mode=1 -dataflow=os",
                "npu-edge -dataflow=os"):
        with pytest.raises(TargetCheckError, match="depthwise-mode=1"):
            check_instruction(ins, Target.create(tag))
        with pytest.raises(IllegalInstructionError, match="channels=4 exceeds"):
            execute(ins, CoreState(tag), None)
    with pytest.raises(TargetCheckError, match="out of range 1..16"):
        check_instruction(I("dwconv", ibuf=0, wbuf=0, abuf=0, in_h=3, in_w=3, channels=17),
                          Target.create("npu-edge -depthwise-mode=1"))


def test_the_mode_is_priced_only_where_the_array_has_it():
    """The depthwise unit (its own fit, rtl/dwconv_unit.v) adds to the matrix component only,
    only on a weight-stationary array with the mode, and grows with the array."""
    base = area_breakdown("npu-edge -depthwise-mode=0")
    mode = area_breakdown("npu-edge -depthwise-mode=1")
    assert area_breakdown("npu-edge") == mode  # the tag has the mode
    assert mode["matrix"] > base["matrix"]
    assert {k: v for k, v in mode.items() if k != "matrix"} == \
        {k: v for k, v in base.items() if k != "matrix"}
    assert mode["matrix"] - base["matrix"] == pytest.approx(
        module_um2("dwconv_unit", {"R": 16, "C": 16}) / 1e6, rel=1e-12)
    # an output-stationary array has no depthwise mode: the flag prices nothing there
    assert area_breakdown("npu-edge -depthwise-mode=1 -dataflow=os") == \
        area_breakdown("npu-edge -dataflow=os")
    small = area_breakdown("npu-edge -array=8x8 -depthwise-mode=1")["matrix"] - \
        area_breakdown("npu-edge -array=8x8 -depthwise-mode=0")["matrix"]
    assert 3 < (mode["matrix"] - base["matrix"]) / small < 4.5  # R*C PEs dominate


def test_a_program_with_dwconv_needs_isa_1_1():
    """dwconv is new in ISA 1.1: a container of its words records 1.1, even with every split
    field's high part zero (1.0 has no such opcode)."""
    from isa.codec import encode_fields
    from isa.spec import load_spec
    spec = load_spec()
    gemm = encode_fields("gemm", m=1, k=1, n=1)
    dw = encode_fields("dwconv", in_h=1, in_w=1, channels=1)
    assert spec.words_version([gemm]) == spec.base_version_tuple == (1, 0)
    assert spec.words_version([gemm, dw]) == spec.version_tuple == (1, 1)
