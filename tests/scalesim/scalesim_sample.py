"""Where the SCALE-Sim sample is: tests/scalesim/sample, a copy of SCALE-Sim v3's shipped configs
and topologies with the reports SCALE-Sim 3.0.0 printed for some of them (its README says which)."""

from pathlib import Path

SHARED = Path(__file__).resolve().with_name("sample")
