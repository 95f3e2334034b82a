"""Figure 7, for a DSE study (one row per trial: target, status ok/infeasible/failed, reason,
the space attributes, the objectives): Pareto fronts for every pair of objectives, parallel
coordinates, parameter importance (Optuna's PED-ANOVA) and per-attribute sensitivity."""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pandas as pd

from npusim.report import style
from npusim.report.errors import ReportError


def front_mask(df: pd.DataFrame, objectives: list, directions: dict | None = None) -> pd.Series:
    """True for the ok trials no other ok trial dominates (all objectives minimized unless
    directions says 'maximize'). npusim.dse.pareto_front is the study's own; pass its result
    as `front=` where it is at hand."""
    ok = _ok(df) & df[objectives].notna().all(axis=1)
    sign = np.array([-1.0 if (directions or {}).get(o) == "maximize" else 1.0
                     for o in objectives])
    v = df.loc[ok, objectives].to_numpy(float) * sign
    keep = np.ones(len(v), bool)
    for i in range(len(v)):
        dominated = (v <= v[i]).all(axis=1) & (v < v[i]).any(axis=1)
        keep[i] = not dominated.any()
    out = pd.Series(False, index=df.index)
    out[df.index[ok][keep]] = True
    return out


@style.styled
def pareto_fronts(df: pd.DataFrame, objectives: list, *, directions: dict | None = None,
                  front_of=None, title: str = "Pareto fronts"):
    """One panel per pair of objectives: every trial with both values as a point (ok trials
    blue, the pair's own front highlighted red and joined, infeasible or failed ones grey
    crosses). front_of(df, [a, b]) -> mask picks the front (default front_mask; pass
    npusim.dse.pareto_front to use the study's). -> the matplotlib Figure."""
    pairs = list(itertools.combinations(objectives, 2))
    if not pairs:
        raise ReportError(f"a Pareto figure needs two objectives or more; the study has "
                          f"{objectives}")
    front_of = front_of or (lambda d, objs: front_mask(d, objs, directions))
    cols = min(3, len(pairs))
    rows = math.ceil(len(pairs) / cols)
    fig, axes = style.figure(rows, cols, size=(5.2 * cols, 4.6 * rows), squeeze=False)
    ok = _ok(df)
    for ax, (a, b) in zip(axes.flat, pairs):
        has = df[[a, b]].notna().all(axis=1)
        front = pd.Series(front_of(df, [a, b]), index=df.index).astype(bool)
        bad, good = has & ~ok, has & ok & ~front
        top = has & front
        ax.scatter(df.loc[bad, a], df.loc[bad, b], marker="x", color=style.GREY,
                   label=f"infeasible/failed ({int(bad.sum())})")
        ax.scatter(df.loc[good, a], df.loc[good, b], color=style.CAUSE_COLORS["compute"],
                   alpha=0.7, label=f"dominated ({int(good.sum())})")
        ax.scatter(df.loc[top, a], df.loc[top, b], color=style.BAD, edgecolor="black", s=60,
                   zorder=3, label=f"Pareto front ({int(top.sum())})")
        line = df.loc[top, [a, b]].sort_values([a, b])
        ax.plot(line[a], line[b], color=style.BAD, lw=1.2, drawstyle="steps-post", zorder=2)
        ax.set_xlabel(_label(a))
        ax.set_ylabel(_label(b))
        ax.set_title(f"{b} vs {a}", fontsize=12)
        ax.legend(fontsize=8, loc="best")
    for ax in list(axes.flat)[len(pairs):]:
        ax.set_visible(False)
    unplaced = int((~df[objectives].notna().all(axis=1)).sum())
    fig.suptitle(title + (f" ({unplaced} trials without every objective value)"
                          if unplaced else ""))
    style.finish(fig)
    return fig


