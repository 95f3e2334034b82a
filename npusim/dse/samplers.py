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
        return _tpe_class()(distributions(space), seed=seed, multivariate=True,
                            constant_liar=True,
                            # the first batch is random: a startup that does not hang on the
                            # budget (--trials may grow)
                            n_startup_trials=max(2, space.batch),
                            constraints_func=constraints)
    return _nsga2_class()(distributions(space), study_seed=space.seed, seed=seed,
                          population_size=max(2, space.batch), constraints_func=constraints)


def _tpe_class():
    import numpy as np
    import optuna

    class TPE(optuna.samplers.TPESampler):
        """Optuna's multivariate TPE that does not spend the budget on repeats: a proposal
        that repeats a point already asked is drawn again from the same model (TPE_TRIES
        times), then moved one value at a time until it is new; the random start draws new
        points only. Every parameter is sampled here, over the space's distributions."""

        def __init__(self, dists: dict, *, seed: int, **kwargs):
            super().__init__(seed=seed, **kwargs)
            self._dists = dists
            self._draw = np.random.default_rng([seed, 0x747065])  # start, moves

        def infer_relative_search_space(self, study, trial) -> dict:
            return {n: d for n, d in self._dists.items() if not d.single()}

        def sample_relative(self, study, trial, search_space) -> dict:
            if not search_space:
                return {}
            params = super().sample_relative(study, trial, search_space)
            seen = _seen(study, trial, search_space)
            if not params:  # the random start
                params = {n: _uniform(d, self._draw) for n, d in search_space.items()}
            for _ in range(TPE_TRIES):
                if _key(params) not in seen:
                    return params
                params = super().sample_relative(study, trial, search_space) or params
            return _new(params, seen, search_space, lambda d, v: _uniform(d, self._draw),
                        self._draw)
    return TPE


TPE_TRIES = 16  # fresh draws of a TPE proposal that repeats an earlier point
NEW_TRIES = 64  # moves of a point that repeats an earlier one before it is kept anyway
NSGA2_STEP = 0.8  # share of mutations that move a value to a neighbour in its list


