"""Convs split over cores by output rows or output-channel blocks, whichever moves fewer DRAM
bytes, and the speed-up keeps rising to 8 cores (timing-only cycles)."""

from compiler.lower.conv import split_rows
from compiler.lower.geometry import ConvGeom
from npusim import flow


def test_early_layers_split_by_rows_late_layers_by_channel_blocks():
    early = ConvGeom(1, 56, 56, 256, 64, 1, 1)          # big input, 16 KB of weights
    late = ConvGeom(1, 7, 7, 512, 512, 3, 3, 1, 1, (1, 1, 1, 1))  # 2.4 MB of weights
    assert split_rows(early, 8, 16) and not split_rows(late, 8, 16)
    assert not split_rows(early, 1, 16)
    assert split_rows(ConvGeom(1, 28, 28, 64, 16, 3, 3), 4, 16)  # one block, four cores
    assert not split_rows(ConvGeom(1, 2, 2, 64, 256, 1, 1), 4, 16)  # fewer rows than cores


def test_resnet18_at_112_is_faster_on_8_cores_than_on_4():
    cycles = {n: flow.simulate(flow.compile("resnet18", f"npu-edge -num-cores={n}",
                                            resolution=112, num_calib=1),
                               timing_only=True).cycles for n in (4, 8)}
    assert cycles[8] < cycles[4]