@style.styled
def parallel_coordinates(df: pd.DataFrame, attributes: list, objectives: list, *,
                         front: pd.Series | None = None, title: str = "Parallel coordinates"):
    """One line per trial across one axis per attribute and objective, each axis scaled to its
    own range (numbers) or spread over its values (categories); ok trials coloured by the first
    objective, the Pareto front bold, infeasible/failed ones grey dashed. -> the Figure."""
    axes_names = [*attributes, *objectives]
    fig, ax = style.figure(size=(max(8.0, 1.8 * len(axes_names)), 6.0))
    scaled, ticks = {}, {}
    for col in axes_names:
        scaled[col], ticks[col] = _scale(df[col])
    y = pd.DataFrame(scaled, index=df.index)
    x = np.arange(len(axes_names))
    ok = _ok(df)
    front = front_mask(df, objectives) if front is None else front.astype(bool)
    first = df[objectives[0]] if objectives else pd.Series(0.0, index=df.index)
    lo, hi = np.nanmin(first[ok]) if ok.any() else 0, np.nanmax(first[ok]) if ok.any() else 1
    cmap = style.mpl.colormaps["viridis"]
    for i in df.index:
        if ok[i]:
            t = 0.5 if hi == lo else (first[i] - lo) / (hi - lo)
            ax.plot(x, y.loc[i], color=cmap(t), lw=2.4 if front[i] else 1.0,
                    alpha=0.95 if front[i] else 0.6)
        else:
            ax.plot(x, y.loc[i], color=style.GREY, lw=1.0, ls="--", alpha=0.8)
    for xi, col in zip(x, axes_names):
        ax.axvline(xi, color="black", lw=1)
        for pos, text in ticks[col]:
            ax.text(xi + 0.03, pos, text, fontsize=8, va="center")
    ax.set_xticks(x)
    ax.set_xticklabels([_label(c) for c in axes_names], rotation=20, ha="right")
    ax.set_yticks([])
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlim(-0.2, len(axes_names) - 0.6)
    ax.set_xlabel("attribute / objective (each axis from its own min to max)")
    ax.set_ylabel("value (scaled per axis)")
    ax.set_title(f"{title} ({len(df)} trials; colour: {objectives[0] if objectives else '-'})")
    ax.plot([], [], color=cmap(0.5), label="ok trial")
    ax.plot([], [], color=cmap(0.5), lw=2.4, label="Pareto front")
    ax.plot([], [], color=style.GREY, ls="--", label="infeasible / failed")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, fontsize=9)
    ax.grid(False)
    style.finish(fig)
    return fig


FEW_VALUES = 10  # at most this many distinct values: importances() treats them as categories


def importances(df: pd.DataFrame, attributes: list, objectives: list,
                directions: dict | None = None) -> dict:
    """{objective: {attribute: importance}} (normalized to sum to 1) from Optuna's PED-ANOVA
    evaluator, over the ok trials rebuilt as an in-memory Optuna study per objective;
    attributes the study never varied are left out."""
    import optuna
    from optuna.distributions import (CategoricalDistribution, FloatDistribution,
                                      IntDistribution)
    ok = df[_ok(df) & df[objectives].notna().all(axis=1)]
    varied = [a for a in attributes if ok[a].nunique() > 1]
    if len(ok) < 2 or not varied:
        raise ReportError(f"parameter importance needs two ok trials that differ in an "
                          f"attribute; the study has {len(ok)} ok trials varying "
                          f"{varied or 'none'} of {attributes}")
    dists = {}
    for a in varied:
        v = ok[a]
        # a grid's few values are categories too: PED-ANOVA compares a numeric attribute's
        # density estimates, and a KDE over three integers made dram-bw (8/16/32) outrank the
        # array for latency and area on a study the sensitivity panels plainly contradict
        if pd.api.types.is_bool_dtype(v) or not pd.api.types.is_numeric_dtype(v) or \
                v.nunique() <= FEW_VALUES:
            dists[a] = CategoricalDistribution(sorted(v.astype(str).unique()))
        elif pd.api.types.is_integer_dtype(v):
            dists[a] = IntDistribution(int(v.min()), int(v.max()))
        else:
            dists[a] = FloatDistribution(float(v.min()), float(v.max()))
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    trials = [{a: (str(row[a]) if isinstance(dists[a], CategoricalDistribution)
                   else int(row[a]) if isinstance(dists[a], IntDistribution)
                   else float(row[a])) for a in varied} for _, row in ok.iterrows()]
    # PED-ANOVA: Optuna's evaluator that needs no scikit-learn (fANOVA does); it asks which
    # attributes the best trials (the top quantile, here at least three trials) share
    quantile = min(0.5, max(0.1, 3 / len(ok)))
    out = {}
    for o in objectives:
        sign = -1.0 if (directions or {}).get(o) == "maximize" else 1.0
        study = optuna.create_study(direction="minimize")
        study.add_trials([optuna.trial.create_trial(params=p, distributions=dists,
                                                    value=sign * float(v))
                          for p, v in zip(trials, ok[o])])
        ev = optuna.importance.PedAnovaImportanceEvaluator(target_quantile=quantile)
        out[o] = dict(optuna.importance.get_param_importances(study, evaluator=ev,
                                                              normalize=True))
    return out


