"""Figure 5: NPU vs CPU vs GPU latency, each bar marked simulated, measured or estimated."""

from __future__ import annotations

import numpy as np
import pandas as pd

from npusim.report import style

LOOK = {"simulated": ("#2a7ab9", ""), "measured": ("#1b9e77", ""),
        "estimated": ("#ffffff", "//")}


@style.styled
def backends(frame: pd.DataFrame, title: str = "Latency: NPU vs CPU vs GPU"):
    """One bar per backend with a latency (frame: label, target, latency_ms, figure, as
    frames.compare_frame), on a log axis; estimated figures hatched. -> the matplotlib Figure."""
    d = frame[frame["latency_ms"].notna() & (frame["figure"] != "error")].reset_index(drop=True)
    fig, ax = style.figure(size=(10.0, 6.0))
    x = np.arange(len(d))
    for kind, (color, hatch) in LOOK.items():
        sel = (d["figure"] == kind).to_numpy()
        if sel.any():
            ax.bar(x[sel], d.loc[sel, "latency_ms"], 0.6, color=color, hatch=hatch,
                   edgecolor="black", label=kind)
    for xi, ms in zip(x, d["latency_ms"]):
        ax.annotate(f"{ms:.3g} ms", (xi, ms), ha="center", va="bottom", xytext=(0, 3),
                    textcoords="offset points")
    ax.set_yscale("log")
    ax.set_xticks(x)
    ax.set_xticklabels([f"{a}\n{t.split(' -')[0]}" for a, t in zip(d["label"], d["target"])])
    ax.set_xlabel("backend (target)")
    ax.set_ylabel("latency (ms, log scale)")
    ax.set_title(title)
    ax.legend(title="figure", loc="upper left")
    ax.grid(axis="x", visible=False)
    style.finish(fig)
    return fig
