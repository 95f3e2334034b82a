"""SCALE-Sim topology CSVs: the conv format (layer, IFMAP H/W, filter H/W, channels, filters,
strides[, sparsity N:M]) and the GEMM format (layer, M, N, K[, N:M]), read as SCALE-Sim 3.0
reads them."""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil
from pathlib import Path

from .errors import ScaleSimError

CONV_COLUMNS = ("IFMAP Height", "IFMAP Width", "Filter Height", "Filter Width", "Channels",
                "Num Filter", "Strides")
GEMM_COLUMNS = ("M", "N", "K")
FORMATS = ("conv", "gemm")


@dataclass(frozen=True)
class Layer:
    """One topology row as SCALE-Sim sees it: a conv without padding whose output is
    ceil((H - R + S) / S) per side (a GEMM row is a conv of a M x K ifmap with N filters of
    1 x K: M output pixels, window K)."""

    name: str
    ifmap_h: int
    ifmap_w: int
    filter_h: int
    filter_w: int
    channels: int
    filters: int
    stride_h: int
    stride_w: int
    kind: str = "conv"    # "gemm": a row of the M,N,K format
    line: int = 0

    @property
    def ofmap_h(self) -> int:
        return ceil((self.ifmap_h - self.filter_h + self.stride_h) / self.stride_h)

    @property
    def ofmap_w(self) -> int:
        return ceil((self.ifmap_w - self.filter_w + self.stride_w) / self.stride_w)

    @property
    def m(self) -> int:
        """Output pixels: the rows of SCALE-Sim's operand matrices."""
        return self.ofmap_h * self.ofmap_w

    @property
    def n(self) -> int:
        return self.filters

    @property
    def k(self) -> int:
        """The window: filter H x W x channels."""
        return self.filter_h * self.filter_w * self.channels

    @property
    def macs(self) -> int:
        return self.m * self.n * self.k


@dataclass(frozen=True)
class Topology:
    name: str
    layers: tuple
    fmt: str
    source: str
    notes: tuple = ()


def _fields(line: str) -> list:
    """SCALE-Sim splits on commas and drops the last field (rows end with a comma); we drop
    trailing empty fields instead, so a row without the trailing comma keeps its last value."""
    out = [f.strip() for f in line.split(",")]
    while out and out[-1] == "":
        out.pop()
    return out


def _ints(where: str, names: tuple, values: list) -> list:
    out = []
    for name, v in zip(names, values):
        try:
            out.append(int(v))
        except ValueError:
            raise ScaleSimError(f"{where}: {name} = {v!r} is not an integer") from None
        if out[-1] < 1:
            raise ScaleSimError(f"{where}: {name} = {out[-1]} must be >= 1")
    return out


def read_topology(path: str | Path, fmt: str = "conv") -> Topology:
    """Read a topology CSV as SCALE-Sim does: the first line is a header, blank lines are
    skipped, fields are stripped; a row that cannot be a layer is a ScaleSimError naming the
    file, line and column."""
    path = Path(path)
    if fmt not in FORMATS:
        raise ScaleSimError(f"topology format {fmt!r}: use one of {', '.join(FORMATS)}")
    if not path.is_file():
        raise ScaleSimError(f"topology {path}: no such file; give a SCALE-Sim topology CSV")
    lines = path.read_text().splitlines()
    columns = CONV_COLUMNS if fmt == "conv" else GEMM_COLUMNS
    layers, extra, sparse = [], set(), set()
    for number, line in enumerate(lines[1:], start=2):
        fields = _fields(line)
        if not fields:
            continue
        where = f"{path}:{number}"
        if len(fields) < 1 + len(columns):
            hint = ("; a M,N,K file needs -i gemm" if fmt == "conv" and len(fields) == 4
                    else "")
            raise ScaleSimError(f"{where}: {len(fields)} fields; the {fmt} format needs "
                                f"{1 + len(columns)} (Layer name, {', '.join(columns)}){hint}")
        name = fields[0] or f"layer{len(layers)}"
        if fmt == "gemm":
            m, n, k = _ints(where, columns, fields[1:4])
            rest = fields[4:]
            found = [Layer(name, m, k, 1, k, 1, n, 1, 1, kind="gemm", line=number)]
        else:
            h, w, fh, fw, c, nf, s = _ints(where, columns, fields[1:8])
            rest = fields[8:]
            if fh > h or fw > w:
                raise ScaleSimError(f"{where}: filter {fh}x{fw} is larger than the IFMAP "
                                    f"{h}x{w}; SCALE-Sim pads nothing")
            # SCALE-Sim 3.0 uses the one stride for both directions
            found = [Layer(name, h, w, fh, fw, c, nf, s, s, line=number)]
            if "DP" in name:
                # its depthwise convention: a name with "DP" is one 1-channel layer per channel
                found = [Layer(f"{name}Channel_{i}", h, w, fh, fw, 1, nf, s, s, line=number)
                         for i in range(c)]
        if rest:
            # SCALE-Sim 3.0 reads the next column as a sparsity ratio N:M (1:1 dense)
            if rest[0].replace(" ", "") not in ("1:1", ""):
                sparse.add(number)
            if len(rest) > 1:
                extra.add(number)
        layers.extend(found)
    if not layers:
        raise ScaleSimError(f"topology {path}: no layers after the header line")
    notes = []
    if sparse:
        notes.append(f"{path}: sparsity ratios (the column after {columns[-1]}) are not "
                     f"modelled, run dense, on line(s) {', '.join(map(str, sorted(sparse)))}")
    if extra:
        notes.append(f"{path}: columns after the sparsity ratio ignored on line(s) "
                     f"{', '.join(map(str, sorted(extra)))}")
    name = path.stem
    return Topology(name, tuple(layers), fmt, str(path), tuple(notes))
