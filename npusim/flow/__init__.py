"""npusim.flow: the library API every tool and script uses (a public contract): compile a model
for a Target, simulate it, verify it against the references, compare it with cpu/gpu builds.

    from npusim import flow
    compiled = flow.compile("resnet18", "npu-edge", resolution=64)
    result = flow.simulate(compiled)            # seeded random inputs
    flow.verify(compiled, result)               # bit-exact + float reference
    result.cycles, result.latency_ms, result.layers, result.to_json()

or all three at once: `flow.run("resnet18", "npu-edge")`. docs/flow.md has the whole API."""

from npusim.flow.baselines import compare
from npusim.flow.build import DEFAULT_TARGET, compile, zoo_models
from npusim.flow.checks import FP16_SNR_DB, Verification, verify
from npusim.flow.compiled import Compiled
from npusim.flow.errors import FlowError
from npusim.flow.graphs import GraphBuilder
from npusim.flow.inputs import device_inputs, random_device_inputs, random_inputs
from npusim.flow.pipeline import run
from npusim.flow.result import Result, layer_table
from npusim.flow.saved import SavedRunError, load as load_run, save as save_run
from npusim.flow.sim import execute, simulate

__all__ = ["compile", "simulate", "verify", "run", "compare", "Compiled", "Result",
           "Verification", "FlowError", "execute", "random_inputs", "device_inputs",
           "random_device_inputs", "layer_table", "DEFAULT_TARGET", "FP16_SNR_DB", "save_run",
           "load_run", "SavedRunError", "zoo_models", "GraphBuilder"]
