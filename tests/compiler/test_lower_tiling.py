"""Tile choosers: schedules fit the Target's buffers and fields for random layers and targets
(checked by assembling the generated code, whose checks bound every SRAM extent), and the
geometric rewrites (space-to-depth, grouped blocks, DMA copy plans) are exact."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.backends.npu.codegen import generate
from compiler.errors import CompilerError
from compiler.ir.graph import Graph, Node
from compiler.ir.types import TensorType
from compiler.lower.conv import choose_schedule
from compiler.lower.copy import plan_copy
from compiler.lower.cost import Hw
from compiler.lower.epilogue import Epilogue
from compiler.lower.geometry import ConvGeom, block_weights, space_to_depth
from compiler.lower.program import lower
from compiler.passes.infer import infer_types
from isa import semantics as sem
from isa.asm import assemble
from isa.target import Target

TAGS = ["npu-tiny", "npu-edge", "npu-server"]


def qconv_graph(n, h, w, cin, cout, k, stride, pad, groups=1, residual=False, seed=0):
    """One qnn.conv2d (+ optional residual) with random int8 weights and requant params."""
    r = np.random.default_rng(seed)
    g = Graph("one_conv")
    g.add_input("x", TensorType((n, h, w, cin), "int8"))
    ins = ["x", g.add_constant("w", r.integers(-127, 128, (k, k, cin // groups, cout))
                               .astype(np.int8)),
           g.add_constant("b", r.integers(-2000, 2000, cout).astype(np.int32)),
           g.add_constant("m", r.integers(1 << 30, 1 << 31, cout).astype(np.int32)),
           g.add_constant("s", r.integers(38, 42, cout).astype(np.int32))]
    attrs = dict(strides=(stride, stride), pads=(pad,) * 4, groups=groups, act="relu")
    if residual:
        oh = (h + 2 * pad - k) // stride + 1
        ow = (w + 2 * pad - k) // stride + 1
        g.add_input("r", TensorType((n, oh, ow, cout), "int8"))
        ins.append("r")
        attrs.update(lhs_mult=12000, rhs_mult=30000, add_shift=15, post_act="relu")
    g.add_node(Node("qnn.conv2d", ins, "y", attrs))
    g.outputs = ["y"]
    return infer_types(g)


@st.composite
def conv_cases(draw):
    tag = draw(st.sampled_from(TAGS))
    t = Target.create(tag)
    scale = draw(st.sampled_from([1, 2, 4]))
    if tag != "npu-tiny":
        t = t.with_attrs(ibuf_kb=max(4, t.ibuf_kb // scale), wbuf_kb=max(4, t.wbuf_kb // scale))
    k = draw(st.sampled_from([1, 3, 5, 7]))
    stride = draw(st.sampled_from([1, 2]))
    h = draw(st.integers(k, 24))
    w = draw(st.integers(k, 24))
    depthwise = draw(st.booleans()) and k == 3
    cin = draw(st.sampled_from([1, 3, 8, 16, 24, 40, 64]))
    cout = cin if depthwise else draw(st.sampled_from([1, 5, 16, 24, 40]))
    return t, dict(n=draw(st.sampled_from([1, 1, 2])), h=h, w=w, cin=cin, cout=cout, k=k,
                   stride=stride, pad=k // 2, groups=cin if depthwise else 1,
                   residual=draw(st.booleans()))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=conv_cases())
def test_conv_schedules_fit_buffers_and_fields(case):
    target, kw = case
    graph = qconv_graph(**kw)
    try:
        lowered = lower(graph, target)
    except CompilerError as e:  # infeasible must be said clearly, naming the layer and limits
        assert "does not fit" in str(e) or "no tiling" in str(e)
        return
    hw = Hw.from_target(target)
    for layer in lowered.layers:
        s = getattr(layer, "schedule", None)
        if s is not None and hasattr(s, "in_slots"):
            g = layer.geom
            in_rows = min((s.rows - 1) * g.sh + (g.kh - 1) * g.dh + 1, g.h)
            assert s.in_slots * in_rows * g.w * s.cin_slice <= hw.buffer_elems["ibuf"]
            assert s.w_slots * g.kh * g.kw * s.cin_slice * min(hw.cols, g.cout) \
                <= hw.buffer_elems["wbuf"]
    text = generate(lowered).text
    assemble(text)  # the assembler bounds every SRAM/DRAM extent against the Target


def test_chooser_error_names_layer_and_limits():
    hw = Hw.from_target(Target.create("npu-tiny"))
    epi = Epilogue(bias=np.zeros(8), mult=np.ones(8), shift=np.ones(8))
    with pytest.raises(CompilerError, match=r"layer 'huge'.*1023"):
        choose_schedule(ConvGeom(1, 2000, 2000, 8, 8, 3, 3, pads=(1, 1, 1, 1)), epi, hw, "huge")


def test_chooser_prefers_long_m_and_resident_weights_on_edge():
    # one weight bank: a long m amortizes each pass's weight preload (two banks hide it)
    hw = Hw.from_target(Target.create("npu-edge -weight-buffers=1"))
    epi = Epilogue(bias=np.zeros(64), mult=np.ones(64), shift=np.ones(64), act="relu")
    s = choose_schedule(ConvGeom(1, 56, 56, 64, 64, 3, 3, pads=(1, 1, 1, 1)), epi, hw)
    # the 36 KiB of weights stay resident (a slot per tile), rows as long as abuf allows
    assert s.w_slots == 4 * -(-64 // s.cin_slice) and s.rows * 56 >= 1024
    assert s.est["matrix"] < 1.1 * 56 * 56 * 9 * 64 * 64 / 256


@settings(max_examples=30, deadline=None)
@given(h=st.integers(2, 12), k=st.integers(1, 7), s=st.integers(2, 3), pad=st.integers(0, 3),
       cin=st.integers(1, 5), seed=st.integers(0, 1000))
def test_space_to_depth_is_exact(h, k, s, pad, cin, seed):
    h = h * s
    geom = ConvGeom(1, h, h, cin, 3, k, k, s, s, (pad,) * 4)
    if k > h + 2 * pad or pad >= k:
        return
    rw = space_to_depth(geom)
    if rw is None:
        return
    r = np.random.default_rng(seed)
    x = r.integers(-128, 128, (h, h, cin)).astype(np.int8)
    w = r.integers(-128, 128, (k, k, cin, 3)).astype(np.int8)
    shape, perm = rw.permute()
    xs = x.reshape(shape[1:]).transpose([p - 1 for p in perm[1:]]).reshape(
        rw.new.h, rw.new.w, rw.new.cin)
    got = sem.conv2d(xs, rw.weights(w), (1, 1), rw.new.pads)
    assert np.array_equal(got, sem.conv2d(x, w, (s, s), (pad,) * 4))


@pytest.mark.parametrize("groups,cin,cout", [(8, 8, 8), (4, 8, 16), (2, 32, 32), (32, 32, 32)])
def test_grouped_conv_blocks_are_block_diagonal_and_exact(groups, cin, cout):
    r = np.random.default_rng(groups)
    geom = ConvGeom(1, 6, 6, cin, cout, 3, 3, pads=(1, 1, 1, 1), groups=groups)
    x = r.integers(-128, 128, (6, 6, cin)).astype(np.int8)
    w = r.integers(-128, 128, (3, 3, cin // groups, cout)).astype(np.int8)
    ref = np.concatenate([sem.conv2d(x[:, :, i * (cin // groups):(i + 1) * (cin // groups)],
                                     w[:, :, :, i * (cout // groups):(i + 1) * (cout // groups)],
                                     pads=(1, 1, 1, 1)) for i in range(groups)], axis=-1)
    for c0 in range(0, cout, 16):
        c1 = min(c0 + 16, cout)
        lo, hi = geom.cin_range(c0, c1)
        got = sem.conv2d(x[:, :, lo:hi], block_weights(w, geom, c0, c1), pads=(1, 1, 1, 1))
        assert np.array_equal(got, ref[:, :, c0:c1])


def _run_plan(shape, perm, capacity):
    a = np.arange(int(np.prod(shape)))
    dst = np.full(a.size, -1)
    for c in plan_copy(shape, perm, capacity):
        sram = np.full(c.elems, -7)
        assert c.elems <= capacity
        for kind, dmas in (("load", c.loads), ("store", c.stores)):
            for d in dmas:
                assert max(d.planes, d.rows, d.cols) <= 4095
                idx = (d.dram + np.arange(d.planes)[:, None, None] * d.plane_stride
                       + np.arange(d.rows)[None, :, None] * d.stride
                       + np.arange(d.cols)[None, None, :]).ravel()
                if kind == "load":
                    sram[d.sram:d.sram + d.count] = a[idx]
                else:
                    dst[idx] = sram[d.sram:d.sram + d.count]
    return dst, a.reshape(shape).transpose(perm).ravel()


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 9), min_size=1, max_size=5), data=st.data(),
       capacity=st.integers(8, 600))
def test_copy_plans_move_every_element_once(shape, data, capacity):
    perm = tuple(data.draw(st.permutations(range(len(shape)))))
    if max(shape) > capacity:
        return
    got, want = _run_plan(tuple(shape), perm, capacity)
    assert np.array_equal(got, want)


def test_copy_plan_nchw_to_nhwc_takes_three_loads_and_stores():
    chunks = plan_copy((1, 3, 224, 224), (0, 2, 3, 1), 65536)
    assert len(chunks) == 3 and all(len(c.loads) == len(c.stores) == 1 for c in chunks)
    got, want = _run_plan((1, 3, 224, 224), (0, 2, 3, 1), 65536)
    assert np.array_equal(got, want)


def test_swapped_schedule_of_one_cores_share_leaves_room_for_the_whole_layers_table():
    """Split over cores, a layer's tiles are sized for one core's output channels, but its
    epilogue table holds all of them (npu/tconv_gen): ResNet-50's layer4.0.down conv (7x7,
    1024 -> 2048, residual) on npu-edge with 2 cores chose m_tile=512 for 1024 channels and
    then did not fit abuf ('a tile-chooser bug')."""
    import numpy as np
    from compiler.lower.cost import Hw
    from compiler.lower.epilogue import Epilogue
    from compiler.lower.geometry import ConvGeom
    from compiler.lower.tconv import Grid, choose_tconv
    from isa.target import Target
    hw = Hw.from_target(Target("npu-edge", num_cores=2))
    full = ConvGeom(1, 7, 7, 1024, 2048, 1, 1)
    share = ConvGeom(1, 7, 7, 1024, 1024, 1, 1)
    epi = Epilogue(np.zeros(2048, np.int32), mult=np.ones(2048, np.int32),
                   shift=np.ones(2048, np.int32), residual="r")
    s = choose_tconv(share, epi, hw, table_channels=full.cout)
    assert s is not None
    nblk = -(-Grid.of(share).positions // s.n)
    # the accumulators, two epilogue slots of s.part positions (npu/tconv_gen), the table
    words = s.m_tile * s.n * nblk + 2 * s.part * s.m_tile + epi.table_words(full.cout) + \
        epi.scratch_words(s.part * s.m_tile)
    assert words <= hw.buffer_elems["abuf"]


@settings(max_examples=150, deadline=None)
@given(tag=st.sampled_from(TAGS + ["npu-edge -dataflow=os", "npu-edge -dram-bw=32",
                                   "npu-edge -array=32x32", "npu-server -dma-engines=1"]),
       hw_=st.integers(1, 60), k=st.sampled_from([1, 3, 5, 7]), stride=st.integers(1, 2),
       cin=st.sampled_from([3, 16, 48, 64, 128, 256, 512]),
       cout=st.sampled_from([8, 64, 100, 256, 512]), groups=st.booleans(),
       residual=st.booleans(), quantized=st.booleans())
def test_the_pruned_tile_search_chooses_what_the_full_one_does(tag, hw_, k, stride, cin, cout,
                                                               groups, residual, quantized):
    from compiler.lower.conv import _choose
    hw = Hw.from_target(Target.create(tag))
    c = cin if groups else cout  # depthwise when grouped
    geom = ConvGeom(1, hw_ + k, hw_ + k, cin, c, k, k, stride, stride, (k // 2,) * 4,
                    groups=cin if groups else 1)
    ones = np.ones(c)
    epi = Epilogue(bias=ones, mult=ones if quantized else None,
                   shift=ones if quantized else None, act="relu",
                   residual="r" if residual else None)
    try:
        full = _choose(geom, epi, hw, "conv", prune=False)
    except CompilerError:
        return
    pruned = _choose(geom, epi, hw, "conv")
    assert pruned == full and pruned.est == full.est
