"""Calibrate: run the float graph on sample inputs and record each value's range."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..blas import single_threaded, usable_cores
from ..errors import PassError
from ..ir.graph import Graph
from ..ops import exact
from ..reference import run_graph
from .base import Pass, register_pass


def generate_inputs(graph: Graph, count: int, seed: int = 0) -> list:
    """`count` samples of standard-normal float32 inputs (what normalized images look like);
    token-id inputs (integers an embedding lookup reads) uniform over the table's rows."""
    from ..ops.embedding import index_bound
    rng = np.random.default_rng(seed)
    bounds = {v: index_bound(graph, v) for v in graph.inputs
              if graph.type_of(v).dtype.startswith("int")}

    def sample(v):
        t = graph.type_of(v)
        if v in bounds:
            return rng.integers(0, bounds[v] or 1, t.shape).astype(t.dtype)
        return rng.standard_normal(t.shape).astype(np.float32)
    return [{v: sample(v) for v in graph.inputs} for _ in range(count)]


def calibration_samples(graph: Graph, ctx) -> list:
    """ctx.calib_inputs as a list of feeds (a single dict is one sample), or generated."""
    data = ctx.calib_inputs
    if data is None:
        return generate_inputs(graph, ctx.num_calib, ctx.seed)
    samples = [data] if isinstance(data, dict) else list(data)
    if not samples:
        raise PassError("calibration needs at least one sample; calib_inputs is empty")
    out = []
    for i, s in enumerate(samples):
        if "*" in s:  # the model's only input, whatever its name (a folder of .npy files)
            if len(graph.inputs) != 1:
                raise PassError(f"calibration sample {i} has unnamed data, but the model has "
                                f"{len(graph.inputs)} inputs ({', '.join(graph.inputs)}); "
                                "name each in an .npz")
            s = {graph.inputs[0]: s["*"]}
        missing = [v for v in graph.inputs if v not in s]
        if missing:
            raise PassError(f"calibration sample {i} lacks input(s) {', '.join(missing)} (it "
                            f"has {', '.join(map(str, s)) or 'nothing'}): name each array "
                            "after the model input it feeds")
        out += _unstack(graph, s, i)
    return out


def _unstack(graph: Graph, sample: dict, i: int) -> list:
    """One feed, or several where the arrays stack samples on a leading axis (an (S, C, H, W)
    array for a (1, C, H, W) input, or (S, 1, C, H, W)); a (C, H, W) array is one image."""
    parts = {}
    for v in graph.inputs:
        want = tuple(graph.type_of(v).shape)
        dtype = graph.type_of(v).dtype
        a = np.asarray(sample[v], dtype if dtype.startswith("int") else np.float32)
        if a.shape == want:
            parts[v] = [a]
        elif a.shape[1:] == want:
            parts[v] = list(a)
        elif want[:1] == (1,) and a.ndim == len(want) and a.shape[1:] == want[1:]:
            parts[v] = [a[k:k + 1] for k in range(a.shape[0])]
        elif want[:1] == (1,) and a.shape == want[1:]:
            parts[v] = [a[None]]
        else:
            raise PassError(f"calibration sample {i}: input '{v}' is {want}, the data has shape "
                            f"{a.shape}; give arrays of the input's shape, or a stack of them "
                            "on a leading axis")
    counts = {len(p) for p in parts.values()}
    if len(counts) > 1:
        raise PassError(f"calibration sample {i} stacks different numbers of samples per input "
                        f"({', '.join(f'{v}: {len(p)}' for v, p in parts.items())})")
    return [{v: parts[v][k] for v in graph.inputs} for k in range(counts.pop())]


@register_pass("calibrate")
class Calibrate(Pass):
    """Per-value |x| statistics over the calibration samples, in graph.meta['calibration']:
    method=absmax keeps the largest |x| seen; method=percentile keeps, per value, the
    largest over samples of the `percentile`-th percentile of |x| (clips rare outliers)."""

    OPTIONS = {"method": "absmax", "percentile": 99.99}
    # the samples run while the later layers' weights are still being drawn: each node
    # waits for its constants (run_graph; compiler.ir.pending)
    reads_pending = True

    def run(self, graph: Graph, ctx) -> Graph:
        method = self.options["method"]
        if method not in ("absmax", "percentile"):
            raise PassError(f"calibrate method '{method}' is not absmax or percentile")
        samples = calibration_samples(graph, ctx)
        workers = min(len(samples), usable_cores())
        # see compiler.blas; each weight rounded once for the exact products (compiler.ops.exact)
        with single_threaded(), exact.constants_memo(), ThreadPoolExecutor(workers) as pool:
            ranges = list(pool.map(lambda feed: self.sample_ranges(graph, feed), samples))
        stats: dict = {}
        for r in ranges:  # in sample order: the same dict as one sample after another
            for v, x in r.items():
                stats[v] = max(stats.get(v, 0.0), x)
        graph.meta["calibration"] = {"method": repr(self), "samples": len(samples),
                                     "absmax": stats}
        return graph

    def sample_ranges(self, graph: Graph, feed: dict) -> dict:
        """{float value: its statistic} over one sample, each taken as the value appears."""
        absmax, pct = self.options["method"] == "absmax", self.options["percentile"]
        ranges = {}

        def observe(v, x):
            if x.dtype.kind == "f":
                # max|x| as max(max x, -min x): two reductions, no |x| copy
                ranges[v] = float(max(x.max(), -x.min()) if absmax else
                                  np.percentile(np.abs(x), pct))
        run_graph(graph, feed, observe=observe)
        return ranges
