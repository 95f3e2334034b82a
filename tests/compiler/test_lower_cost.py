"""The lowering cost model finds each instruction's cycles through the spec, as the simulator
does: Hw's estimates equal isa.timing's rules on the simulator's operands, and its field
limits are the spec's."""

from math import isqrt

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.lower.cost import FIELD_MAX, Hw
from isa import timing
from isa.codec import instruction
from isa.operands import cycle_operands
from isa.target import Target

TARGETS = ["npu-tiny", "npu-edge", "npu-server", "npu -array=8x32 -vector-lanes=8 -dram-bw=4",
           "npu-tiny -dma-fill-lanes=1 -dma-setup=0 -dram-latency=0"]


def unit_cycles(ref, mnemonic, regs=None, elem_bytes=1, **fields):
    """The simulator's view: the decoded instruction, its operands from isa.operands."""
    return timing.unit_cycles(ref, instruction(mnemonic, **fields), regs or {}, elem_bytes)


@settings(max_examples=60, deadline=None)
@given(t=st.sampled_from(TARGETS), m=st.integers(1, 5000), k=st.integers(1, 32),
       n=st.integers(1, 32), length=st.integers(1, 65535), rows=st.integers(1, 64),
       cols=st.integers(1, 64), planes=st.integers(1, 16), pad=st.integers(0, 7))
def test_matrix_vector_dma_rules_match_the_simulator(t, m, k, n, length, rows, cols, planes,
                                                     pad):
    target = Target.create(t)
    hw, ref = Hw.from_target(target), timing.HwParams.from_target(target)
    assert hw.params == ref
    k, n = min(k, hw.rows), min(n, hw.cols)
    assert hw.gemm(m, k, n) == unit_cycles(ref, "gemm", m=m, k=k, n=n)
    for mnemonic in ("vadd", "vrelu", "vcopy", "vmul", "vrequant", "vbias"):
        extra = {"channels": 1} if mnemonic in ("vrequant", "vbias") else {}
        assert hw.cycles(mnemonic, len=length) == unit_cycles(ref, mnemonic, len=length,
                                                              **extra)
    nbytes = planes * rows * cols
    padded = (planes * (rows + pad) * (cols + pad)) if pad else 0
    regs = {"dma_planes": planes}
    assert hw.dma(nbytes) == unit_cycles(ref, "load", regs, rows=rows, cols=cols)
    assert hw.dma(nbytes, mnemonic="store") == unit_cycles(ref, "store", regs, rows=rows,
                                                           cols=cols)
    assert hw.dma(nbytes, padded) == unit_cycles(ref, "load", regs, rows=rows, cols=cols,
                                                 pad_top=pad, pad_left=pad)
    assert hw.dma_fill(padded) == timing.dma_fill(ref, padded)


@settings(max_examples=60, deadline=None)
@given(t=st.sampled_from(TARGETS), h=st.integers(1, 40), w=st.integers(1, 40),
       cin=st.integers(1, 300), kh=st.integers(1, 5), kw=st.integers(1, 5),
       stride=st.integers(1, 3), pad=st.integers(0, 2))
def test_conv_and_pool_rules_match_the_simulator(t, h, w, cin, kh, kw, stride, pad):
    target = Target.create(t)
    hw, ref = Hw.from_target(target), timing.HwParams.from_target(target)
    h, w = max(h, kh), max(w, kw)
    regs = {"conv_kh": kh, "conv_kw": kw, "conv_stride_h": stride, "conv_stride_w": stride,
            "conv_pad_top": pad, "conv_pad_left": pad, "conv_pad_bottom": pad,
            "conv_pad_right": pad, "conv_dilation_h": 1, "conv_dilation_w": 1}
    conv = instruction("conv", ibuf=0, wbuf=0, abuf=0, in_h=h, in_w=w, cin=cin,
                       cout=hw.cols, acc=0)
    ops = cycle_operands(conv, regs)
    assert hw.conv(ops["oh"] * ops["ow"], kh, kw, cin, hw.cols) == \
        timing.unit_cycles(ref, conv, regs)
    pregs = {k.replace("conv", "pool"): v for k, v in regs.items() if "dilation" not in k}
    for mnemonic in ("vmaxpool", "vsumpool"):
        pool = instruction(mnemonic, in_h=h, in_w=w, channels=cin)
        ops = cycle_operands(pool, pregs)
        assert hw.pool(ops["oh"], ops["ow"], kh, kw, cin, mnemonic) == \
            timing.unit_cycles(ref, pool, pregs)


