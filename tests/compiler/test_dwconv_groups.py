"""Standalone depthwise-mode convs in bands x groups of channel blocks (compiler/lower/dwconv.py):
bit-exact against the integer reference (padding, strides, a narrow last block, bands, several
cores), one load and one store per group, every block's taps in one load, and chosen on the
DRAM-bound 14x14 and 7x7 layers of MobileNetV2 where it is faster than the conv tiler's."""

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import compiler.lower.conv_lowering as conv_lowering
from compiler.backends.npu.codegen import generate
from compiler.lower.dwconv import DwconvLayer, _estimate, choose_dwconv
from compiler.lower.program import lower
from test_codegen_models import run_and_compare
from test_lower_tiling import qconv_graph

MODE = "npu-edge -depthwise-mode=1"


def _forced(monkeypatch, rows=None, group=None):
    """Make the grouped lowering win (and, given, use `rows` x `group`)."""
    def candidate(lw, name, x, y, geom, w, epi):
        s = choose_dwconv(geom, epi, lw.hw)
        if s is None:
            return None
        if rows or group:
            s = replace(s, rows=rows or s.rows, group=group or s.group)
        return 0, [DwconvLayer(name, x, y, geom, w, epi, s)]
    monkeypatch.setattr(conv_lowering, "dwconv_candidate", candidate)


def _lines(lowered, mnemonic) -> list:
    return [ln for ln in generate(lowered).text.splitlines() if ln.split()[:1] == [mnemonic]]


@pytest.mark.parametrize("tag,h,c,k,stride,pad,rows,group", [
    (MODE, 14, 64, 3, 1, 1, None, None), (MODE, 14, 40, 3, 1, 1, 5, 2),  # ragged last block
    (MODE, 15, 48, 3, 2, 1, 3, 3), (MODE, 7, 96, 3, 1, 1, None, 4),
    (MODE, 12, 16, 5, 1, 2, 4, 1),                      # 25 taps: two passes on 16 rows
    ("npu-tiny -depthwise-mode=1", 8, 6, 3, 1, 1, 3, 1),
    ("npu-edge -depthwise-mode=1 -num-cores=2", 14, 80, 3, 1, 1, 7, 2),
    ("npu-edge -depthwise-mode=1 -dma-engines=1", 14, 64, 3, 1, 1, None, 2),
    ("npu-edge -depthwise-mode=1 -weight-buffers=2", 14, 64, 3, 2, 1, None, None)])
def test_bit_exact(monkeypatch, tag, h, c, k, stride, pad, rows, group):
    _forced(monkeypatch, rows, group)
    g = qconv_graph(1, h, h, c, c, k, stride, pad, groups=c)
    lowered, _ = run_and_compare(g, tag)
    (layer,) = lowered.layers
    assert isinstance(layer, DwconvLayer)
    assert "conv" not in {ln.split()[0] for ln in generate(lowered).text.splitlines()
                          if ln.strip() and not ln.lstrip().startswith((";", "L"))}


def test_a_transfer_per_group_and_two_weight_loads(monkeypatch):
    _forced(monkeypatch, rows=14, group=3)
    lowered = lower(qconv_graph(1, 14, 14, 96, 96, 3, 1, 1, groups=96), MODE)
    # 6 blocks of 16 channels in 2 groups of 3: 2 input loads, 2 stores; the taps in two
    # loads (the first group's on the input engine, the rest beside the epilogue table)
    # and the table one
    assert len(_lines(lowered, "dwconv")) == 6
    assert len(_lines(lowered, "store")) == 2
    assert len(_lines(lowered, "load")) == 2 + 2 + 1
    _forced(monkeypatch, rows=14, group=6)  # one group: every tap in the first load
    lowered = lower(qconv_graph(1, 14, 14, 96, 96, 3, 1, 1, groups=96), MODE)
    assert len(_lines(lowered, "load")) == 1 + 1 + 1


