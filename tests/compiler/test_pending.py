"""Pending constants (compiler.ir.pending): the zoo's weights drawn by a background thread
while the front half's first passes and calibration run give the same graph, bit for bit, as
drawing them in line; a reader waits for what it reads; a pass that knows nothing of pending
constants runs after all are filled; a filling job's error reaches every reader as itself."""

import threading

import numpy as np
import pytest

from compiler.build import DEFAULT_PIPELINE, load_model
from compiler.ir.graph import Graph
from compiler.ir.pending import PendingConstants
from compiler.passes import PassContext, PassManager
from compiler.passes.base import Pass
from compiler.zoo.params import ParamGen, deferring


@pytest.mark.parametrize("model", ["resnet18", "resnet50"])
def test_deferred_weights_are_the_in_line_ones(model):
    eager = load_model(model, resolution=32)
    late = load_model(model, deferred=True, resolution=32)
    assert late.pending is not None  # drawn in the background
    late.pending.wait_all()
    assert eager.constants.keys() == late.constants.keys()
    for k, a in eager.constants.items():
        b = late.constants[k]
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b), k
        assert not b.flags.writeable  # constants stay read-only


def test_the_front_half_over_deferred_weights_is_the_same():
    pm = PassManager.from_string(DEFAULT_PIPELINE)
    source = load_model("resnet18", deferred=True, resolution=32)
    late = pm.run(source, PassContext(num_calib=2))
    eager = pm.run(load_model("resnet18", resolution=32), PassContext(num_calib=2))
    assert getattr(late, "pending", None) is None and getattr(source, "pending", None) is None
    assert late.meta["calibration"] == eager.meta["calibration"]
    assert late.constants.keys() == eager.constants.keys()
    for k, a in eager.constants.items():
        assert np.array_equal(a, late.constants[k]), k


def _slow_graph(value: float, gate: threading.Event):
    """A graph x + c whose constant c is filled with `value` once `gate` is set."""
    g = Graph("slow")
    from compiler.ir.types import TensorType
    g.add_input("x", TensorType((4,), "float32"))
    c = np.empty(4, np.float32)
    view = c.view()
    pending = PendingConstants()

    def fill():
        gate.wait(5)
        view[...] = value
    pending.add([c], fill)
    name = g.add_constant("c", c)
    from compiler.ir.graph import Node
    g.add_node(Node("add", ["x", name], "y"), TensorType((4,), "float32"))
    g.outputs.append("y")
    g.pending = pending
    pending.start()
    return g, name


def test_a_pass_that_reads_values_runs_after_they_are_filled():
    seen = []

    class Reads(Pass):
        name = "test-reads-values"

        def run(self, graph, ctx):
            seen.append(float(graph.constants[name][0]))
            return graph
    gate = threading.Event()
    g, name = _slow_graph(3.0, gate)
    threading.Timer(0.05, gate.set).start()
    out = PassManager([Reads()]).run(g)
    assert seen == [3.0] and getattr(out, "pending", None) is None


def test_a_filling_jobs_error_reaches_every_reader_as_itself():
    pending = PendingConstants()
    a, b = np.empty(3), np.empty(3)
    boom = ValueError("the generator broke")

    def fail():
        raise boom
    pending.add([a], fail)
    pending.add([b], lambda: b.fill(1.0))
    out = np.empty(3)
    pending.start()
    with pytest.raises(ValueError) as e:
        pending.wait(b)  # queued after the failure: never filled
    assert e.value is boom
    with pytest.raises(ValueError):
        pending.wait_all()
    with pytest.raises(ValueError):
        pending.derive([a], [out], lambda: out.fill(0.0))
    with pytest.raises(ValueError):  # once a job failed, every reader stops with its error
        pending.wait(np.empty(1))
    assert PendingConstants().wait(np.empty(1)) is None  # arrays no job fills: no wait


def test_a_derived_job_runs_once_its_inputs_are_filled():
    pending = PendingConstants()
    gate = threading.Event()
    a = np.empty(3)
    pending.add([a], lambda: (gate.wait(5), a.fill(2.0)))
    twice = np.empty(3)
    pending.start()
    pending.derive([a.reshape(3, 1)], [twice], lambda: np.multiply(a, 2.0, out=twice))
    assert pending.is_pending(twice) and pending.is_pending(a.reshape(1, 3))
    gate.set()
    pending.wait(twice)
    assert twice.tolist() == [4.0, 4.0, 4.0]
    done = np.empty(3)
    pending.derive([a], [done], lambda: done.fill(5.0))  # inputs filled: runs at once
    assert done.tolist() == [5.0, 5.0, 5.0]


def test_a_deferred_generator_is_drawn_from_only_by_its_jobs():
    with deferring() as pending:
        p = ParamGen(0, deferrable=True)
        w = p.conv(4, 3, 3)
        with pytest.raises(RuntimeError, match="deferrable=False"):
            p.rng.standard_normal()
    pending.start()
    pending.wait_all()
    assert np.array_equal(w, ParamGen(0).conv(4, 3, 3))
    assert ParamGen(0, deferrable=True).rng is not None  # outside deferring(): in line