def _nsga2_class():
    import numpy as np
    import optuna

    class NSGA2(optuna.samplers.NSGAIISampler):
        """Optuna's NSGA-II (its uniform crossover and binary tournaments; population = the
        space's batch) made to spend a small budget well:
        - the parents are the elites of everything finished so far, not of the last
          generation and its parents alone, chosen as NSGA-III chooses its survivors
          (Optuna's NSGAIIIElitePopulationSelectionStrategy: rank, then niches around
          reference points on the normalized objectives, instead of NSGA-II's crowding
          distance, which keeps each objective's extremes first and, in three objectives,
          spends a population of 8 on them; the niches spread the elites over the front);
        - a mutated value (each with probability 1/params) moves to a neighbour in its list
          (NSGA2_STEP of the time) rather than anywhere: a front's points are neighbours;
        - the first generation is a Latin hypercube, seeded by the study seed: every value
          of every attribute appears as evenly as the population allows (independent random
          draws leave some unseen, and NSGA-II never finds what its parents lack);
        - a child that repeats a point already asked (crossover of similar parents does,
          often, on a discrete space) is mutated again until it is new: a repeat costs a
          trial of the budget and teaches nothing;
        - every parameter is sampled here, over the space's own distributions (Optuna infers
          them from finished trials, so it has none yet for the first points).
        The constraints (the space's [constraints]) go to both strategies: a feasible point
        dominates an infeasible one, and of two infeasible ones the smaller violation wins."""

        def __init__(self, dists: dict, *, study_seed: int, seed: int,
                     mutation_prob: float | None = None, step_prob: float = NSGA2_STEP,
                     **kwargs):
            # crossover is Optuna's; mutation is done here (Optuna's redraws uniformly)
            from optuna.samplers._nsgaiii._elite_population_selection_strategy import \
                NSGAIIIElitePopulationSelectionStrategy
            super().__init__(seed=seed, mutation_prob=0.0, **kwargs)
            # NSGA-III's survival for the elites (see the class docstring); its tie-breaks
            # draw from this sampler's seeded state, so a point still depends only on its seed
            self._elite_population_selection_strategy = NSGAIIIElitePopulationSelectionStrategy(
                population_size=self._population_size, constraints_func=self._constraints_func,
                rng=self._rng)
            self._dists = dists
            self._study_seed = study_seed
            self._mutation_prob = mutation_prob
            self._step_prob = step_prob
            self._draw = np.random.default_rng([seed, 0x6E736761])  # mutations, redraws

        def infer_relative_search_space(self, study, trial) -> dict:
            return {n: d for n, d in self._dists.items() if not d.single()}

        def select_parent(self, study, generation: int) -> list:
            """The elites (population_size of them) of everything finished so far: a
            population of 8 is too few to forget the generations before the last."""
            from optuna.trial import TrialState
            done = study._get_trials(deepcopy=False, states=[TrialState.COMPLETE],
                                     use_cache=True)
            return self._elite_population_selection_strategy(study, done)

        def sample_relative(self, study, trial, search_space) -> dict:
            if not search_space:
                return {}
            generation = self.get_trial_generation(study, trial)
            parents = self.get_parent_population(study, generation)
            names = sorted(search_space)
            if parents:
                params = self._child_generation_strategy(study, search_space, parents)
                rate = self._mutation_prob
                rate = 1.0 / len(names) if rate is None else rate
                for name in names:
                    if self._draw.random() < rate:
                        params[name] = self._mutate(search_space[name], params[name])
            else:
                params = self._latin(trial.number, search_space)
            return _new(params, _seen(study, trial, search_space), search_space,
                        self._mutate, self._draw)

        def _mutate(self, d, value):
            """A new value for a mutated parameter: a neighbour in the list's order (the
            values of a space's list are ordered, and a front is made of neighbours) or,
            otherwise, any value uniformly (log-uniformly on a log scale)."""
            from optuna.distributions import CategoricalDistribution
            if isinstance(d, CategoricalDistribution):
                m = len(d.choices)
                if m > 2 and self._draw.random() < self._step_prob and value in d.choices:
                    i, step = d.choices.index(value), (1 if self._draw.random() < 0.5 else -1)
                    return d.choices[i + step if 0 <= i + step < m else i - step]
            return _uniform(d, self._draw)

        def _latin(self, number: int, search_space: dict) -> dict:
            """Point `number` of the first generation: per attribute, each block of a
            population's points takes the values in a shuffled balanced order."""
            from optuna.distributions import CategoricalDistribution
            size = self._population_size
            block, slot = divmod(number, size)
            out = {}
            for i, (name, d) in enumerate(sorted(search_space.items())):
                rng = np.random.default_rng([self._study_seed, i, block, 0x6C6873])
                if isinstance(d, CategoricalDistribution):
                    m = len(d.choices)
                    levels = np.concatenate([rng.permutation(m) for _ in range(-(-size // m))])
                    out[name] = d.choices[int(rng.permutation(levels[:size])[slot])]
                else:  # a stratum of [0, 1) per point, in shuffled order
                    out[name] = _at(d, (rng.permutation(size)[slot] + rng.random()) / size)
            return out

    return NSGA2


def _key(params: dict) -> tuple:
    return tuple(sorted(params.items()))


def _seen(study, trial, search_space: dict) -> set:
    """The points asked so far (finished or in flight), but `trial`."""
    return {_key({n: t.params[n] for n in search_space}) for t in study.get_trials(deepcopy=False)
            if t.number != trial.number and set(t.params) >= set(search_space)}


def _new(params: dict, seen: set, search_space: dict, mutate, rng) -> dict:
    """`params`, or when they repeat a point already asked, moved one random parameter at a
    time (by `mutate(distribution, value)`) until they do not (NEW_TRIES moves at most: a
    space nearly all asked may keep a repeat, stored from the first one's record)."""
    names = sorted(search_space)
    for _ in range(NEW_TRIES):
        if _key(params) not in seen:
            break
        name = names[rng.integers(len(names))]
        params[name] = mutate(search_space[name], params[name])
    return params


def _uniform(d, rng):
    """One value of a distribution, uniformly (log-uniformly on a log scale)."""
    from optuna.distributions import CategoricalDistribution
    if isinstance(d, CategoricalDistribution):
        return d.choices[rng.integers(len(d.choices))]
    return _at(d, rng.random())


def _at(d, u: float):
    """The value at quantile u in [0, 1) of an int or float distribution (log-uniform on a log
    scale), on its step."""
    lo, hi = float(d.low), float(d.high)
    x = math.exp(math.log(lo) + u * (math.log(hi) - math.log(lo))) if d.log else lo + u * (hi - lo)
    step = getattr(d, "step", None) or (1 if isinstance(d.low, int) else None)
    if step is not None:
        x = lo + round((x - lo) / step) * step
    x = min(max(x, lo), hi)
    return int(round(x)) if isinstance(d.low, int) and not isinstance(d.low, bool) else x


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
