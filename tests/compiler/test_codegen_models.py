"""End to end: zoo models and single layers compiled for npu targets, simulated, and compared
bit for bit with the integer reference of the quantized graph."""

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.backends import build
from compiler.backends.npu.codegen import generate
from compiler.lower.program import lower
from compiler.reference import run_int
from isa.asm import assemble
from isa.target import Target
from npusim.flow import device_inputs, execute, random_inputs

from test_lower_tiling import qconv_graph


def check_bit_exact(compiled, seed=0):
    feeds = random_inputs(compiled, seed)
    dev_in = device_inputs(compiled, feeds)
    result, outputs = execute(compiled.artifact, dev_in)
    want = compiled.module.run_int(dev_in)
    for e in compiled.artifact.outputs:
        assert np.array_equal(outputs[e.name], want[e.name]), e.name
    return result


@pytest.mark.parametrize("model,kwargs,target", [
    ("small_cnn", {}, "npu-edge"),
    ("small_cnn", {}, "npu-tiny"),
    ("mlp", {}, "npu-edge"),
    ("mlp", {"activation": "sigmoid"}, "npu-tiny"),
    ("small_cnn", {"batch": 2}, "npu-edge -dma-engines=1"),
    ("small_cnn", {}, "npu-server"),
    ("mobilenetv2", {"resolution": 32}, "npu-edge"),
])
def test_zoo_model_is_bit_exact(model, kwargs, target):
    compiled = build(model, target, num_calib=2, **kwargs)
    result = check_bit_exact(compiled)
    assert result.cycles > 0 and result.macs >= compiled.lowered.macs


def test_resnet18_at_32_is_bit_exact_on_edge(resnet18_q):
    compiled = build(resnet18_q, "npu-edge")
    result = check_bit_exact(compiled)
    # utilization of the array is sane even at 32x32 (tiny spatial maps, fill/drain bound)
    assert 0.03 < result.utilization < 1


def test_resnet18_at_32_is_bit_exact_on_four_cores(resnet18_q):
    compiled = build(resnet18_q, "npu-server")
    assert compiled.artifact.program.num_cores == 4
    assert "gbarrier" in compiled.artifact.assembly
    check_bit_exact(compiled)


def test_resnet50_at_16_is_bit_exact():
    check_bit_exact(build("resnet50", "npu-edge", num_calib=1, resolution=16))


def test_barrier_and_token_sync_give_the_same_bits_and_tokens_are_faster():
    a = build("small_cnn", "npu-edge", sync="tokens", num_calib=2)
    b = build("small_cnn", "npu-edge", sync="barrier", num_calib=2)
    ra, rb = check_bit_exact(a), check_bit_exact(b)
    assert "barrier" in b.artifact.assembly and "barrier" not in a.artifact.assembly
    assert ra.cycles < rb.cycles


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(k=st.sampled_from([1, 3]), stride=st.sampled_from([1, 2]), h=st.integers(3, 12),
       cin=st.sampled_from([3, 16, 20, 48]), cout=st.sampled_from([8, 16, 40]),
       depthwise=st.booleans(), residual=st.booleans(), n=st.sampled_from([1, 2]),
       tag=st.sampled_from(["npu-tiny", "npu-edge", "npu -array=8x8 -ibuf-kb=8 -wbuf-kb=4"]))
def test_single_conv_layers_are_bit_exact(k, stride, h, cin, cout, depthwise, residual, n, tag):
    cout = cin if depthwise else cout
    g = qconv_graph(n, h, h + 1, cin, cout, k, stride, k // 2, cin if depthwise else 1,
                    residual, seed=h)
    run_and_compare(g, tag, seed=cin)


def run_and_compare(g, tag, seed=0, **lower_opts):
    """Lower, generate, assemble and simulate a quantized graph; compare with run_int."""
    target = Target.create(tag)
    lowered = lower(g, target, **lower_opts)
    res = generate(lowered)
    prog = assemble(res.text)
    r = np.random.default_rng(seed)
    feeds = {v: r.integers(-128, 128, g.type_of(v).shape).astype(np.int8) for v in g.inputs}

    def entry(v):
        return SimpleNamespace(name=v, dram=res.dram.addr(lowered, v), shape=g.type_of(v).shape,
                               dtype="int8")

    def image(dram):
        img = np.frombuffer(res.dram.image(), np.uint8)
        dram.bytes[res.dram.const_base:res.dram.const_base + img.size] = img

    art = SimpleNamespace(program=prog, target=tag, inputs=[entry(v) for v in g.inputs],
                          outputs=[entry("y")], dram_image=image)
    result, out = execute(art, feeds)
    assert np.array_equal(out["y"], run_int(g, feeds)["y"])
    return lowered, result


