"""simulate(): run a Compiled npu model on the cycle-level model; execute() is the step below it
(an artifact and its device tensors in, the SimResult and the output tensors out)."""

from __future__ import annotations

from typing import Any

import numpy as np

from npusim.flow.errors import FlowError
from npusim.flow.inputs import device_inputs, random_device_inputs, random_inputs
from npusim.flow.result import Result


def simulate(compiled, inputs: dict | None = None, timing_only: bool = False,
             trace: bool = False, *, target: Any = None, seed: int = 0,
             races: str | None = None) -> Result:
    """Simulate `compiled` (an npu build from compile()) and collect its Result.

    inputs: float feeds {model input: array}, quantized on the host as a deployment would;
    for an artifact loaded without its model, the device tensors {artifact input: array}.
    None: seeded random ones (`seed`). timing_only skips all data work (same cycles, no
    outputs). trace keeps the per-instruction trace (result.trace, save_chrome_trace).
    target: run on another Target than the compiled one; only timing attributes (bandwidths,
    latencies, clock, energy) may differ. races: the race check, "error" | "warn" | "off"
    (None: error in functional mode, off in timing-only; docs/races.md). Raises a
    SimulationFault when the program faults (a RaceError for an unordered access)."""
    art = compiled.artifact
    if art is None:
        raise FlowError(f"{compiled.name} was compiled for the {compiled.kind} target "
                        f"{compiled.target.tag or compiled.target}; simulate() runs npu "
                        "builds; run a cpu/gpu build with compiled.built.evaluate(feeds)")
    from isa.target import Target
    if target is None:
        target = compiled.target
    else:
        from npusim.runtime import check_compatible
        target = Target.create(target)
        what = f"artifact {compiled.source}" if compiled.source else compiled.name
        check_compatible(art.target, target, what=what)
    feeds = None
    if compiled.has_model:
        feeds = random_inputs(compiled, seed) if inputs is None else inputs
        dev_in = device_inputs(compiled, feeds)
    else:
        dev_in = random_device_inputs(art, seed) if inputs is None else inputs
    sim, outputs = execute(art, dev_in, target, timing_only=timing_only, races=races)
    return Result.collect(compiled, sim, feeds=feeds, device_inputs=dev_in, outputs=outputs,
                          keep_trace=trace)


def execute(artifact, inputs: dict | None, target: Any = None,
            timing_only: bool = False, races: str | None = None, **sim_options: Any) -> tuple:
    """Simulate an artifact (anything with program, target, inputs, outputs, dram_image) on
    device tensors {artifact input: array}; -> (npusim SimResult, {output: array}, or {}
    when timing_only). sim_options: npusim.simulate.simulate's max_cycles and trace."""
    from isa.target import Target
    from npusim.memory import Dram
    from npusim.simulate import simulate as run_program
    target = Target.create(target or artifact.target)
    dram = Dram(target.derived.dram_bytes)
    if not timing_only:
        artifact.dram_image(dram)
        for e in artifact.inputs:
            dram.write(e.dram, np.asarray(inputs[e.name]).astype(e.dtype).reshape(e.shape))
    result = run_program(artifact.program, target, dram=dram, timing_only=timing_only,
                         races=races, **sim_options)
    outputs = {} if timing_only else {e.name: dram.read(e.dram, e.shape, e.dtype)
                                      for e in artifact.outputs}
    return result, outputs
