"""npusim.report: pandas tables, matplotlib figures and the self-contained HTML report of a run
(a flow Result, live or saved), a comparison, a baseline and a DSE study.

    from npusim import flow, report
    result = flow.run("resnet18", "npu-edge", resolution=64, trace=True)
    fig = report.layer_cycles(result.layers)             # any figure, on a DataFrame
    index = report.write(report.run_report(result), "out/report")   # index.html + SVG/PNG/CSV

docs/report.md lists every figure and what it reads."""

from npusim.report.build import FORMATS, run_report, study_report, write
from npusim.report.errors import ReportError
from npusim.report.fig_compare import backends
from npusim.report.fig_delta import layer_deltas
from npusim.report.fig_dse import (front_mask, importances, parallel_coordinates,
                                   param_importance, pareto_fronts, sensitivity)
from npusim.report.fig_layers import layer_cycles
from npusim.report.fig_roofline import roofline
from npusim.report.fig_timeline import timeline
from npusim.report.fig_units import unit_breakdown
from npusim.report.frames import compare_frame, delta_frame
from npusim.report.style import save
from npusim.report.tables import run_tables, write_csv

__all__ = ["run_report", "study_report", "write", "FORMATS", "ReportError", "layer_cycles",
           "roofline", "timeline", "unit_breakdown", "backends", "layer_deltas",
           "pareto_fronts", "parallel_coordinates", "param_importance", "sensitivity",
           "importances", "front_mask", "compare_frame", "delta_frame", "save", "write_csv",
           "run_tables"]
