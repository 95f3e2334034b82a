"""The HTML writer: one self-contained index.html (figures inline as data URIs, styles and the
small table-sorting script inline, nothing fetched from a network)."""

from __future__ import annotations

import base64
import html

from npusim.report import tables

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:1280px;
padding:0 1em;color:#222}
h1{font-size:1.7em;margin-bottom:.2em}h2{margin-top:1.6em;border-bottom:1px solid #ddd}
dl.prov{display:grid;grid-template-columns:max-content auto;gap:.15em 1em;font-size:.9em;
color:#555}dl.prov dt{font-weight:600}
table.summary td{padding:.2em 1.2em .2em 0}table.summary td.v{font-weight:600;
font-variant-numeric:tabular-nums}
figure{margin:1.2em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{color:#555;font-size:.95em}
table.data{border-collapse:collapse;font-size:.85em;font-variant-numeric:tabular-nums}
table.data th,table.data td{border:1px solid #ddd;padding:.2em .5em;text-align:right}
table.data th{background:#f4f4f4;cursor:pointer;user-select:none;position:sticky;top:0}
table.data th.asc::after{content:" \\25B2"}table.data th.desc::after{content:" \\25BC"}
table.data td.t{text-align:left}.scroll{max-height:32em;overflow:auto}
.note{color:#8a5a00}
"""

# Click a header to sort by it (numbers by value, via data-v), again to reverse.
JS = """
document.querySelectorAll("table.data").forEach(function (table) {
  var heads = table.querySelectorAll("th");
  heads.forEach(function (th, col) {
    th.addEventListener("click", function () {
      var asc = !th.classList.contains("asc");
      heads.forEach(function (h) { h.classList.remove("asc", "desc"); });
      th.classList.add(asc ? "asc" : "desc");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[col].getAttribute("data-v"), y = b.cells[col].getAttribute("data-v");
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""


def render(report) -> str:
    """The whole page of a npusim.report.model.Report."""
    e = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             '<link rel="icon" href="data:,">',  # no favicon request
             f"<title>{e(report.title)}</title>", f"<style>{CSS}</style></head><body>",
             f"<h1>{e(report.title)}</h1>", '<dl class="prov" id="provenance">']
    for k, v in report.provenance.items():
        parts.append(f"<dt>{e(str(k))}</dt><dd>{e(str(v))}</dd>")
    parts.append("</dl>")
    parts.append('<h2>Summary</h2><table class="summary" id="summary"><tbody>')
    for item in report.summary:
        parts.append(f'<tr><td>{e(item.label)}</td><td class="v" data-key="{e(item.key)}" '
                     f'data-value="{e(tables.sort_key(item.value))}">{e(item.text)}</td></tr>')
    parts.append("</tbody></table>")
    parts += [f'<p class="note">{e(n)}</p>' for n in report.notes]
    if report.figures:
        parts.append("<h2>Figures</h2>")
    for f in report.figures:
        data = base64.b64encode(f.png).decode("ascii")
        parts.append(f'<figure id="fig-{e(f.name)}"><img alt="{e(f.caption)}" '
                     f'src="data:image/png;base64,{data}"><figcaption>{e(f.caption)} '
                     f'(<a href="{e(f.name)}.svg">SVG</a>, <a href="{e(f.name)}.png">PNG</a>)'
                     f"</figcaption></figure>")
    for name, (caption, frame) in report.tables.items():
        csv = report.csv.get(name)
        link = f' (<a href="{e(csv)}">CSV</a>)' if csv else ""
        parts.append(f"<h2>{e(caption)}</h2><p>{len(frame):,} rows; click a column to sort"
                     f"{link}</p>")
        parts.append(_table(name, tables.shown(frame)))
    parts.append(f"<script>{JS}</script></body></html>")
    return "\n".join(parts)


def _table(name: str, frame) -> str:
    e = html.escape
    cols = list(frame.columns)
    text = {c: not (frame[c].dtype.kind in "iufb") for c in cols}
    out = [f'<div class="scroll"><table class="data" id="table-{e(name)}"><thead><tr>']
    out += [f"<th>{e(str(c))}</th>" for c in cols]
    out.append("</tr></thead><tbody>")
    for row in frame.itertuples(index=False):
        cells = []
        for c, v in zip(cols, row):
            cls = ' class="t"' if text[c] else ""
            cells.append(f'<td{cls} data-v="{e(tables.sort_key(v))}">{e(tables.cell(v))}</td>')
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)
