"""COMPUTE_REPORT.csv and BANDWIDTH_REPORT.csv in SCALE-Sim 3.0's layout (its columns first,
spelled and separated as it writes them, ours after), and the same as one JSON object."""

from __future__ import annotations

from pathlib import Path

from isa.files import write_atomic

from .metrics import BANDWIDTH_COLUMNS, COMPUTE_COLUMNS, OUR_BANDWIDTH, OUR_COMPUTE

REPORTS = {"COMPUTE_REPORT.csv": (COMPUTE_COLUMNS, OUR_COMPUTE, "compute", "ours_compute"),
           "BANDWIDTH_REPORT.csv": (BANDWIDTH_COLUMNS, OUR_BANDWIDTH, "bandwidth",
                                    "ours_bandwidth")}


def report_rows(run, report: str) -> list:
    """The rows of one report as {column: value}, SCALE-Sim's columns then ours."""
    theirs, ours, a, b = REPORTS[report]
    out = []
    for r in run.layers:
        row = {"LayerID": r.index, **r.rows[a], **r.rows[b]}
        out.append({c: row[c] for c in theirs + ours})
    return out


def _text(rows: list, columns: tuple) -> str:
    # SCALE-Sim writes "a, b, c,\n": comma-space separated, a comma at the end of each line
    lines = [", ".join(columns) + ","]
    lines += [", ".join(str(row[c]) for c in columns) + "," for row in rows]
    return "\n".join(lines) + "\n"


def write_reports(run, top_path: str | Path = ".") -> Path:
    """Write both reports into top_path/<run_name>/ (SCALE-Sim's layout); returns that folder."""
    folder = Path(top_path) / run.config.run_name
    folder.mkdir(parents=True, exist_ok=True)
    for name, (theirs, ours, _, _) in REPORTS.items():
        write_atomic(folder / name, _text(report_rows(run, name), theirs + ours))
    return folder


def report_json(run) -> dict:
    """What `npusim scalesim --json` prints: the two reports' rows, totals and provenance."""
    c = run.config
    return {
        "run_name": c.run_name, "config": c.source, "topology": run.topology.source,
        "format": run.topology.fmt, "lowering": run.lowering, "dataflow": c.dataflow,
        "bandwidth_mode": c.bandwidth_mode,
        "target": str(run.target), "notes": list(run.notes),
        "layers": len(run.layers),
        "total_cycles": run.total("Total Cycles (incl. prefetch)"),
        "array_cycles": run.total("Total Cycles"),
        "compute_cycles": run.total("Compute Cycles"),
        "stall_cycles": run.total("Stall Cycles"),
        "energy_uj": sum(r.rows["ours_compute"]["Energy uJ"] for r in run.layers),
        "wall_s": run.wall_s,
        "compute_report": report_rows(run, "COMPUTE_REPORT.csv"),
        "bandwidth_report": report_rows(run, "BANDWIDTH_REPORT.csv"),
    }
