"""Figure 3: the per-unit timeline (Gantt) from the trace with layer bands, and the DRAM
bandwidth over time below it."""

from __future__ import annotations

import numpy as np
import pandas as pd

from npusim.report import frames, style

SYNC = ("wait", "signal", "barrier", "gbarrier", "pop", "push")  # mnemonics that wait, not work
RESOLUTION = 1500     # intervals closer than total/RESOLUTION merge: a figure has no more pixels
BINS = 200            # DRAM bandwidth samples across the run


def coalesce(start: np.ndarray, end: np.ndarray, gap: float) -> list:
    """Sorted intervals merged where they touch or are less than `gap` apart, as (x, width)
    pairs for broken_barh: a million instructions draw as a few thousand bars."""
    if len(start) == 0:
        return []
    order = np.argsort(start, kind="stable")
    s, e = start[order], np.maximum.accumulate(end[order])
    breaks = np.flatnonzero(s[1:] > e[:-1] + gap) + 1
    first = np.r_[0, breaks]
    last = np.r_[breaks - 1, len(s) - 1]
    return list(zip(s[first].tolist(), (e[last] - s[first]).tolist()))


def dram_bandwidth(trace: pd.DataFrame, cycles: int, bins: int = BINS) -> tuple:
    """(bin edges, bytes per cycle in each bin): each DMA instruction's bytes spread evenly over
    its own [start, end), summed over every channel and core."""
    edges = np.linspace(0, max(cycles, 1), bins + 1)
    d = trace[(trace["bytes"] > 0) & (trace["end"] > trace["start"])]
    if d.empty:
        return edges, np.zeros(bins)
    s, e = d["start"].to_numpy(float), d["end"].to_numpy(float)
    rate = d["bytes"].to_numpy(float) / (e - s)
    # bytes moved before time t = integral of the summed rate: piecewise linear in t
    t = np.r_[s, e]
    order = np.argsort(t, kind="stable")
    t, dr = t[order], np.r_[rate, -rate][order]
    level = np.cumsum(dr)
    moved = np.r_[0.0, np.cumsum(level[:-1] * np.diff(t))]
    cum = np.interp(edges, t, moved, left=0.0, right=moved[-1])
    return edges, np.diff(cum) / np.diff(edges)


@style.styled
def timeline(trace: pd.DataFrame, layers: pd.DataFrame | None = None, *, cycles: int | None = None,
             dram_bytes_per_cycle: float | None = None, title: str = "Unit timeline"):
    """Top: one row per unit (core.unit), its busy intervals from the trace (sync waits lighter),
    over alternating bands for the layers (frames.layer_bands). Bottom: DRAM bytes per cycle over time with the
    Target's peak. -> the matplotlib Figure."""
    cycles = int(cycles if cycles is not None else (trace["end"].max() if len(trace) else 1))
    fig, (ax, bw) = style.figure(2, 1, size=(12.0, 7.0), sharex=True,
                                 gridspec_kw={"height_ratios": [3, 1]})
    names = trace["core"].map(lambda c: f"core{c}.") + trace["unit"]
    units = sorted(names.unique(), key=_unit_order)
    gap = cycles / RESOLUTION
    sync = trace["mnemonic"].isin(SYNC).to_numpy()
    for row, unit in enumerate(units):
        sel = (names == unit).to_numpy()
        # waits first, work over them: a pipelined unit's wait may span cycles it computes in
        for is_sync, color, label in ((True, style.CAUSE_COLORS["token"], "sync wait"),
                                      (False, style.CAUSE_COLORS["compute"], "busy")):
            m = sel & (sync == is_sync)
            bars = coalesce(trace["start"].to_numpy()[m], trace["end"].to_numpy()[m], gap)
            ax.broken_barh(bars, (row - 0.4, 0.8), facecolors=color,
                           label=label if row == 0 else None)
    if layers is not None and len(layers):
        spans = frames.layer_bands(layers)
        for i, (name, s, e) in enumerate(spans[["name", "start", "end"]].itertuples(index=False)):
            if i % 2 == 0:
                for a in (ax, bw):
                    a.axvspan(s, e, color="#000000", alpha=0.06, lw=0)
            if e - s > cycles / 25:  # name only the bands wide enough to hold it
                ax.text((s + e) / 2, 0.99, name, rotation=90, ha="center", va="top",
                        fontsize=8, color="#333333", transform=ax.get_xaxis_transform())
        ax.axvspan(0, 0, color="#000000", alpha=0.06, lw=0, label="layer bands")
    ax.set_yticks(range(len(units)))
    ax.set_yticklabels(units)
    ax.set_ylim(-0.6, len(units) - 0.4)
    ax.invert_yaxis()
    ax.set_ylabel("unit")
    ax.set_title(f"{title} ({cycles:,} cycles)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=9)  # beside: no overlap
    edges, rate = dram_bandwidth(trace, cycles)
    bw.stairs(rate, edges, fill=True, color=style.CAUSE_COLORS["dma"], label="DRAM traffic")
    if dram_bytes_per_cycle:
        bw.axhline(dram_bytes_per_cycle, color="black", ls="--", lw=1.5,
                   label=f"DRAM peak {dram_bytes_per_cycle:g} B/cycle")
    bw.set_xlim(0, cycles)
    bw.xaxis.set_major_formatter(style.THOUSANDS)
    bw.set_ylim(bottom=0)
    bw.set_xlabel("time (cycles)")
    bw.set_ylabel("DRAM B/cycle")
    bw.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=9)
    style.finish(fig)
    return fig


def _unit_order(name: str) -> tuple:
    """core0.dispatch, core0.dma0.., core0.matrix, core0.vector, core1...: as the hardware."""
    core, _, unit = name.partition(".")
    rank = {"dispatch": 0, "matrix": 2, "vector": 3}.get(unit, 1)
    return (int(core.removeprefix("core") or 0), rank, unit)
