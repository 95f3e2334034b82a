"""Figure 4: each unit's cycles split into busy, stalls by cause and idle."""

from __future__ import annotations

import numpy as np
import pandas as pd

from npusim.report import style

# counter column -> cause (style's colours and labels); busy is the unit's own work
PARTS = {"busy": "compute", "stall_token": "token", "stall_dram": "dram",
         "stall_queue": "queue", "stall_barrier": "barrier", "idle": "idle"}


@style.styled
def unit_breakdown(units: pd.DataFrame, title: str = "Unit busy / stall breakdown"):
    """One horizontal bar per unit (the units table's index), stacked busy, stall on tokens,
    on DRAM, on a full queue, at a barrier, and idle, in cycles. -> the matplotlib Figure."""
    n = len(units)
    fig, ax = style.figure(size=(12.0, max(3.5, 1.2 + 0.55 * n)))
    y = np.arange(n)
    left = np.zeros(n)
    for col, cause in PARTS.items():
        if col not in units.columns:
            continue
        v = units[col].to_numpy(float)
        label = "busy" if col == "busy" else style.CAUSE_LABELS[cause]
        ax.barh(y, v, 0.7, left=left, color=style.CAUSE_COLORS[cause], label=label)
        left += v
    ax.set_yticks(y)
    ax.set_yticklabels(units.index)
    ax.invert_yaxis()
    ax.set_xlabel("cycles")
    ax.xaxis.set_major_formatter(style.THOUSANDS)
    ax.set_ylabel("unit")
    ax.set_title(title)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18 if n < 8 else -0.08), ncol=6,
              fontsize=10)
    ax.grid(axis="y", visible=False)
    style.finish(fig)
    return fig
