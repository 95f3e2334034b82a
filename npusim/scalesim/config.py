"""SCALE-Sim 3.0 config files (.cfg, INI): every key it reads, checked, with notes for the
keys and values we read but do not model."""

from __future__ import annotations

import configparser
from dataclasses import dataclass, field
from pathlib import Path

from .errors import ScaleSimError

# section -> the keys SCALE-Sim 3.0 reads there (configparser lower-cases keys)
KNOWN = {
    "general": ("run_name",),
    "architecture_presets": (
        "arrayheight", "arraywidth", "ifmapsramszkb", "filtersramszkb", "ofmapsramszkb",
        "ifmapoffset", "filteroffset", "ofmapoffset", "dataflow", "bandwidth", "memorybanks",
        "readrequestbuffer", "writerequestbuffer", "onchipmemorybanks", "onchipmemorybankports"),
    "run_presets": ("interfacebandwidth", "useramulatortrace"),
    "layout": ("ifmapcustomlayout", "ifmapsrambankbandwidth", "ifmapsrambanknum",
               "ifmapsrambankport", "filtercustomlayout", "filtersrambankbandwidth",
               "filtersrambanknum", "filtersrambankport"),
    "sparsity": ("sparsitysupport", "sparserep", "optimizedmapping", "blocksize",
                 "randomnumbergeneratorseed"),
    "network_presets": ("topologycsvloc",),
}
DATAFLOWS = ("ws", "os")          # modelled; SCALE-Sim's third, "is", is not
BANDWIDTH_MODES = ("CALC", "USER")
# keys whose value changes what SCALE-Sim does in a way we do not model, and the value
# that means "off" (any other value gets a note)
UNMODELLED_WHEN = {
    ("run_presets", "useramulatortrace"): "false",
    ("layout", "ifmapcustomlayout"): "false",
    ("layout", "filtercustomlayout"): "false",
    ("sparsity", "sparsitysupport"): "false",
    ("architecture_presets", "memorybanks"): "1",
    ("architecture_presets", "onchipmemorybanks"): "1",
}


@dataclass(frozen=True)
class ScaleConfig:
    """What a SCALE-Sim config says about the hardware, in SCALE-Sim's units (KiB, words of
    one byte per cycle)."""

    run_name: str
    array_rows: int                 # ArrayHeight
    array_cols: int                 # ArrayWidth
    ifmap_sram_kb: int
    filter_sram_kb: int
    ofmap_sram_kb: int
    dataflow: str = "ws"
    bandwidth_mode: str = "CALC"    # CALC: memory never stalls; USER: `bandwidth` words/cycle
    bandwidths: tuple = ()
    offsets: tuple = (0, 10000000, 20000000)
    source: str = "<config>"
    notes: tuple = field(default=(), compare=False)

    @property
    def user_bandwidth(self) -> int | None:
        """The DRAM bandwidth SCALE-Sim uses in USER mode (its first Bandwidth value)."""
        return self.bandwidths[0] if self.bandwidth_mode == "USER" else None


def _int(where: str, key: str, text: str, lo: int = 0) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise ScaleSimError(f"{where}: {key} = {text.strip()!r} is not an integer") from None
    if value < lo:
        raise ScaleSimError(f"{where}: {key} = {value} must be >= {lo}")
    return value


def read_config(path: str | Path) -> ScaleConfig:
    """Read a SCALE-Sim config; a missing file, key or bad value is a ScaleSimError naming it,
    unknown keys and unmodelled settings are one note each (ScaleConfig.notes)."""
    path = Path(path)
    if not path.is_file():
        raise ScaleSimError(f"config {path}: no such file; give a SCALE-Sim .cfg file "
                            "(e.g. scale-sim's configs/scale.cfg)")
    parser = configparser.ConfigParser()
    try:
        parser.read_string(path.read_text(), source=str(path))
    except (configparser.Error, UnicodeDecodeError) as e:
        raise ScaleSimError(f"config {path}: not an INI file SCALE-Sim can read: "
                            f"{str(e).splitlines()[0]}") from None
    return parse_config(parser, str(path))


def parse_config(parser: configparser.ConfigParser, where: str) -> ScaleConfig:
    notes = []
    for section in parser.sections():
        if section not in KNOWN:
            notes.append(f"{where}: section [{section}] is not a SCALE-Sim 3.0 section; ignored")
            continue
        for key in parser[section]:
            if key not in KNOWN[section]:
                notes.append(f"{where}: [{section}] {key} is not a SCALE-Sim 3.0 key; ignored")
    for (section, key), off in UNMODELLED_WHEN.items():
        value = parser.get(section, key, fallback=off).strip()
        if value.lower() != off:
            notes.append(f"{where}: [{section}] {key} = {value} is not modelled; run as if "
                         f"{off}")

    def get(section, key, default=None):
        if parser.has_option(section, key):
            return parser.get(section, key)
        if default is None:
            raise ScaleSimError(f"{where}: [{section}] has no {key}; SCALE-Sim needs it")
        return default

    arch = "architecture_presets"
    rows = _int(where, "ArrayHeight", get(arch, "arrayheight"), 1)
    cols = _int(where, "ArrayWidth", get(arch, "arraywidth"), 1)
    srams = [_int(where, name, get(arch, name.lower()), 1)
             for name in ("IfmapSramSzkB", "FilterSramSzkB", "OfmapSramSzkB")]
    offsets = tuple(_int(where, name, get(arch, name.lower(), str(default)))
                    for name, default in (("IfmapOffset", 0), ("FilterOffset", 10000000),
                                          ("OfmapOffset", 20000000)))
    dataflow = get(arch, "dataflow", "ws").strip().lower()
    if dataflow == "is":
        raise ScaleSimError(f"{where}: Dataflow = is (input stationary) is not modelled; "
                            f"use one of {', '.join(DATAFLOWS)}")
    if dataflow not in DATAFLOWS:
        raise ScaleSimError(f"{where}: Dataflow = {dataflow!r} is not a SCALE-Sim dataflow; "
                            f"use one of {', '.join(DATAFLOWS)}")
    mode = get("run_presets", "interfacebandwidth", "CALC").strip()
    if mode not in BANDWIDTH_MODES:
        raise ScaleSimError(f"{where}: InterfaceBandwidth = {mode!r}; use CALC (memory never "
                            "stalls) or USER (Bandwidth words per cycle)")
    bandwidths = ()
    if mode == "USER":
        text = get(arch, "bandwidth")
        bandwidths = tuple(_int(where, "Bandwidth", x, 1) for x in text.split(","))
        if len(bandwidths) > 1:
            notes.append(f"{where}: Bandwidth = {text.strip()}: SCALE-Sim uses the first "
                         f"value, {bandwidths[0]}; so do we")
    return ScaleConfig(run_name=get("general", "run_name", "scale_run").strip(),
                       array_rows=rows, array_cols=cols, ifmap_sram_kb=srams[0],
                       filter_sram_kb=srams[1], ofmap_sram_kb=srams[2], dataflow=dataflow,
                       bandwidth_mode=mode, bandwidths=bandwidths, offsets=offsets,
                       source=where, notes=tuple(notes))
