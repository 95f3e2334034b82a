"""Split over cores: a layer's first constant loads run before the gbarrier ahead of it, in the
tail of the layer before (compiler/backends/npu/hoist.py); the gbarrier is left out where no
core touches DRAM another core touched since the last one (crosscore.py); a conv may run on
fewer cores where the cost model says that is clearly faster; more cores are never slower."""

import pytest

import compiler.backends.npu.codegen as codegen
from compiler.backends.npu.crosscore import Footprint, barrier_needed
from compiler.backends.npu.hoist import constant_load, split_head
from compiler.backends.npu.ops import Op
from compiler.lower.conv_lowering import core_counts
from compiler.lower.cost import Hw
from compiler.lower.geometry import ConvGeom
from isa.target import Target
from npusim import flow

SMALL = ("mobilenetv2", "npu-server", 32)  # 131,320 cycles without hoisting or left-out barriers


def compiled(model=SMALL[0], target=SMALL[1], resolution=SMALL[2]):
    return flow.compile(model, target, resolution=resolution, num_calib=1, evaluate=None)


def load(op_id, unit, reads, writes=(("wbuf", 0, 64),), deps=()):
    op = Op(unit, None, 10, reads=reads, writes=writes, nbytes=64)
    op.id, op.deps = op_id, list(deps)
    return op


def test_only_constant_loads_ahead_of_the_first_compute_op_are_hoisted():
    const = 0x1000
    before = [load(0, "dma0", (("dram", 0, 64),), (("ibuf", 0, 64),)),
              load(1, "dma1", (("dram", const, const + 64),))]
    weights = load(2, "dma1", (("dram", const + 64, const + 128),), deps=[1])
    inputs = load(3, "dma0", (("dram", 64, 128),), (("ibuf", 64, 128),))
    chained = load(4, "dma1", (("dram", const, const + 64),), deps=[3])  # after a non-hoisted
    conv = Op("matrix", None, 100)
    conv.id, conv.deps = 5, [2, 3]
    late = load(6, "dma1", (("dram", const + 128, const + 192),))      # behind the conv
    store = Op("dma2", None, 10, reads=(("obuf", 0, 64),), writes=(("dram", 0, 64),),
               nbytes=64)
    assert constant_load(weights, const) and not constant_load(inputs, const)
    assert not constant_load(store, const)
    hoisted, rest = split_head([weights, inputs, chained, conv, late], before, const)
    assert hoisted == [weights]
    assert [op.id for op in rest] == [3, 4, 5, 6]
    assert weights.deps == [0, 1]  # after the layer before's last load on every DMA unit


def test_hoisting_and_left_out_barriers_shorten_a_multicore_run_bit_exact(monkeypatch):
    c = compiled()
    result = flow.simulate(c, seed=0)  # functional: the race check is on
    check = flow.verify(c, result)
    assert check.verified and check.bit_exact and not result.sim.races
    monkeypatch.setattr(codegen, "barrier_needed", lambda since, new: True)
    hoisted = flow.simulate(compiled(), timing_only=True).cycles
    monkeypatch.setattr(codegen, "split_head", lambda ops, before, const: ([], ops))
    plain = flow.simulate(compiled(), timing_only=True).cycles
    assert result.cycles < hoisted < plain
    assert (result.cycles, hoisted, plain) == (120_821, 121_124, 131_298)


def test_a_barrier_is_left_out_only_between_disjoint_channel_blocks():
    const = 1 << 20

    def span(op_id, lo, rows, stride, width, write):
        ins = type("Ins", (), {"fields": dict(rows=rows, stride=stride)})()
        rng = (("dram", lo, lo + (rows - 1) * stride + width),)
        op = Op("dma2" if write else "dma0", ins, 10, reads=() if write else rng,
                writes=rng if write else (), nbytes=rows * width)
        op.id = op_id
        return op

    def prints(*per_core):
        out = []
        for ops in per_core:
            f = Footprint(const)
            f.add(ops)
            out.append(f)
        return out

    # a 7x7x128 tensor (stride 128 B): core 0 wrote channels 0-63, core 1 channels 64-127
    since = prints([span(0, 0, 49, 128, 64, True)], [span(1, 64, 49, 128, 64, True)])
    assert not barrier_needed(since, prints([span(2, 0, 49, 128, 64, False)],
                                            [span(3, 64, 49, 128, 32, False)]))
    assert barrier_needed(since, prints([span(2, 32, 49, 128, 64, False)], []))  # 32-95
    assert barrier_needed(since, prints([], [span(3, 0, 1, 128, 6272, False)]))  # all of it
    assert not barrier_needed(since, prints([], [span(3, 6272, 1, 128, 640, True)]))  # after
    assert not barrier_needed(since, prints([span(2, const, 1, 128, 64, False)], []))


def test_a_late_conv_may_take_fewer_cores_and_the_generator_gives_the_rest_none():
    hw = Hw.from_target(Target.create("npu-server"))
    assert core_counts(hw, ConvGeom(1, 7, 7, 960, 160, 1, 1)) == [4, 2, 1]
    assert core_counts(hw, ConvGeom(1, 1, 1, 64, 32, 1, 1)) == [4, 1]  # one block, one row
    assert core_counts(Hw.from_target(Target.create("npu-edge")),
                       ConvGeom(1, 7, 7, 960, 160, 1, 1)) == [1]
    c = flow.compile("mobilenetv2", "npu-server", num_calib=1, evaluate=None)
    fewer = [lay for lay in c.built.lowered.layers if getattr(lay, "cores", None)]
    assert fewer and all(1 <= lay.cores < 4 for lay in fewer)
    for lay in fewer:
        assert all(not codegen.work(lay, c.built.lowered.hw, core, 4)
                   for core in range(lay.cores, 4))
        assert all(codegen.work(lay, c.built.lowered.hw, core, 4)
                   for core in range(lay.cores))


@pytest.mark.parametrize("model", ["mobilenetv2", "resnet18"])
def test_more_cores_are_never_slower(model):
    cycles = [flow.simulate(compiled(model, f"npu-server -num-cores={n}"),
                            timing_only=True).cycles for n in (1, 2, 4)]
    assert cycles[0] > cycles[1] > cycles[2], cycles
