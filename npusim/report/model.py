"""Report: what one report holds (title, provenance, summary, figures, tables), before a writer
turns it into HTML or Markdown."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd


@dataclass
class SummaryItem:
    key: str         # a stable name (the HTML's data-key): cycles, latency_ms, ...
    label: str       # what a person reads
    text: str        # the value as shown
    value: object    # the raw value (the HTML's data-value), for checks


@dataclass
class FigureEntry:
    name: str        # file stem: NAME.svg, NAME.png
    caption: str
    png: bytes
    svg: bytes


@dataclass
class Report:
    title: str
    provenance: dict
    summary: list = field(default_factory=list)      # SummaryItem
    figures: list = field(default_factory=list)      # FigureEntry
    tables: dict = field(default_factory=dict)       # name -> (caption, DataFrame)
    notes: list = field(default_factory=list)        # lines said under the summary
    csv: dict = field(default_factory=dict)          # name -> CSV file name beside the index
    csv_frames: dict = field(default_factory=dict)   # name -> DataFrame written as CSV only

    def add_figure(self, name: str, caption: str, fig) -> None:
        from npusim.report import style
        self.figures.append(FigureEntry(name, caption, style.to_bytes(fig, "png"),
                                        style.to_bytes(fig, "svg")))

    def add_table(self, name: str, caption: str, frame: pd.DataFrame) -> None:
        self.tables[name] = (caption, frame)