def test_field_limits_are_the_spec_values_lowering_always_used():
    assert FIELD_MAX == {"rows": 4095, "cols": 4095, "planes": 4095, "in_hw": 1023,
                         "cin": 4095, "channels": 4095, "len": 8388607, "m": 65535, "pad": 7,
                         "conv_pad": 15, "conv_kernel": 15, "pool_window": 255,
                         "pool_pad": 15}


def test_dma_time_is_port_bound_for_big_transfers_and_latency_bound_for_small():
    hw = Hw.from_target(Target.create("npu-edge"))
    # 1 MiB in 16 transfers: the port's 65536 beats dominate the 16 x 108 fixed cycles / 2
    assert hw.dma_time(16, 1 << 20) == (1 << 20) // 16
    # 1000 transfers of 16 bytes: (1000 * 108 + 1000) / 2 channels
    assert hw.dma_time(1000, 16000) == (1000 * 108 + 1000) // 2


def test_a_channel_waits_for_the_other_channels_bursts_on_the_port():
    """dma_streams: a channel's beats share the port burst by burst with the others', so
    its in-order stream takes T = fixed + beats + beats * others / T (the root, rounded up)."""
    roles = {"in": (112, 112 * 3584), "w": (1, 512), "out": (112, 112 * 1792)}
    one, two, four = (Hw.from_target(Target.create("npu-edge").with_attrs(dma_engines=e))
                      for e in (1, 2, 4))
    # one channel: every transfer in order, nothing to wait for (113 loads, 112 stores)
    assert one.dma_streams(roles) == 225 * 108 + 25088 + 32 + 12544
    # two: loads and stores in order on channel 0, beside the 32 weight beats of channel 1
    a = 224 * 108 + 25088 + 12544
    assert two.dma_streams(roles) == (a + isqrt(a * a + 4 * 37632 * 32) + 1) // 2 == 61843
    # four: the loads' channel (112 x 108 fixed cycles) waits for the stores' 12,544 beats:
    # 44,305 cycles, where the port (37,664 beats) and the channel alone (37,184) said less
    a = 112 * 108 + 25088
    assert four.dma_streams(roles) == (a + isqrt(a * a + 4 * 25088 * 12576) + 1) // 2 == 44305
    # split over 4 cores each channel is charged every core's beats of its role (that bound
    # stands for the waits): 108 + 4 x 100 beats, 10 x 108 + 4 x 10
    assert four.dma_streams({"in": (1, 1600)}, cores=4) == 508
    assert four.dma_streams({"in": (10, 160), "out": (1, 16)}, cores=4) == 1120


def test_more_engines_do_not_make_many_small_tiles_look_cheap():
    """MobileNetV2's block0.project (1x1, 112x112x32 -> 16) at 4 DMA engines took 1-row tiles
    (estimated 38,487 cycles, simulated 43,137 in the network) over 8-row ones (38,061): the
    loads on their own channel looked free of the stores sharing the port."""
    import numpy as np

    from compiler.lower.conv import choose_schedule, estimate
    from compiler.lower.epilogue import Epilogue
    from compiler.lower.geometry import ConvGeom
    g = ConvGeom(1, 112, 112, 32, 16, 1, 1)
    epi = Epilogue(bias=np.zeros(16), mult=np.ones(16), shift=np.ones(16))
    for engines in (2, 3, 4, 8):
        hw = Hw.from_target(Target.create("npu-edge").with_attrs(dma_engines=engines))
        one, eight = (estimate(g, epi, hw, rows, 32, "sjq") for rows in (1, 8))
        assert one.est["cycles"] > eight.est["cycles"], engines
        assert choose_schedule(g, epi, hw).rows >= 4, engines
