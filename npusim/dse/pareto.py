"""Pareto fronts of a study's table and their hypervolume (exact, for the benchmark's search
quality figure)."""

from __future__ import annotations

import numpy as np


def _losses(df, objectives, directions) -> np.ndarray:
    """The objectives as losses (a maximized one negated)."""
    cols = []
    for o in objectives:
        v = df[o].to_numpy(dtype=float)
        cols.append(-v if directions.get(o, "minimize") == "maximize" else v)
    return np.column_stack(cols) if cols else np.zeros((len(df), 0))


def non_dominated(points: np.ndarray) -> np.ndarray:
    """Mask of the rows no other row dominates (<= in every column, < in one); duplicates of
    a front point all stay."""
    n = len(points)
    keep = np.ones(n, bool)
    for i in range(n):
        if not keep[i]:
            continue
        le = np.all(points <= points[i], axis=1)
        lt = np.any(points < points[i], axis=1)
        if np.any(le & lt):
            keep[i] = False
    return keep


def pareto_front(df, objectives=None, directions: dict | None = None):
    """The rows of `df` (status ok, objectives all numbers) that no other such row dominates,
    sorted by the first objective. objectives: column names (default: the study's, from
    df.attrs); directions: {objective: 'minimize' | 'maximize'} (default: the study's, else
    minimize)."""
    objectives = list(objectives if objectives is not None else df.attrs.get("objectives", []))
    if not objectives:
        raise ValueError("pareto_front needs the objectives: pareto_front(df, ['latency_ms', ...])")
    missing = [o for o in objectives if o not in df.columns]
    if missing:
        raise KeyError(f"pareto_front: no column {missing[0]!r}; the table has: "
                       f"{', '.join(map(str, df.columns))}")
    directions = dict(df.attrs.get("directions", {}), **(directions or {}))
    ok = df
    if "status" in df.columns:
        ok = df[df["status"] == "ok"]
    ok = ok.dropna(subset=objectives)
    if ok.empty:
        return ok
    mask = non_dominated(_losses(ok, objectives, directions))
    return ok[mask].sort_values(objectives)


def hypervolume(points: np.ndarray, reference: np.ndarray) -> float:
    """Exact hypervolume dominated by `points` (losses) up to `reference`, any dimension
    (slicing on the last objective; fine for the few hundred points of a study)."""
    pts = np.asarray(points, float)
    ref = np.asarray(reference, float)
    pts = pts[np.all(pts < ref, axis=1)]
    if len(pts) == 0:
        return 0.0
    pts = pts[non_dominated(pts)]
    if pts.shape[1] == 1:
        return float(ref[0] - pts[:, 0].min())
    order = np.argsort(pts[:, -1])
    pts = pts[order]
    total = 0.0
    for i in range(len(pts)):
        upper = pts[i + 1, -1] if i + 1 < len(pts) else ref[-1]
        depth = upper - pts[i, -1]
        if depth > 0:
            total += depth * hypervolume(pts[: i + 1, :-1], ref[:-1])
    return float(total)


def hypervolume_ratio(found: np.ndarray, universe: np.ndarray, margin: float = 0.1) -> float:
    """How much of the best attainable hypervolume the points `found` reach: losses (n, k)
    of a sampler's feasible points, and of every feasible point of the whole space. Both are
    normalized by the true front's ideal and nadir (its per-objective min and max), the
    reference is 1 + margin in each: a point worse than the front's nadir in one objective
    counts for nothing, so reaching the ratio takes points near the front, not merely
    better than the worst of the space. -> HV(found) / HV(true front), 0..1."""
    universe = np.asarray(universe, float)
    if universe.ndim != 2 or len(universe) == 0:
        raise ValueError(f"hypervolume_ratio: the universe has no points (shape "
                         f"{universe.shape}); pass the losses of every feasible point")
    found = np.asarray(found, float).reshape(-1, universe.shape[1])
    front = universe[non_dominated(universe)]
    ideal, nadir = front.min(axis=0), front.max(axis=0)
    span = np.where(nadir > ideal, nadir - ideal, 1.0)  # an objective the front agrees on
    ref = np.full(universe.shape[1], 1.0 + margin)
    best = hypervolume((front - ideal) / span, ref)
    return hypervolume((found - ideal) / span, ref) / best if best > 0 else 1.0
