"""More resources never make the compiler's own program slower (cost-model programs, no
neighbour search: exact timing-only cycles), and more DRAM bandwidth does not buy a near-tie
of cycles with much more DRAM traffic (energy)."""

import pytest

from experiments import codegen_quality


@pytest.mark.parametrize("model, resolution, target", [
    ("small_cnn", None, "npu-edge"),
    ("small_cnn", None, "npu-edge -array=32x32 -dram-bw=32"),
    ("small_cnn", None, "npu-edge -array=8x8"),
    ("mobilenetv2", 32, "npu-edge -array=32x32 -dram-bw=32"),
    ("mobilenetv2", 32, "npu-edge -array=8x8"),
    ("resnet18", 32, "npu-edge -array=32x32 -dram-bw=32"),
    # was +0.74% at 3 engines against 2
    ("mobilenetv2", 64, "npu-edge"),
])
def test_more_dma_engines_never_slower(model, resolution, target):
    engines = (1, 2, 3, 4, 8) if model == "small_cnn" else (1, 2, 3, 4)
    row = codegen_quality.engine_sweep(model, resolution, target, engines)
    rises = [(a, b, x, y) for (a, x), (b, y) in zip(zip(engines, row),
                                                    zip(engines[1:], row[1:])) if y > x]
    assert not rises, f"{model} on {target}: " + "; ".join(
        f"{b} engines {y:,} cycles > {a} engines {x:,}" for a, b, x, y in rises)


def test_resnet50_stem_keeps_its_form_with_more_engines():
    """ResNet-50 at 64 on -array=32x32 -dram-bw=32 took 0.83% more cycles at 4 engines than
    at 2 (then 0.21%: the 7x7/2 stem flipped to the strided fold at 3 engines, 2.5k cycles
    slower simulated). Kept form: 4 engines no slower than 2; 3 -> 4 still +0.08% (the
    residuals' own channel, same tiles: not asserted)."""
    two, four = codegen_quality.engine_sweep("resnet50", 64, "npu-edge -array=32x32 -dram-bw=32",
                                       (2, 4))
    assert four <= two, f"4 engines {four:,} cycles, 2 engines {two:,}"


def test_more_dram_bandwidth_does_not_cost_energy_for_a_near_tie():
    """ResNet-18 on npu-edge -array=8x8: at -dram-bw=32 the tiler took layer1's convs as
    im2col (5.6 MB each against 0.5 MB) for an estimated 0.3%: 30.5 mJ against 22.7 mJ at 8,
    1% fewer cycles. Now 23.4 mJ (the stem's im2col: 10% faster, not a near-tie)."""
    from npusim import flow
    out = {}
    for bw in (8, 32):
        c = flow.compile("resnet18", f"npu-edge -array=8x8 -dram-bw={bw}", num_calib=1,
                         evaluate=None)
        out[bw] = flow.simulate(c, timing_only=True)
    assert out[32].cycles <= out[8].cycles
    assert out[32].energy_pj <= 1.05 * out[8].energy_pj, \
        f"{out[32].energy_pj / 1e9:.2f} mJ at -dram-bw=32, {out[8].energy_pj / 1e9:.2f} at 8"
