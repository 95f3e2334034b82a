"""Figure 6: per-layer cycle deltas of two runs (two Targets, two compiler versions, ...)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from npusim.report import frames, style


@style.styled
def layer_deltas(layers: pd.DataFrame, baseline: pd.DataFrame, *, label: str = "run",
                 baseline_label: str = "baseline", title: str = "Per-layer cycle delta"):
    """One bar per layer found in both runs (frames.delta_frame): cycles of `layers` minus
    those of `baseline`; slower red, faster green. -> the matplotlib Figure."""
    d = frames.delta_frame(layers, baseline)
    n = len(d)
    fig, ax = style.figure()
    x = np.arange(n)
    v = d["delta"].to_numpy()
    for sel, color, what in ((v > 0, style.BAD, "slower than"),
                             (v <= 0, style.GOOD, "as fast as or faster than")):
        ax.bar(x[sel], v[sel], 0.8, color=color, label=f"{label} {what} {baseline_label}")
    ax.axhline(0, color="black", lw=1)
    ax.set_xticks(x)
    ax.set_xticklabels(d["name"], rotation=90, fontsize=max(6.0, min(11.0, 700.0 / max(n, 1))))
    ax.set_xlim(-0.6, n - 0.4)
    ax.set_xlabel("layer")
    ax.set_ylabel(f"cycles ({label} - {baseline_label})")
    ax.yaxis.set_major_formatter(style.THOUSANDS)
    total, base = int(d["cycles"].sum()), int(d["baseline_cycles"].sum())
    ratio = f", {total / base:.3f}x" if base else ""
    ax.set_title(f"{title}: {total - base:+,} cycles in all ({total:,} vs {base:,}{ratio})")
    ax.legend(loc="best")
    ax.grid(axis="x", visible=False)
    style.finish(fig)
    return fig
