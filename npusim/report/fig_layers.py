"""Figure 1: per-layer cycles stacked by cause, with each layer's roofline bound marked."""

from __future__ import annotations

import numpy as np
import pandas as pd

from npusim.report import frames, style


@style.styled
def layer_cycles(layers: pd.DataFrame, title: str = "Cycles per layer by cause"):
    """One bar per layer (the table's order), its cycles stacked by cause (compute, DMA,
    DRAM stall, sync wait, queue, barrier, idle) when the table has `cycles_by_cause`; without
    it, one bar per layer coloured by its roofline bound. A black tick marks each layer's
    roofline lower bound (roofline_cycles). -> the matplotlib Figure."""
    n = len(layers)
    fig, ax = style.figure()
    x = np.arange(n)
    width = 0.8
    if frames.has_causes(layers):
        causes = frames.layer_causes(layers)
        bottom = np.zeros(n)
        for cause in frames.CAUSES:
            v = causes[cause].to_numpy()
            if not v.any():
                continue  # no such cycles anywhere: keep the legend to what is drawn
            ax.bar(x, v, width, bottom=bottom, color=style.CAUSE_COLORS[cause],
                   label=style.CAUSE_LABELS[cause])
            bottom += v
    else:
        colors = [style.CAUSE_COLORS["dram"] if b == "memory" else style.CAUSE_COLORS["compute"]
                  for b in layers["bound"]]
        ax.bar(x, layers["cycles"].to_numpy(), width, color=colors,
               label="cycles (no per-cause attribution in this run)")
        for bound, cause in (("compute", "compute"), ("memory", "dram")):
            ax.bar([0], [0], color=style.CAUSE_COLORS[cause], label=f"{bound}-bound layer")
    ax.hlines(layers["roofline_cycles"].to_numpy(), x - width / 2, x + width / 2,
              color="black", linewidths=2.0, zorder=3, label="roofline bound")
    top = max(float(layers["cycles"].max()), float(layers["roofline_cycles"].max())) if n else 1
    ax.set_ylim(0, 1.12 * top)  # headroom for the legend over the tallest bar
    ax.set_xticks(x)
    ax.set_xticklabels(layers["name"], rotation=90, fontsize=_tick_size(n))
    ax.set_xlim(-0.6, n - 0.4)
    ax.set_xlabel("layer")
    ax.set_ylabel("cycles")
    ax.yaxis.set_major_formatter(style.THOUSANDS)
    ax.set_title(f"{title} ({int(layers['cycles'].sum()):,} cycles in all)")
    ax.legend(loc="upper left", ncol=2)
    ax.grid(axis="x", visible=False)
    style.finish(fig)
    return fig


def _tick_size(n: int) -> float:
    """Layer names stay legible from a handful of layers to ResNet-50's ~70."""
    return max(6.0, min(11.0, 700.0 / max(n, 1)))
