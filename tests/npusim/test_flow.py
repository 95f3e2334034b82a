"""npusim.flow, the library API: compile -> simulate -> verify (-> compare), its Result tables,
and the errors it raises for what it cannot do."""

import json

import numpy as np
import pandas as pd
import pytest

from compiler.errors import ZooError
from isa.errors import NpusimError
from npusim import flow
from npusim.faults import SimulationFault
from npusim.runtime import ProgramError


@pytest.fixture(scope="module")
def mlp():
    return flow.compile("mlp", "npu-tiny", num_calib=2)


def test_run_compiles_simulates_and_verifies():
    r = flow.run("small_cnn", "npu-tiny", num_calib=2)
    assert r.verified is True and r.verification.bit_exact is True
    assert r.verification.reference == "onnxruntime" and r.verification.top1_agree == 1.0
    assert r.cycles > 0 and r.latency_ms == pytest.approx(r.cycles / 100e3)  # 100 MHz
    assert r.energy_pj == r.energy_by_action_pj["total"] > 0


def test_result_tables_are_dataframes(mlp):
    r = flow.simulate(mlp)
    assert isinstance(r.layers, pd.DataFrame) and list(r.layers["name"])[0] == "fc1.matmul"
    assert r.layers["cycles"].sum() == r.cycles  # the layers partition the run
    units = r.units
    assert units.index.name == "unit" and "core0.matrix" in units.index
    assert (units[["busy", "idle"]].sum(axis=1) <= r.cycles).all()
    assert r.trace is None  # kept only when asked for
    traced = flow.simulate(mlp, trace=True)
    assert isinstance(traced.trace, pd.DataFrame) and len(traced.trace) == traced.sim.instructions
    assert traced.cycles == r.cycles


def test_to_json_is_the_run_summary(mlp):
    r = flow.simulate(mlp, seed=1)
    s = r.to_json()
    assert s["verified"] is None and s["reference"] is None  # not verified yet
    v = flow.verify(mlp, r)
    s = json.loads(json.dumps(r.to_json()))
    assert s["verified"] is v.verified is True and s["bit_exact"] is True
    assert s["model"] == "mlp" and s["target"] == "npu-tiny" and s["cycles"] == r.cycles
    assert [row["name"] for row in s["layers"]] == list(r.layers["name"])
    assert "backends" not in s


def test_verify_takes_outputs_and_feeds_too(mlp):
    feeds = flow.random_inputs(mlp, seed=3)
    r = flow.simulate(mlp, feeds)
    assert r.feeds is feeds
    assert flow.verify(mlp, r.outputs, feeds).verified
    wrong = {k: np.zeros_like(v) for k, v in r.outputs.items()}
    bad = flow.verify(mlp, wrong, feeds, r.device_inputs)
    assert bad.verified is False and bad.bit_exact is False


def test_timing_only_gives_the_same_cycles_and_nothing_to_verify(mlp):
    r = flow.simulate(mlp, timing_only=True)
    assert r.outputs == {} and r.cycles == flow.simulate(mlp).cycles
    with pytest.raises(flow.FlowError, match="timing-only: no outputs to verify"):
        flow.verify(mlp, r)


def test_a_saved_artifact_loads_and_runs_on_a_timing_variant(mlp, tmp_path):
    out = mlp.save(tmp_path / "a")
    back = flow.compile(out)
    assert back.source == str(out) and not back.has_model and back.name == f"mlp ({out})"
    r = flow.simulate(back)
    assert r.cycles == flow.simulate(mlp).cycles and r.feeds is None
    slow = flow.simulate(back, target="npu-tiny -dram-bw=1")
    assert slow.cycles > r.cycles
    with pytest.raises(ProgramError, match="cannot run on npu-edge"):
        flow.simulate(back, target="npu-edge")
    with pytest.raises(flow.FlowError, match="no model to verify against"):
        flow.verify(back, r)
    with pytest.raises(flow.FlowError, match="takes no compile options"):
        flow.compile(out, num_calib=2)


def test_cpu_and_gpu_builds(tmp_path):
    gpu = flow.compile("mlp", "gpu-a100", num_calib=2)
    assert gpu.kind == "gpu" and gpu.artifact is None
    with pytest.raises(flow.FlowError, match="simulate\\(\\) runs npu builds"):
        flow.simulate(gpu)
    out = gpu.save(tmp_path / "cu")
    assert (out / "model.cu").exists()


def test_compare_records_the_backends(mlp, monkeypatch):
    from compiler.backends.gpu import toolchain
    monkeypatch.setattr(toolchain, "device_count", lambda: 0)
    r = flow.simulate(mlp)
    entries = flow.compare(mlp, r, {"gpu": "gpu-h100"})
    assert r.backends is entries and entries["gpu"]["measured"] is False
    assert r.to_json()["backends"]["gpu"]["npu_speedup"] == pytest.approx(
        entries["gpu"]["latency_ms"] / r.latency_ms)


@pytest.mark.parametrize("model,kwargs,error,message", [
    ("resnet19", {}, ZooError, "unknown model 'resnet19'; did you mean 'resnet18'?"),
    ("nope.onnx", {}, flow.FlowError, "model file 'nope.onnx' does not exist"),
    ("mlp", {"resolution": 8}, ZooError, "model 'mlp' has no parameter 'resolution'"),
])
def test_bad_models_are_errors_of_the_root(model, kwargs, error, message):
    with pytest.raises(error, match=message) as e:
        flow.compile(model, "npu-tiny", **kwargs)
    assert isinstance(e.value, NpusimError)


def test_resolution_is_for_zoo_models_only():
    from compiler import zoo
    graph = zoo.get("mlp")
    with pytest.raises(flow.FlowError, match="resolution 32 applies to zoo image models "
                       r"\(mobilenetv2, resnet18, resnet50, small_cnn, vit-tiny\), not to a "
                       "Graph"):
        flow.compile(graph, "npu-tiny", resolution=32)


def test_a_fault_is_a_simulation_fault_under_the_root():
    class Artifact:  # one word that is no instruction: the machine faults on fetch
        program, target, inputs, outputs = [[(1 << 128) - 1]], "npu-tiny", [], []

        def dram_image(self, dram):
            pass
    with pytest.raises(SimulationFault, match="dispatch") as e:
        flow.execute(Artifact(), {})
    assert isinstance(e.value, NpusimError)
