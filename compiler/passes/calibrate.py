"""Calibrate: run the float graph on sample inputs and record each value's range."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..blas import single_threaded, usable_cores
from ..errors import PassError
from ..ir.graph import Graph
from ..reference import run_graph
from .base import Pass, register_pass


def generate_inputs(graph: Graph, count: int, seed: int = 0) -> list:
    """`count` samples of standard-normal float32 inputs (what normalized images look like)."""
    rng = np.random.default_rng(seed)
    return [{v: rng.standard_normal(graph.type_of(v).shape).astype(np.float32)
             for v in graph.inputs} for _ in range(count)]


def calibration_samples(graph: Graph, ctx) -> list:
    """ctx.calib_inputs as a list of feeds (a single dict is one sample), or generated."""
    data = ctx.calib_inputs
    if data is None:
        return generate_inputs(graph, ctx.num_calib, ctx.seed)
    samples = [data] if isinstance(data, dict) else list(data)
    if not samples:
        raise PassError("calibration needs at least one sample; calib_inputs is empty")
    for i, s in enumerate(samples):
        missing = [v for v in graph.inputs if v not in s]
        if missing:
            raise PassError(f"calibration sample {i} lacks input(s) {', '.join(missing)}")
    return samples


@register_pass("calibrate")
class Calibrate(Pass):
    """Per-value |x| statistics over the calibration samples, in graph.meta['calibration']:
    method=absmax keeps the largest |x| seen; method=percentile keeps, per value, the
    largest over samples of the `percentile`-th percentile of |x| (clips rare outliers)."""

    OPTIONS = {"method": "absmax", "percentile": 99.99}

    def run(self, graph: Graph, ctx) -> Graph:
        method = self.options["method"]
        if method not in ("absmax", "percentile"):
            raise PassError(f"calibrate method '{method}' is not absmax or percentile")
        samples = calibration_samples(graph, ctx)
        workers = min(len(samples), usable_cores())
        with single_threaded(), ThreadPoolExecutor(workers) as pool:  # see compiler.blas
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
