"""The Markdown writer: index.md with the summary, the figures as PNG links and the tables
(a report for a wiki, a pull request or a terminal)."""

from __future__ import annotations

from npusim.report import tables

MAX_ROWS = 200  # a longer table is in its CSV; Markdown viewers choke on thousands of rows


def render(report) -> str:
    """The whole index.md of a npusim.report.model.Report."""
    out = [f"# {report.title}", ""]
    out += [f"- **{k}**: {v}" for k, v in report.provenance.items()]
    out += ["", "## Summary", "", "| | |", "|---|---|"]
    out += [f"| {item.label} | {_esc(item.text)} |" for item in report.summary]
    out.append("")
    out += [f"> {n}\n" for n in report.notes]
    if report.figures:
        out += ["## Figures", ""]
    for f in report.figures:
        out += [f"![{f.caption}]({f.name}.png)", "", f"*{f.caption}* ([SVG]({f.name}.svg))", ""]
    for name, (caption, frame) in report.tables.items():
        frame = tables.shown(frame)
        csv = report.csv.get(name)
        out += [f"## {caption}", "", f"{len(frame):,} rows" + (f" ([CSV]({csv}))" if csv else ""),
                ""]
        out.append("| " + " | ".join(map(str, frame.columns)) + " |")
        out.append("|" + "|".join("---" if frame[c].dtype.kind not in "iuf" else "---:"
                                  for c in frame.columns) + "|")
        for row in frame.head(MAX_ROWS).itertuples(index=False):
            out.append("| " + " | ".join(_esc(tables.cell(v)) for v in row) + " |")
        if len(frame) > MAX_ROWS:
            out.append(f"\n({len(frame) - MAX_ROWS:,} more rows in the CSV)")
        out.append("")
    return "\n".join(out)


def _esc(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")
