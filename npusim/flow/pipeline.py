"""run(): compile, simulate and verify in one call."""

from __future__ import annotations

from typing import Any

from npusim.flow.build import compile
from npusim.flow.checks import verify
from npusim.flow.result import Result
from npusim.flow.sim import simulate


def run(model: Any, target: Any = None, inputs: dict | None = None, *,
        timing_only: bool = False, trace: bool = False, seed: int = 0, races: str | None = None,
        resolution: int | None = None, **options: Any) -> Result:
    """compile(model, target, resolution=..., **options), simulate it on `inputs` (seeded
    random ones by default) and, unless timing_only or the model is not at hand (a loaded
    artifact), verify it; -> the Result, its verdict in result.verification."""
    compiled = compile(model, target, resolution=resolution, **options)
    result = simulate(compiled, inputs, timing_only=timing_only, trace=trace, seed=seed,
                      races=races)
    if not timing_only and compiled.has_model:
        verify(compiled, result)
    return result
