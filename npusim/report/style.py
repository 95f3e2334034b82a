"""The look of every report figure: headless figures (Agg canvas, no pyplot state), slide-size
fonts, the colour of each cause, and writing a figure as SVG + PNG."""

from __future__ import annotations

import functools
import io
from pathlib import Path

import matplotlib as mpl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

SLIDE = (12.0, 6.0)          # inches: a 16:9 slide's content area at readable font sizes
PNG_DPI = 110
RC = {"font.size": 13, "axes.titlesize": 15, "axes.labelsize": 13, "legend.fontsize": 11,
      "xtick.labelsize": 11, "ytick.labelsize": 11, "axes.grid": True, "grid.alpha": 0.3,
      "svg.fonttype": "path", "svg.hashsalt": "npusim",  # SVG text as paths: no font needed
      "figure.autolayout": False}

# One colour per cause, shared by the per-layer and the per-unit figures.
CAUSE_COLORS = {"compute": "#2a7ab9", "dma": "#7fb8e0", "dram": "#d95f02", "token": "#e7b41f",
                "queue": "#7570b3", "barrier": "#b07aa1", "idle": "#c8c8c8"}
CAUSE_LABELS = {"compute": "compute", "dma": "DMA transfer", "dram": "DRAM stall",
                "token": "sync wait (tokens)", "queue": "queue full", "barrier": "barrier wait",
                "idle": "idle"}
THOUSANDS = FuncFormatter(lambda v, _: f"{v:,.0f}")  # cycle axes: 250,000 rather than 2.5e5
GOOD, BAD, GREY = "#1b9e77", "#d95f02", "#b0b0b0"


def styled(draw):
    """Decorator: run a figure function under the report style (fonts, grid)."""
    @functools.wraps(draw)
    def wrapper(*args, **kwargs):
        with mpl.rc_context(RC):
            return draw(*args, **kwargs)
    return wrapper


def figure(nrows: int = 1, ncols: int = 1, size: tuple = SLIDE, **kw):
    """A new (figure, axes): a plain Figure on an Agg canvas, so drawing needs no display and
    touches no pyplot state (a notebook's own backend is left alone)."""
    with mpl.rc_context(RC):
        fig = Figure(figsize=size)
        FigureCanvasAgg(fig)
        axes = fig.subplots(nrows, ncols, **kw)
    return fig, axes


def finish(fig) -> None:
    """Lay the figure out in the report style."""
    with mpl.rc_context(RC):
        fig.tight_layout()


def to_bytes(fig, fmt: str) -> bytes:
    """The figure as 'svg' or 'png' bytes."""
    buf = io.BytesIO()
    with mpl.rc_context(RC):
        fig.savefig(buf, format=fmt, dpi=PNG_DPI, metadata=_METADATA[fmt], bbox_inches="tight")
    return buf.getvalue()


# No dates or versions inside the files: the same figure gives the same bytes.
_METADATA = {"svg": {"Date": None, "Creator": "npusim"}, "png": {"Software": "npusim"}}


def save(fig, directory, name: str) -> dict:
    """Write `fig` as DIR/NAME.svg and DIR/NAME.png (atomically); -> {'svg': path, 'png': path,
    'svg_bytes': ..., 'png_bytes': ...}."""
    from isa.files import write_atomic
    directory = Path(directory)
    out = {}
    for fmt in ("svg", "png"):
        data = to_bytes(fig, fmt)
        write_atomic(directory / f"{name}.{fmt}", data)
        out[fmt], out[f"{fmt}_bytes"] = directory / f"{name}.{fmt}", data
    return out
