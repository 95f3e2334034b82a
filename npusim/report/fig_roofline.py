"""Figure 2: the roofline chart: each layer at (MACs per DRAM byte, achieved MACs per cycle)
under the Target's compute and DRAM-bandwidth roofs."""

from __future__ import annotations

import numpy as np
import pandas as pd

from npusim.report import style


def plotted(layers: pd.DataFrame) -> pd.Series:
    """Which layers have a point: those with MACs, DRAM traffic and cycles (a copy or a pool
    has no MACs; log axes have no place for zero)."""
    return (layers["macs"] > 0) & (layers["dram_bytes"] > 0) & (layers["cycles"] > 0)


@style.styled
def roofline(layers: pd.DataFrame, peak_macs_per_cycle: float, dram_bytes_per_cycle: float,
             title: str = "Roofline"):
    """One point per layer with MACs (plotted), coloured by its bound, under the roofs
    min(peak, bandwidth x intensity). -> the matplotlib Figure."""
    fig, ax = style.figure(size=(10.0, 6.5))
    d = layers[plotted(layers)]
    intensity = d["macs"] / d["dram_bytes"]
    achieved = d["macs"] / d["cycles"]
    ridge = peak_macs_per_cycle / dram_bytes_per_cycle
    lo = min([ridge / 10, *intensity.tolist()]) / 2
    hi = max([ridge * 10, *intensity.tolist()]) * 2
    xs = np.geomspace(lo, hi, 200)
    ax.plot(xs, np.minimum(peak_macs_per_cycle, dram_bytes_per_cycle * xs), color="black",
            lw=2, label=f"roof: {peak_macs_per_cycle:g} MACs/cycle, "
                        f"{dram_bytes_per_cycle:g} B/cycle DRAM")
    ax.axvline(ridge, color="grey", ls=":", lw=1)
    for bound, color in (("compute", style.CAUSE_COLORS["compute"]),
                         ("memory", style.CAUSE_COLORS["dram"])):
        sel = (d["bound"] == bound).to_numpy()
        ax.scatter(intensity[sel], achieved[sel], s=60, color=color, edgecolor="black",
                   zorder=3, label=f"{bound}-bound layer ({int(sel.sum())})")
    for name, x, y in zip(d["name"], intensity, achieved):  # the slowest few, by name
        if y < 0.25 * min(peak_macs_per_cycle, dram_bytes_per_cycle * x):
            ax.annotate(name, (x, y), fontsize=8, xytext=(4, 2), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(top=peak_macs_per_cycle * 2)
    ax.set_xlabel("arithmetic intensity (MACs per DRAM byte)")
    ax.set_ylabel("achieved MACs per cycle")
    skipped = len(layers) - len(d)
    ax.set_title(title + (f" ({skipped} layers without MACs or DRAM traffic not shown)"
                          if skipped else ""))
    ax.legend(loc="lower right")
    style.finish(fig)
    return fig
