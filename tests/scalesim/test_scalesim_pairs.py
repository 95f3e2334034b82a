"""Every config x topology pair of the SCALE-Sim sample (tests/scalesim/sample) runs: each file read whole,
each layer shrunk (a few output rows, at most 64 channels and filters) so the lot stays fast,
compiled and simulated; a config our npu cannot be is one line naming its key."""

from dataclasses import replace

import pytest

from npusim.scalesim import ScaleSimError, Topology, read_config, read_topology, run
from npusim.scalesim.target import config_target

from scalesim_sample import SHARED

CONFIGS = sorted((SHARED / "configs").glob("*.cfg"))
TOPOLOGIES = ([(p, "conv") for p in sorted((SHARED / "topologies" / "conv_nets").glob("*.csv"))]
              + [(p, "gemm") for p in sorted((SHARED / "topologies" / "GEMM_mnk").glob("*.csv"))])


def shrunk(topology: Topology) -> Topology:
    """The same layers with 1-2 output rows and columns (keeping SCALE-Sim's ceil remainder),
    at most 64 channels and filters; GEMMs at most 64 x 64 x 256."""
    def small(x):
        if x.kind == "gemm":
            return replace(x, ifmap_h=min(x.ifmap_h, 64), ifmap_w=min(x.ifmap_w, 256),
                           filter_w=min(x.filter_w, 256), filters=min(x.filters, 64))
        def side(size, f, s):
            return min(size, f + s + (size - f) % s)
        return replace(x, ifmap_h=side(x.ifmap_h, x.filter_h, x.stride_h),
                       ifmap_w=side(x.ifmap_w, x.filter_w, x.stride_w),
                       channels=min(x.channels, 64), filters=min(x.filters, 64))
    return replace(topology, layers=tuple(small(x) for x in topology.layers))


def runnable(cfg):
    try:
        config_target(read_config(cfg))
    except ScaleSimError as e:
        return str(e)
    return None


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda p: p.stem)
def test_every_topology_runs_on_every_config(cfg):
    config = read_config(cfg)
    refused = runnable(cfg)
    for path, fmt in TOPOLOGIES:
        topo = read_topology(path, fmt)
        assert len(topo.layers) >= 1
        if refused:
            with pytest.raises(ScaleSimError) as e:
                run(config, shrunk(topo))
            assert str(e.value) == refused and "\n" not in refused
            continue
        result = run(config, shrunk(topo))
        assert len(result.layers) == len(topo.layers)
        for r in result.layers:
            c = r.rows["compute"]
            assert 0 < c["Total Cycles"] <= c["Total Cycles (incl. prefetch)"], (path, r.index)
            assert 0 < c["Overall Util %"] <= 100 and 0 < c["Mapping Efficiency %"] <= 100


def test_no_shared_config_is_refused():
    # google.cfg's 256x256 TPU with 6 MiB SRAMs runs since ISA 1.1 (split fields)
    assert "google" in {p.stem for p in CONFIGS}
    assert {p.stem: runnable(p) for p in CONFIGS if runnable(p)} == {}