# The rewrites below pay on PEs with one weight bank, where a conv pass waits for its
# weights' preload: npu-edge's two banks hide it, and there the plain conv form wins these
# shapes (tests/compiler/test_weight_buffers_tiling.py)
ONE_BANK = "npu-edge -weight-buffers=1"


@pytest.mark.parametrize("shape,kinds", [
    # a small map with many channels: stationary positions, streamed weights; with the
    # kernel columns folded into the channels the 7-wide grid rows (no side padding) stack
    # two to a 16-wide block (51,464 cycles; 55,170 without stacking)
    (dict(h=7, cin=64, cout=256, k=3, stride=1, residual=True),
     ["FoldCopyLayer", "TConvLayer"]),
    # a strided conv on a small map: space-to-depth, then swapped roles skipping zero taps
    (dict(h=14, cin=64, cout=256, k=3, stride=2), ["CopyLayer", "TConvLayer"]),
    # an RGB stem: space-to-depth and kernel columns folded into the channels by one copy
    (dict(h=64, cin=3, cout=16, k=7, stride=2), ["FoldCopyLayer", "ConvLayer"]),
    # a stride-1 conv with few channels: columns folded
    (dict(h=16, cin=3, cout=16, k=3, stride=1), ["FoldCopyLayer", "ConvLayer"]),
])
def test_each_conv_rewrite_is_chosen_where_it_pays_and_is_bit_exact(shape, kinds):
    g = qconv_graph(1, shape["h"], shape["h"], shape["cin"], shape["cout"], shape["k"],
                    shape["stride"], shape["k"] // 2, residual=shape.get("residual", False))
    lowered, result = run_and_compare(g, ONE_BANK)
    assert [type(layer).__name__ for layer in lowered.layers] == kinds
    plain, slow = run_and_compare(g, ONE_BANK, s2d=False, swap=False, fold=False,
                                  im2col=False)
    assert [type(layer).__name__ for layer in plain.layers] == ["ConvLayer"]
    assert result.cycles < slow.cycles


@pytest.mark.parametrize("residual", [False, True])
def test_stacked_kernel_rows_stream_three_taps_per_gemm_and_are_bit_exact(residual):
    """A 14x14 map's 16-wide grid row fits a 16-wide array: one stationary tile per grid row
    and kernel column serves all three kernel rows (m = 3 x 256 per gemm instead of 196 rows
    per weight tile in the usual orientation); faster than the best schedule without it."""
    g = qconv_graph(1, 14, 14, 256, 256, 3, 1, 1, residual=residual, seed=5)
    lowered, result = run_and_compare(g, ONE_BANK)
    (layer,) = lowered.layers
    assert type(layer).__name__ == "TConvLayer" and layer.schedule.stack
    # kernel rows per grid row: the first and last image rows feed two output rows
    pairs = layer.stacking.pairs(layer.geom)
    assert [hi - lo + 1 for _, lo, hi, _ in pairs] == [2] + [3] * 12 + [2]
    _, plain = run_and_compare(g, ONE_BANK, stack=False)
    assert result.cycles < 0.97 * plain.cycles


@pytest.mark.parametrize("h,cin,cout,tag,parts", [
    (14, 64, 64, "npu-edge -array=32x32", 2),   # two grid rows 7 apart per 32-wide block
    (7, 32, 48, "npu-edge -array=32x32", 3),    # three rows 3 apart, two junk output rows
    (10, 24, 40, ONE_BANK, 1),                # channel blocks of 16 and 8: a slot per block
])
def test_stacked_forms_the_cost_model_may_not_pick_are_bit_exact(monkeypatch, h, cin, cout,
                                                                  tag, parts):
    """Every stacked layout (several grid rows per block, a partial channel block, a residual)
    computes the reference bit for bit; the usual schedule is made to look slow so that the
    swapped one, and among those a stacked one, is taken (and no folded columns)."""
    import compiler.lower.conv_lowering as cl
    import compiler.lower.tconv as tc
    from dataclasses import replace
    plain, pick = cl.choose_schedule, tc.pick
    monkeypatch.setattr(cl, "choose_schedule", lambda *a, **k: replace(
        plain(*a, **k), est={"cycles": 10 ** 9, "instructions": 0}))
    monkeypatch.setattr(tc, "pick", lambda c: pick([s for s in c if s.stack] or c))
    monkeypatch.setattr(tc, "STACK_WIN", float("inf"))
    g = qconv_graph(1, h, h, cin, cout, 3, 1, 1, residual=True, seed=7)
    lowered, _ = run_and_compare(g, tag, fold=False)
    (layer,) = lowered.layers
    assert type(layer).__name__ == "TConvLayer" and layer.schedule.stack == parts


def test_a_swapped_conv_whose_epilogue_runs_in_pieces_is_bit_exact():
    """On a 32-wide array all 512 output channels of a 7x7 map's swapped conv fit abuf only
    with the position blocks' epilogue in pieces (smaller epilogue slots): a pass streams
    m = 512 instead of 256 (k + m + R + C - 1 per pass)."""
    g = qconv_graph(1, 7, 7, 512, 512, 3, 1, 1, residual=False, seed=3)
    lowered, result = run_and_compare(g, f"{ONE_BANK} -array=32x32")
    (layer,) = lowered.layers
    assert type(layer).__name__ == "TConvLayer"
    assert layer.schedule.m_tile == 512 and layer.schedule.parts > 1


@pytest.mark.parametrize("tail", ["longest", "chosen"])
def test_a_swapped_conv_split_over_cores_gathers_each_tap_once_per_block(monkeypatch, tail):
    """Split over cores, a swapped 3x3 conv whose resident tail passes span more taps than the
    two tap slots hold gathers block by block in the tail, so each core moves each tap's
    positions once per block (not once per block per block), bit-exact; and the cost model,
    with the port shared, keeps no tail there (the tail's weights come last: every block
    after the first would run its tail passes after the DMA)."""
    import compiler.lower.conv_lowering as cl
    import compiler.lower.tconv as tc
    from dataclasses import replace
    plain, pick = cl.choose_schedule, tc.pick
    monkeypatch.setattr(cl, "choose_schedule", lambda *a, **k: replace(
        plain(*a, **k), est={"cycles": 10 ** 9, "instructions": 0}))
    if tail == "longest":
        monkeypatch.setattr(tc, "pick", lambda c: pick([s for s in c if s.tail == max(
            x.tail for x in c)]))
    g = qconv_graph(1, 7, 7, 128, 128, 3, 1, 1, residual=True, seed=5)
    lowered, _ = run_and_compare(g, "npu-edge -array=32x32 -num-cores=2", fold=False)
    (layer,) = lowered.layers
    assert type(layer).__name__ == "TConvLayer" and not layer.schedule.stack
    blocks = len(layer.blocks())
    assert blocks == 2
    if tail == "chosen":
        assert layer.schedule.tail == 0
        return
    assert layer.schedule.tail > 2 * 4  # past the two tap slots (4 channel blocks a tap)
    res = generate(lowered)
    for core in range(2):
        gathers = [c for c in res.annotations.comments[core].values()
                   if " tap " in c and "positions" in c and "cout" not in c]
        # nine taps a block, and the tap the head left resident gathered again for the
        # blocks after the first (it was evicted by the first block's tail)
        assert 9 * blocks <= len(gathers) <= 10 * blocks


def test_a_stem_fold_copy_split_over_cores_stores_on_the_results_channel():
    """Split over cores a barrier follows the fold copy, so it runs alone: its loads go on the
    weights' channel and its stores on the results' (on one core both on the weights', so
    the conv's input loads never queue behind it), through four slots, bit-exact."""
    g = qconv_graph(1, 64, 64, 3, 64, 7, 2, 3, residual=False, seed=2)
    lowered, _ = run_and_compare(g, "npu-server")
    assert [type(layer).__name__ for layer in lowered.layers] == ["FoldCopyLayer", "ConvLayer"]
    ops = _fold_ops(lowered, 4)
    assert {op.unit for op in ops if op.ins.mnemonic == "load"} == {"dma1"}
    assert {op.unit for op in ops if op.ins.mnemonic == "store"} == {"dma2"}
    assert len({op.reads[0][1] for op in ops if op.ins.mnemonic == "store"}) == 4
    one, _ = run_and_compare(g, "npu-edge -array=32x32 -vector-lanes=64 -dma-engines=4")
    ops = _fold_ops(one, 1)
    assert {op.unit for op in ops} == {"dma1"}


def _fold_ops(lowered, cores: int) -> list:
    """The fold copy's ops on core 0 of `cores`."""
    from compiler.backends.npu.codegen import work
    from compiler.backends.npu.dram import DramMap
    from compiler.backends.npu.emit import Emitter
    from compiler.backends.npu.generators import generator_for
    from compiler.backends.npu.hazards import Tracker
    layer = lowered.layers[0]
    dram = DramMap(lowered.target.derived.dram_bytes)
    dram.place_activations(lowered)
    em = Emitter(lowered.hw, Tracker(), 0, layer.name)
    generator_for(layer).gen(em, layer, work(layer, lowered.hw, 0, cores), dram, lowered, "L0")
    return em.ops


def test_an_rgb_stem_folds_its_columns_at_its_stride_on_a_32_row_array():
    """On a 32-row array a 7x7/2 RGB stem folds its kernel columns at the conv's horizontal
    stride, without space-to-depth: 7 passes of 21 channels instead of 4 taps x 2 blocks of
    48 channels; bit-exact (padding columns and the last row phase included), and faster than
    the space-to-depth fold."""
    g = qconv_graph(1, 96, 96, 3, 64, 7, 2, 3, residual=False, seed=4)
    lowered, result = run_and_compare(g, f"{ONE_BANK} -array=32x32")
    copy, conv = lowered.layers
    assert type(copy).__name__ == "FoldCopyLayer" and copy.f.strided
    assert (conv.geom.kh, conv.geom.kw, conv.geom.cin, conv.geom.sh) == (7, 1, 21, 2)
    import compiler.lower.conv_lowering as cl
    from compiler.lower import fold as fd
    try:
        cl.fold_strided = lambda geom: None
        other, slow = run_and_compare(g, f"{ONE_BANK} -array=32x32")
    finally:
        cl.fold_strided = fd.fold_strided
    assert not other.layers[0].f.strided and result.cycles < slow.cycles


@pytest.mark.parametrize("h,w,k,stride,pad", [
    (17, 23, 3, 2, 1),   # odd widths: the last output column's window reaches the padding
    (20, 21, 5, 2, 2),
    (15, 19, 3, 3, 1),   # stride 3
])
def test_the_strided_column_fold_is_bit_exact_where_it_is_made_to_be_taken(monkeypatch, h, w,
                                                                          k, stride, pad):
    """The strided column fold (compiler.lower.fold.fold_strided) computes the reference bit
    for bit: every other candidate is made to look slow."""
    import compiler.lower.conv_lowering as cl
    orig = cl.plain_or_swapped

    def only_strided(*args, note, **kwargs):
        cost, layers = orig(*args, note=note, **kwargs)
        return (cost if note.endswith("strided") else 10 ** 9), layers
    monkeypatch.setattr(cl, "plain_or_swapped", only_strided)
    g = qconv_graph(1, h, w, 3, 24, k, stride, pad, residual=False, seed=6)
    lowered, _ = run_and_compare(g, "npu-edge", swap=False)
    copy, conv = lowered.layers
    assert type(copy).__name__ == "FoldCopyLayer" and copy.f.strided
    assert (conv.geom.kw, conv.geom.cin, conv.geom.sh) == (1, 3 * k, stride)


def test_a_swapped_1x1_conv_gathers_from_its_input_without_a_grid():
    """A 1x1 conv without padding is its own grid: the swapped form gathers its stationary
    tiles from the input itself (no grid copy, no DRAM round trip), bit-exact."""
    g = qconv_graph(1, 7, 7, 256, 512, 1, 1, 0, residual=True, seed=8)
    lowered, _ = run_and_compare(g, ONE_BANK)
    (layer,) = lowered.layers
    assert type(layer).__name__ == "TConvLayer" and layer.direct
    res = generate(lowered)
    comments = list(res.annotations.comments[0].values())
    assert any(" tap 0,0 positions" in c for c in comments)
    assert not any("grid" in c for c in comments)
