"""SCALE-Sim compatibility: read its configs and topologies, run each layer as a real program
on our NPU model, write its COMPUTE/BANDWIDTH reports with our columns beside (docs/scalesim.md)."""

from .config import ScaleConfig, read_config
from .errors import ScaleSimError
from .reports import report_json, write_reports
from .runner import ScaleRun, run
from .target import config_target
from .topology import Layer, Topology, read_topology

__all__ = ["ScaleConfig", "ScaleRun", "ScaleSimError", "Layer", "Topology", "config_target",
           "read_config", "read_topology", "report_json", "run", "write_reports"]
