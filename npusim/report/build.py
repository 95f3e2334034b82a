"""Building reports: a run (a flow Result, with an optional baseline run and --compare data) or
a DSE study (its trial table) -> figures + tables -> DIR/index.html (or index.md), every figure
as SVG and PNG, the tables as CSV."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from npusim.report import (fig_compare, fig_delta, fig_dse, fig_layers, fig_roofline,
                           fig_timeline, fig_units, frames, tables)
from npusim.report.errors import ReportError
from npusim.report.model import Report, SummaryItem

FORMATS = ("html", "md")


def run_report(result, *, baseline=None, baseline_label: str | None = None,
               provenance: dict | None = None) -> Report:
    """The Report of a flow Result: summary, figures 1-4 (the timeline when the run kept its
    trace), 5 when it was compared with cpu/gpu, 6 against `baseline` (another Result)."""
    from isa.checks import target_name
    from npusim.flow.saved import provenance as live_provenance
    s = result.to_json()
    t = result.target
    title = f"npusim report: {s['model']} on {s['target']}"
    rep = Report(title, dict(provenance or live_provenance()))
    rep.summary = run_summary(result, s)
    layers = result.layers
    if not frames.has_causes(layers):
        rep.notes.append("this run's layer table has no per-cause attribution "
                         "(cycles_by_cause): figure 1 colours each layer by its bound instead")
    rep.add_figure("layer_cycles", "Figure 1: cycles per layer by cause; black ticks: each "
                   "layer's roofline lower bound", fig_layers.layer_cycles(layers))
    rep.add_figure("roofline", "Figure 2: roofline: each layer at (MACs per DRAM byte, "
                   "achieved MACs per cycle)",
                   fig_roofline.roofline(layers, t.derived.peak_macs_per_cycle, t.dram_bw))
    if result.trace is not None:
        rep.add_figure("timeline", "Figure 3: per-unit timeline with layer bands, and DRAM "
                       "bandwidth over time",
                       fig_timeline.timeline(result.trace, layers, cycles=result.cycles,
                                             dram_bytes_per_cycle=t.dram_bw))
    else:
        rep.notes.append("no trace in this run: figure 3 (the unit timeline) needs one "
                         "(`npusim run --trace FILE --save RUN.json`)")
    rep.add_figure("unit_breakdown", "Figure 4: each unit's cycles: busy, stalls by cause, "
                   "idle", fig_units.unit_breakdown(result.units))
    if s.get("backends"):
        cmp = frames.compare_frame(s)
        rep.add_figure("backends", "Figure 5: latency of the NPU (simulated) and the compared "
                       "backends (measured, or estimated by a roofline: hatched)",
                       fig_compare.backends(cmp))
        rep.add_table("backends", "NPU vs CPU vs GPU", cmp)
    if baseline is not None:
        other = baseline_label or f"{baseline.name} on {target_name(baseline.target)}"
        this = f"{s['model']} on {s['target']}"
        if other == this:
            this, other = "run", "baseline"
        rep.add_figure("layer_deltas", f"Figure 6: per-layer cycles of {this} minus "
                       f"{other}", fig_delta.layer_deltas(layers, baseline.layers, label=this,
                                                          baseline_label=other))
        rep.add_table("deltas", f"Per-layer deltas against {other}",
                      frames.delta_frame(layers, baseline.layers))
    rep.add_table("layers", "Per-layer table", frames.layer_table(layers))
    rep.add_table("units", "Per-unit counters", frames.unit_table(result.units, result.cycles))
    if result.trace is not None:
        rep.csv_frames["trace"] = result.trace  # too long for a page: CSV only
    return rep


def run_summary(result, s: dict) -> list:
    """The summary lines of a run: what `npusim run` prints last, energy by component and the
    area where the model gives them."""
    items = [SummaryItem("model", "model", s["model"], s["model"]),
             SummaryItem("target", "target", s["target"], s["target"]),
             SummaryItem("cycles", "cycles", f"{s['cycles']:,}", s["cycles"]),
             SummaryItem("latency_ms", "latency", f"{s['latency_ms']:.4f} ms", s["latency_ms"])]
    if s.get("roofline_ratio"):
        items.append(SummaryItem("roofline_ratio", "cycles / roofline bound",
                                 f"{s['roofline_ratio']:.3f}x "
                                 f"({s['roofline_cycles']:,.0f} cycles bound)",
                                 s["roofline_ratio"]))
    items += [SummaryItem("utilization", "matrix utilization", f"{s['utilization']:.1%}",
                          s["utilization"]),
              SummaryItem("energy_pj", "energy", f"{s['energy_pj'] / 1e6:,.3f} uJ",
                          s["energy_pj"]),
              SummaryItem("dram_bytes", "DRAM traffic", f"{s['dram_bytes']:,} B",
                          s["dram_bytes"]),
              SummaryItem("instructions", "instructions", f"{s['instructions']:,}",
                          s["instructions"])]
    breakdown = s.get("energy_breakdown") or result.energy_by_action_pj
    breakdown = {k: float(v) for k, v in breakdown.items()
                 if k != "total" and isinstance(v, (int, float))}
    if breakdown:
        total = sum(breakdown.values()) or 1.0
        text = ", ".join(f"{k} {v / 1e6:,.3f} uJ ({v / total:.0%})" for k, v in breakdown.items())
        items.append(SummaryItem("energy_breakdown", "energy by component", text, total))
    area = _area_mm2(result.target)
    if area is not None:
        items.append(SummaryItem("area_mm2", "area (model)", f"{area:.3f} mm²", area))
    verdict = s.get("verified")
    text = {True: "yes", False: "NO", None: "n/a (timing only, or a saved artifact)"}[verdict]
    if s.get("reference"):
        text += (f" (bit-exact vs integer reference: {s['bit_exact']}; vs {s['reference']}: "
                 f"top-1 {s['top1_agree']:.0%}, SNR {s['snr_db']:.1f} dB)")
    items.append(SummaryItem("verified", "verified", text, verdict))
    for label, b in (s.get("backends") or {}).items():
        if b.get("latency_ms") is not None:
            how = "measured" if b.get("measured") else "estimated"
            items.append(SummaryItem(f"backend.{label}", f"{label} latency ({how})",
                                     f"{b['latency_ms']:.4g} ms (NPU speedup "
                                     f"{b['npu_speedup']:.3g}x)", b["latency_ms"]))
    return items


def _area_mm2(target):
    """npusim.hw.area.area_mm2(target) where the hardware model has it, else None."""
    try:
        from npusim.hw.area import area_mm2
    except ImportError:  # the area model is not part of this checkout
        return None
    try:
        return float(area_mm2(target))
    except Exception:  # noqa: BLE001 - a report leaves out what the cost model cannot say
        return None


def study_report(df: pd.DataFrame, *, attributes: list, objectives: list,
                 directions: dict | None = None, name: str = "study", front_of=None,
                 provenance: dict | None = None) -> Report:
    """The Report of a DSE study's trial table (npusim.dse.load's columns): figure 7's Pareto
    fronts, parallel coordinates, parameter importance and sensitivity, and the trials."""
    from npusim.flow.saved import provenance as live_provenance
    missing = [c for c in [*attributes, *objectives] if c not in df.columns]
    if missing:
        raise ReportError(f"study '{name}': columns {missing} are not in its table "
                          f"(columns: {list(df.columns)})")
    rep = Report(f"npusim report: DSE study {name}", dict(provenance or live_provenance()))
    status = df["status"] if "status" in df.columns else pd.Series("ok", index=df.index)
    counts = status.value_counts()
    rep.summary = [SummaryItem("study", "study", name, name),
                   SummaryItem("trials", "trials", f"{len(df):,}", len(df))]
    for st in ("ok", "infeasible", "failed"):
        rep.summary.append(SummaryItem(st, f"{st} trials", f"{int(counts.get(st, 0)):,}",
                                       int(counts.get(st, 0))))
    ok = df[status == "ok"]
    for o in objectives:
        if ok[o].notna().any():
            best = ok[o].max() if (directions or {}).get(o) == "maximize" else ok[o].min()
            rep.summary.append(SummaryItem(f"best.{o}", f"best {o}", tables.cell(best), best))
    rep.summary.append(SummaryItem("attributes", "attributes", ", ".join(attributes),
                                   len(attributes)))
    if len(objectives) >= 2:
        rep.add_figure("pareto", "Figure 7a: Pareto fronts for every pair of objectives "
                       "(front red, infeasible/failed grey)",
                       fig_dse.pareto_fronts(df, objectives, directions=directions,
                                             front_of=front_of))
    else:
        rep.notes.append("one objective: no Pareto figure (it needs two)")
    front = (pd.Series(front_of(df, objectives), index=df.index) if front_of is not None
             else fig_dse.front_mask(df, objectives, directions))
    rep.add_figure("parallel", "Figure 7b: parallel coordinates over the attributes and "
                   "objectives (the Pareto front bold)",
                   fig_dse.parallel_coordinates(df, attributes, objectives, front=front))
    try:
        rep.add_figure("importance", "Figure 7c: parameter importance (Optuna PED-ANOVA)",
                       fig_dse.param_importance(df, attributes, objectives,
                                                directions=directions))
    except ReportError as e:
        rep.notes.append(f"no importance figure: {e}")
    rep.add_figure("sensitivity", "Figure 7d: each objective against each attribute",
                   fig_dse.sensitivity(df, attributes, objectives))
    shown = [c for c in ("trial", "target", "status", "reason", *attributes, *objectives,
                         "wall_s") if c in df.columns]
    rep.add_table("trials", "Trials (every column in trials.csv)", df[shown])
    rep.csv_frames["trials"] = df  # per-workload objectives, provenance: the CSV has them all
    return rep


def write(report: Report, directory, fmt: str = "html", extra_csv: dict | None = None) -> Path:
    """Write `report` into DIRECTORY: every figure as NAME.svg and NAME.png, every table as
    NAME.csv (and extra_csv {name: DataFrame}, e.g. the trace), and index.html or index.md;
    -> the index file."""
    from isa.files import write_atomic
    from npusim.report import html, markdown
    if fmt not in FORMATS:
        raise ReportError(f"report format {fmt!r} is not one of {', '.join(FORMATS)}")
    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ReportError(f"cannot create report folder '{directory}': "
                          f"{e.strerror or e}") from None
    for f in report.figures:
        write_atomic(directory / f"{f.name}.svg", f.svg)
        write_atomic(directory / f"{f.name}.png", f.png)
    frames_out = {name: frame for name, (_, frame) in report.tables.items()}
    frames_out.update(report.csv_frames)
    frames_out.update(extra_csv or {})
    for name, path in tables.write_csv(directory, frames_out).items():
        report.csv[name] = path.name
    index = directory / f"index.{fmt}"
    write_atomic(index, (html if fmt == "html" else markdown).render(report))
    return index
