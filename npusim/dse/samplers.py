"""Optuna samplers for a space (grid, random, tpe, nsga2) and the space's Optuna distributions.

A fresh sampler is made for every point, seeded from the study seed and the point's number:
what a point gets then depends only on that seed and on the storage (never on what an earlier
process drew), so a resumed run draws exactly what an uninterrupted one would."""

from __future__ import annotations

import math


def distributions(space) -> dict:
    """{attribute name: Optuna distribution} for the space's params."""
    from optuna.distributions import (CategoricalDistribution, FloatDistribution,
                                      IntDistribution)
    out = {}
    for p in space.params:
        if space.sampler == "grid":  # the grid's own values, whatever the param's form
            out[p.name] = CategoricalDistribution(p.grid_values())
        elif p.choices is not None:
            out[p.name] = CategoricalDistribution(list(p.choices))
        elif p.is_int:
            # Optuna's int log scale takes no step: sample log-uniformly, then Space.snap puts
            # the value on the step grid
            step = 1 if p.log else (p.step or 1)
            high = p.high if p.log else p.low + (p.high - p.low) // step * step
            out[p.name] = IntDistribution(p.low, high, log=p.log, step=step)
        else:
            step = None if p.log else p.step
            high = p.high if step is None else p.low + math.floor((p.high - p.low) / step) * step
            out[p.name] = FloatDistribution(float(p.low), float(high), log=p.log, step=step)
    return out


def point_seed(seed: int, number: int) -> int:
    return (seed * 1_000_003 + number * 7919 + 1) % (2 ** 32)


def constraints_of(trial) -> list:
    """Optuna's constraint values (<= 0 satisfied) as the driver stored them."""
    return list(trial.user_attrs.get("npusim", {}).get("constraints", [])) or [0.0]


def make_sampler(space, number: int, trials: int):
    """The sampler that picks point `number` of a study of `trials` points."""
    import optuna
    seed = point_seed(space.seed, number)
    constraints = constraints_of if space.constraints else None
    if space.sampler == "grid":
        # trial n is point n of the grid as shuffled by the seed: the study seed, the same
        # shuffle for every point
        return _Grid({p.name: p.grid_values() for p in space.params}, seed=space.seed)
    if space.sampler == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    if space.sampler == "tpe":
        return optuna.samplers.TPESampler(seed=seed, multivariate=True, constant_liar=True,
                                          # the first batch is random: a startup that does
                                          # not hang on the budget (--trials may grow)
                                          n_startup_trials=max(2, space.batch),
                                          constraints_func=constraints)
    return optuna.samplers.NSGAIISampler(seed=seed, population_size=max(2, space.batch),
                                         constraints_func=constraints)


def _grid_class():
    import optuna

    class Grid(optuna.samplers.GridSampler):
        """Optuna's GridSampler (trial n is grid point n), without its study.stop() after the
        last point: the driver bounds the grid itself, outside Study.optimize."""

        def after_trial(self, study, trial, state, values) -> None:
            return None
    return Grid


def _Grid(search_space: dict, seed: int):  # noqa: N802 - builds the class on first use
    return _grid_class()(search_space, seed=seed)
