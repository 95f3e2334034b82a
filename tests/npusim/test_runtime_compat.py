"""Which targets may run a binary built for another: same layout, enough resources."""
import pytest

import compiler.backends  # noqa: F401 - the cpu and gpu Target kinds come with it
from npusim.runtime import ProgramError, check_compatible


@pytest.mark.parametrize("prog, dev", [
    ("npu-edge", "npu-edge"),
    ("npu-edge", "npu-edge -dram-bw=64 -dram-latency=50 -vector-lanes=32 -freq-mhz=2000"),
    ("npu-tiny", "npu-tiny -dma-engines=2 -semaphores=16 -dram-mb=4"),  # more resources
])
def test_compatible(prog, dev):
    check_compatible(prog, dev)


@pytest.mark.parametrize("prog, dev, match", [
    ("npu-edge", "npu-tiny", r"built for npu-edge cannot run on npu-tiny: -array=16x16 vs "
                             r"-array=4x4; -ibuf-kb=128 vs -ibuf-kb=4"),
    ("npu-edge", "npu-edge -dtype=fp16", r"-dtype=int8 vs -dtype=fp16"),
    ("npu-edge", "npu-edge -obuf-kb=32", r"-obuf-kb=64 vs -obuf-kb=32\. Use a target"),
    ("npu-edge", "npu-edge -dma-engines=1", r"-dma-engines=2 needs at least that, device has "
                                            r"-dma-engines=1"),
    ("npu-server", "npu-server -num-cores=2", r"-num-cores=4 needs at least"),
    ("npu-edge", "cpu-host",
     r"built for target kind 'npu' \(npu-edge\) but the device's kind is 'cpu'"),
])
def test_incompatible(prog, dev, match):
    with pytest.raises(ProgramError, match=match):
        check_compatible(prog, dev)
