"""npusim.dse: design-space exploration over Targets x workloads (docs/dse.md): a TOML space
file, Optuna samplers (grid, random, TPE, NSGA-II) and RDB storage, crash-safe resumable runs on
local processes or a Dask cluster, and the results as a pandas DataFrame.

    from npusim import dse
    space = dse.load_space("experiments/dse/edge_sweep.toml")
    dse.run_study(space, jobs=2)
    df = dse.load(space)                       # or dse.load("sqlite:///x.db", "edge-sweep")
    front = dse.pareto_front(df, ["latency_ms", "energy_uj"])"""

from npusim.dse.driver import Interrupted, point_key, run_study
from npusim.dse.errors import DseError, SpaceError, StudyError
from npusim.dse.objectives import OBJECTIVES, Measured, area_mm2, geomean, objective
from npusim.dse.pareto import hypervolume, hypervolume_ratio, non_dominated, pareto_front
from npusim.dse.space import Param, Space, Workload, load_space, parse_space
from npusim.dse.storage import load

__all__ = ["load_space", "parse_space", "run_study", "load", "pareto_front", "hypervolume",
           "hypervolume_ratio", "non_dominated", "objective", "OBJECTIVES", "Measured",
           "area_mm2", "geomean",
           "Space", "Param", "Workload", "point_key", "Interrupted", "DseError", "SpaceError",
           "StudyError"]