def test_chosen_on_mobilenets_dram_bound_layers_and_faster():
    for h, c, stride in ((14, 384, 1), (7, 960, 1), (14, 576, 2)):
        g = qconv_graph(1, h, h, c, c, 3, stride, 1, groups=c)
        lowered, fast = run_and_compare(g, MODE)
        assert isinstance(lowered.layers[0], DwconvLayer), (h, c)
        _, slow = run_and_compare(g, MODE, dwgroup=False)
        assert fast.cycles < 0.85 * slow.cycles, (h, c, fast.cycles, slow.cycles)


def test_not_without_the_mode():
    g = qconv_graph(1, 14, 14, 64, 64, 3, 1, 1, groups=64)
    assert not any(isinstance(x, DwconvLayer) for x in lower(g, "npu-edge -depthwise-mode=0").layers)


@st.composite
def dw_cases(draw):
    tag = draw(st.sampled_from([MODE, "npu-tiny -depthwise-mode=1",
                                "npu-edge -depthwise-mode=1 -num-cores=2",
                                "npu-edge -depthwise-mode=1 -dma-engines=1"]))
    tiny = tag.startswith("npu-tiny")
    k = draw(st.sampled_from([1, 3, 5]))
    stride = draw(st.sampled_from([1, 2]))
    h = draw(st.integers(max(k, 2), 12 if tiny else 20))
    c = draw(st.integers(2, 24 if tiny else 70))
    pad = draw(st.integers(0, k // 2))
    oh = (h + 2 * pad - k) // stride + 1
    return dict(tag=tag, h=h, c=c, k=k, stride=stride, pad=pad,
                rows=draw(st.integers(1, oh)), group=draw(st.integers(1, 5)),
                seed=draw(st.integers(0, 3)))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=dw_cases())
def test_random_layers_bit_exact_when_forced(case):
    g = qconv_graph(1, case["h"], case["h"], case["c"], case["c"], case["k"], case["stride"],
                    case["pad"], groups=case["c"], seed=case["seed"])
    with pytest.MonkeyPatch.context() as mp:
        def candidate(lw, name, x, y, geom, w, epi):
            # the drawn bands and groups where they fit, else the chooser's
            s = _estimate(geom, epi, lw.hw, case["rows"], case["group"], None) or \
                choose_dwconv(geom, epi, lw.hw)
            return None if s is None else (0, [DwconvLayer(name, x, y, geom, w, epi, s)])
        mp.setattr(conv_lowering, "dwconv_candidate", candidate)
        lowered, _ = run_and_compare(g, case["tag"], seed=case["seed"])
    (layer,) = lowered.layers
    assert isinstance(layer, DwconvLayer)


@pytest.mark.parametrize("h,c,stride,cycles,slots,alternate", [
    (7, 960, 1, 7717, 3, False),    # 8,168 with two slots (load and store in lock step)
    (14, 576, 2, 10817, 3, True),   # 11,186 with two slots and every load on one engine
])
def test_third_slot_and_strided_loads_on_both_engines(h, c, stride, cycles, slots, alternate):
    """MobileNetV2's 7x7x960 and strided 14x14x576 depthwise layers run alone: exact cycles,
    within 9% / 14% of the bytes they move over the port (input, output, taps, table)."""
    g = qconv_graph(1, h, h, c, c, 3, stride, 1, groups=c)
    lowered, r = run_and_compare(g, "npu-edge")
    (layer,) = lowered.layers
    assert isinstance(layer, DwconvLayer)
    assert (layer.schedule.slots, layer.schedule.alternate) == (slots, alternate)
    oh = (h + 2 - 3) // stride + 1
    port = (h * h * c + oh * oh * c + 9 * c + 12 * c) / 16
    assert r.cycles == cycles, r.cycles
    assert r.cycles < (1.09 if stride == 1 else 1.14) * port
    stores = {ln.split()[1] for ln in _lines(lowered, "store")}
    loads = {ln.split()[1] for ln in _lines(lowered, "load")}
    assert len(loads) == 2 and len(stores) == (2 if alternate else 1), (loads, stores)
