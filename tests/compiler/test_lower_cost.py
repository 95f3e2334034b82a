"""The lowering cost model's cycle rules agree with the simulator's (npusim.timing)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.lower.cost import Hw
from isa.codec import instruction
from isa.target import Target
from npusim import timing

TARGETS = ["npu-tiny", "npu-edge", "npu-server", "npu -array=8x32 -vector-lanes=8 -dram-bw=4",
           "npu-tiny -dma-fill-lanes=1 -dma-setup=0 -dram-latency=0"]


@settings(max_examples=60, deadline=None)
@given(t=st.sampled_from(TARGETS), m=st.integers(1, 5000), k=st.integers(1, 32),
       n=st.integers(1, 32), length=st.integers(1, 65535), nbytes=st.integers(1, 1 << 20),
       fill=st.integers(0, 1 << 20))
def test_matrix_vector_dma_rules_match_npusim(t, m, k, n, length, nbytes, fill):
    target = Target.create(t)
    hw, ref = Hw.from_target(target), timing.HwParams.from_target(target)
    k, n = min(k, hw.rows), min(n, hw.cols)
    assert hw.gemm(m, k, n) == timing.matrix_gemm(ref, m, k, n)
    assert hw.vector(length) == timing.vector_elementwise(ref, length)
    assert hw.requant(length) == timing.vector_requant(ref, length)
    assert hw.dma(nbytes) == timing.dma(ref, nbytes)
    assert hw.dma(nbytes, fill) == timing.dma(ref, nbytes, fill)
    assert hw.dma_fill(fill) == timing.dma_fill(ref, fill)


@settings(max_examples=60, deadline=None)
@given(t=st.sampled_from(TARGETS), h=st.integers(1, 40), w=st.integers(1, 40),
       cin=st.integers(1, 300), kh=st.integers(1, 5), kw=st.integers(1, 5),
       stride=st.integers(1, 3), pad=st.integers(0, 2))
def test_conv_and_pool_rules_match_npusim(t, h, w, cin, kh, kw, stride, pad):
    target = Target.create(t)
    hw, ref = Hw.from_target(target), timing.HwParams.from_target(target)
    h, w = max(h, kh), max(w, kw)
    regs = {"conv_kh": kh, "conv_kw": kw, "conv_stride_h": stride, "conv_stride_w": stride,
            "conv_pad_top": pad, "conv_pad_left": pad, "conv_pad_bottom": pad,
            "conv_pad_right": pad, "conv_dilation_h": 1, "conv_dilation_w": 1}
    conv = instruction("conv", ibuf=0, wbuf=0, abuf=0, in_h=h, in_w=w, cin=cin,
                       cout=hw.cols, acc=0)
    oh, ow = timing.conv_out_hw(conv.fields, regs)
    assert hw.conv(oh * ow, kh, kw, cin, hw.cols) == timing.unit_cycles(ref, conv, regs)
    pregs = {k.replace("conv", "pool"): v for k, v in regs.items() if "dilation" not in k}
    fields = {"in_h": h, "in_w": w, "channels": cin}
    ph, pw = timing.pool_out_hw(fields, pregs)
    assert hw.pool(ph, pw, kh, kw, cin) == timing.vector_pool(ref, fields, pregs)


def test_dma_time_is_port_bound_for_big_transfers_and_latency_bound_for_small():
    hw = Hw.from_target(Target.create("npu-edge"))
    # 1 MiB in 16 transfers: the port's 65536 beats dominate the 16 x 108 fixed cycles / 2
    assert hw.dma_time(16, 1 << 20) == (1 << 20) // 16
    # 1000 transfers of 16 bytes: (1000 * 108 + 1000) / 2 channels
    assert hw.dma_time(1000, 16000) == (1000 * 108 + 1000) // 2