@style.styled
def param_importance(df: pd.DataFrame, attributes: list, objectives: list, *,
                     directions: dict | None = None,
                     title: str = "Parameter importance (Optuna PED-ANOVA)"):
    """One group of horizontal bars per objective: each varied attribute's importance for
    reaching the objective's best trials (they sum to 1 per objective). -> the matplotlib Figure."""
    imp = importances(df, attributes, objectives, directions)
    names = [a for a in attributes if any(a in v for v in imp.values())]
    fig, ax = style.figure(size=(10.0, max(3.5, 1.5 + 0.5 * len(names) * len(objectives))))
    h = 0.8 / len(objectives)
    y = np.arange(len(names))
    colors = style.mpl.colormaps["tab10"]
    for k, o in enumerate(objectives):
        ax.barh(y + k * h, [imp[o].get(a, 0.0) for a in names], h, color=colors(k),
                label=_label(o))
    ax.set_yticks(y + h * (len(objectives) - 1) / 2)
    ax.set_yticklabels(names)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("importance (normalized; Optuna PED-ANOVA)")
    ax.set_ylabel("attribute")
    ax.set_title(title)
    ax.legend(title="objective", loc="lower right")
    style.finish(fig)
    return fig


@style.styled
def sensitivity(df: pd.DataFrame, attributes: list, objectives: list, *,
                title: str = "Sensitivity of each objective to each attribute"):
    """A grid: one row per objective, one column per attribute; each ok trial a point at
    (attribute value, objective), the median per attribute value joined by a line.
    -> the matplotlib Figure."""
    ok = df[_ok(df)]
    rows, cols = len(objectives), len(attributes)
    fig, axes = style.figure(rows, cols, size=(max(6.0, 3.6 * cols), max(3.5, 3.0 * rows)),
                             squeeze=False)
    for r, o in enumerate(objectives):
        for c, a in enumerate(attributes):
            ax = axes[r][c]
            d = ok[[a, o]].dropna()
            numeric = pd.api.types.is_numeric_dtype(d[a]) and not pd.api.types.is_bool_dtype(d[a])
            if numeric:
                xs = d[a]
            else:  # categories at positions in natural order (8x8 before 16x16), so the
                # median line and the points share one x order
                labels = sorted(d[a].astype(str).unique(), key=_natural_key)
                xs = d[a].astype(str).map({v: i for i, v in enumerate(labels)})
                ax.set_xticks(range(len(labels)), labels)
            ax.scatter(xs, d[o], s=18, alpha=0.6, color=style.CAUSE_COLORS["compute"])
            med = d.assign(_x=xs).groupby("_x", sort=True)[o].median()
            ax.plot(med.index, med.to_numpy(), color=style.BAD, lw=1.5, marker="o", ms=4,
                    label="median")
            if r == rows - 1:
                ax.set_xlabel(_label(a))
            if c == 0:
                ax.set_ylabel(_label(o))
            if r == 0 and c == cols - 1:
                ax.legend(fontsize=8)
    fig.suptitle(f"{title} ({len(ok)} ok trials)")
    style.finish(fig)
    return fig


def _natural_key(text: str) -> list:
    """'16x16' -> ['', 16, 'x', 16, '']: digit runs compare as numbers."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


def _ok(df: pd.DataFrame) -> pd.Series:
    return df["status"] == "ok" if "status" in df.columns else pd.Series(True, index=df.index)


UNITS = {"cycles": "cycles", "latency_ms": "ms", "energy_pj": "pJ", "energy_uj": "uJ",
         "area_mm2": "mm²", "utilization": "fraction", "dram_bytes": "bytes", "edp": "pJ·cycles"}


def _label(name: str) -> str:
    """An axis label with its unit where the name says it: 'energy_pj[resnet18]' -> '...(pJ)'."""
    base = name.split("[")[0]
    unit = UNITS.get(base) or next((u for k, u in UNITS.items() if base.endswith(k)), None)
    return f"{name} ({unit})" if unit and unit != base else name


def _scale(col: pd.Series) -> tuple:
    """(values scaled to 0..1, [(position, tick text)]) of one parallel-coordinates axis."""
    if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
        v = col.astype(float)
        lo, hi = v.min(), v.max()
        if not np.isfinite(lo) or hi == lo:
            return v.where(v.isna(), 0.5), [(0.5, f"{lo:.4g}")]
        return (v - lo) / (hi - lo), [(0.0, f"{lo:.4g}"), (1.0, f"{hi:.4g}")]
    cats = sorted(col.dropna().astype(str).unique())
    pos = {c: (k / (len(cats) - 1) if len(cats) > 1 else 0.5) for k, c in enumerate(cats)}
    return col.astype(str).map(pos), [(p, c) for c, p in pos.items()]
