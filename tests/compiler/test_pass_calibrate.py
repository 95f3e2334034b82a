"""calibrate: per-value ranges over given or generated samples."""

import numpy as np
import pytest

from compiler.errors import PassError
from compiler.frontend import GraphBuilder
from compiler.passes import PassContext, PassManager
from compiler.passes.calibrate import generate_inputs


def _graph():
    b = GraphBuilder("c")
    x = b.input("x", (1, 4))
    return b.build(b.relu(b.multiply(x, b.const(np.full((1, 4), 2.0, np.float32))),
                          name="y"))


def test_absmax_over_given_samples():
    g = _graph()
    samples = [{"x": np.array([[1, -3, 0.5, 2]], np.float32)},
               {"x": np.array([[-1, 1, 2.5, 0]], np.float32)}]
    out = PassManager.from_string("calibrate").run(g, PassContext(calib_inputs=samples))
    stats = out.meta["calibration"]
    assert stats["samples"] == 2
    assert stats["absmax"]["x"] == 3.0
    assert stats["absmax"]["y"] == 5.0   # relu(2 * 2.5)
    assert stats["absmax"]["multiply"] == 6.0


def test_percentile_clips_outliers_and_generation_is_seeded():
    g = _graph()
    x = np.zeros((1, 4), np.float32)
    x[0, 0] = 100.0
    pct = PassManager.from_string("calibrate(method=percentile, percentile=50)").run(
        g, PassContext(calib_inputs={"x": x}))
    assert pct.meta["calibration"]["absmax"]["x"] == 0.0
    a, b = generate_inputs(g, 2, seed=3), generate_inputs(g, 2, seed=3)
    assert np.array_equal(a[1]["x"], b[1]["x"]) and not np.array_equal(a[0]["x"], a[1]["x"])


def test_bad_calibration_inputs():
    g = _graph()
    with pytest.raises(PassError, match="sample 0 lacks input"):
        PassManager.from_string("calibrate").run(g, PassContext(calib_inputs=[{"z": 1}]))
    with pytest.raises(PassError, match="method 'mse' is not absmax or percentile"):
        PassManager.from_string("calibrate(method=mse)").run(g)


def test_threaded_calibration_sees_what_one_sample_after_another_sees(monkeypatch):
    """Samples run on one thread per core: the ranges (hence the quantized constants) are
    those of running every sample in turn and keeping every value."""
    from compiler import zoo
    from compiler.reference import run_graph
    g = PassManager.from_string("simplify, fold-bn, convert-layout").run(
        zoo.get("resnet18", resolution=32), PassContext())
    samples = generate_inputs(g, 5, seed=1)
    monkeypatch.setattr("compiler.passes.calibrate.usable_cores", lambda: 3)
    got = PassManager.from_string("calibrate").run(g, PassContext(calib_inputs=samples))
    want: dict = {}
    for feed in samples:
        for v, x in run_graph(g, feed, keep_all=True).items():
            want[v] = max(want.get(v, 0.0), float(np.abs(x).max()))
    assert list(got.meta["calibration"]["absmax"].items()) == list(want.items())
