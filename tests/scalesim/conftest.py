"""Where the shared SCALE-Sim sample is (configs, topologies, measured reports), and small
files written for the tests."""

import pytest
from scalesim_sample import SHARED


@pytest.fixture
def shared():
    return SHARED


SCALE_CFG = """[general]
run_name = {name}

[architecture_presets]
ArrayHeight:    {rows}
ArrayWidth:     {cols}
IfmapSramSzkB:   64
FilterSramSzkB:  64
OfmapSramSzkB:   64
IfmapOffset:    0
FilterOffset:   10000000
OfmapOffset:    20000000
Bandwidth : {bw}
Dataflow : {df}
MemoryBanks:   1
ReadRequestBuffer: 32
WriteRequestBuffer: 32

[run_presets]
InterfaceBandwidth: {mode}
UseRamulatorTrace: False
"""


@pytest.fixture
def make_cfg(tmp_path):
    def make(name="t", rows=32, cols=32, bw=10, df="ws", mode="CALC", extra=""):
        p = tmp_path / f"{name}.cfg"
        p.write_text(SCALE_CFG.format(name=name, rows=rows, cols=cols, bw=bw, df=df,
                                      mode=mode) + extra)
        return p
    return make


@pytest.fixture
def make_csv(tmp_path):
    def make(text, name="topo.csv"):
        p = tmp_path / name
        p.write_text(text)
        return p
    return make
