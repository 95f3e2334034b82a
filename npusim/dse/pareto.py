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
