"""One point's evaluation, as a worker runs it: each workload compiled for the point's Target
(reusing the front half and, across attributes codegen never reads, the program) and simulated
timing-only; -> a plain, picklable record with its status, objectives and provenance."""

from __future__ import annotations

import math
import os
import socket
import time
from collections import OrderedDict

from npusim.dse import objectives as obj
from npusim.dse import provenance

# Attributes the compiler never reads (its cost model and codegen read every other one, the
# timing ones included: tile choices weigh dram-bw, dram-latency, dma-setup, lanes...), so a
# program built for one value runs unchanged, and is reused, for another. docs/dse.md lists
# every attribute. (dram-mb is read only as a capacity check, but a program built for more DRAM
# may not run on less, so it is not reused across it.)
NOT_READ_BY_CODEGEN = ("freq_mhz", "energy_mac_pj", "energy_sram_byte_pj",
                       "energy_dram_byte_pj", "energy_vector_op_pj", "static_mw")
PROGRAM_CACHE = 8  # compiled programs kept per worker process (a ResNet-50 one is ~30 MB)

_FRONT: dict = {}                   # (model, resolution) -> QuantizedModule (int8 front half)
_PROGRAMS: OrderedDict = OrderedDict()  # (model, resolution, codegen key) -> Compiled


def codegen_key(target) -> str:
    """The Target with the attributes codegen never reads set to their defaults: points with
    equal keys run the same program."""
    defaults = {k: target.spec.attr(k).default for k in NOT_READ_BY_CODEGEN}
    return str(target.with_attrs(**defaults))


def compile_for(model: str, resolution, target):
    """(Compiled for `target`, whether it was reused from an earlier point)."""
    from npusim import flow
    key = (model, resolution, codegen_key(target))
    hit = _PROGRAMS.get(key)
    if hit is not None:
        _PROGRAMS.move_to_end(key)
        return hit, True
    front = _FRONT.get((model, resolution)) if target.dtype == "int8" else None
    if front is not None:  # the quantized module in memory: no cache file to read again
        compiled = flow.compile(front, target)
    else:
        compiled = flow.compile(model, target, resolution=resolution)
        if compiled.module is not None:
            _FRONT[(model, resolution)] = compiled.module
    _PROGRAMS[key] = compiled
    while len(_PROGRAMS) > PROGRAM_CACHE:
        _PROGRAMS.popitem(last=False)
    return compiled, False


def _one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


def measure(workload: dict, target) -> tuple:
    """Compile (or reuse) and simulate one workload timing-only: (Measured, details). The
    step below flow.simulate: no per-layer table and no trace (a fifth of a point's time),
    the same cycles and energy."""
    from npusim import flow
    t0 = time.perf_counter()
    compiled, reused = compile_for(workload["model"], workload["resolution"], target)
    t1 = time.perf_counter()
    sim, _ = flow.execute(compiled.artifact, None, target, timing_only=True, trace=False)
    t2 = time.perf_counter()
    area, area_error = point_area_cached(str(target), target)
    m = obj.Measured(cycles=int(sim.cycles), latency_ms=sim.cycles / (target.freq_mhz * 1e3),
                     energy_pj=float(sim.energy_pj["total"]),
                     macs=sum(int(lay["macs"]) for lay in compiled.artifact.layers),
                     dram_bytes=int(sum(sim.dram_bytes.values())), target=target,
                     area_mm2=area, area_error=area_error)
    return m, {"compile_s": round(t1 - t0, 4), "sim_s": round(t2 - t1, 4),
               "program_reused": reused}


_AREA: dict = {}


def point_area_cached(text: str, target) -> tuple:
    if text not in _AREA:
        _AREA[text] = obj.point_area(target)
    return _AREA[text]


def evaluate(task: dict) -> dict:
    """Evaluate one point. task: number, key, target (full string), workloads (dicts of model,
    resolution, label), objectives, constraints, seed. Never raises for the point's own
    failures: they are its status (infeasible: the Target or compiler refused it, or it broke
    a constraint; failed: anything else, with the error)."""
    from isa.errors import NpusimError
    from isa.target import Target
    from npusim.faults import SimulationFault
    t0, cpu0 = time.perf_counter(), time.process_time()
    record = {"number": task["number"], "key": task["key"], "target": task["target"],
              "status": "ok", "reason": "", "values": {}, "per": {}, "constraints": [],
              "details": {}, "provenance": _provenance(task),
              "worker": f"{socket.gethostname()}:{os.getpid()}"}
    measured = {}
    label = None
    try:
        target = Target.create(task["target"])
        for w in task["workloads"]:
            label = w["label"]
            measured[label], record["details"][label] = measure(w, target)
    except SimulationFault as e:  # the program the compiler made broke: a bug, not the point
        record.update(status="failed", reason=f"{label}: {type(e).__name__}: {_one_line(e)}")
    except NpusimError as e:  # the Target, the compiler or the runtime refused the point
        where = f"{label}: " if label else ""
        record.update(status="infeasible", reason=where + _one_line(e))
    except Exception as e:  # noqa: BLE001 - a crash inside one point is that point's result
        where = f"{label}: " if label else ""
        record.update(status="failed", reason=f"{where}{type(e).__name__}: {_one_line(e)}")
    if record["status"] == "ok":
        agg, per = obj.evaluate_all(measured)
        record["values"], record["per"] = agg, per
        _judge(record, task, next(iter(measured.values())))
    record["wall_s"] = round(time.perf_counter() - t0, 4)
    record["cpu_s"] = round(time.process_time() - cpu0, 4)  # this process's CPU: load-proof
    return record


def _judge(record: dict, task: dict, any_measured) -> None:
    """Status from the study's objectives and constraints (Optuna's convention for the
    constraint values: <= 0 is satisfied)."""
    values = record["values"]
    for name in list(task["objectives"]) + list(task["constraints"]):
        if math.isnan(values[name]):
            why = any_measured.area_error if name in ("area_mm2", "throughput_per_mm2") \
                and any_measured.area_error else f"{name} is not a number"
            record.update(status="failed", reason=why)
            return
    broken = []
    for name, bound in task["constraints"].items():
        v = values[name]
        if "max" in bound:
            record["constraints"].append(v - bound["max"])
            if v > bound["max"]:
                broken.append(f"{name} = {v:.6g} > max {bound['max']:g}")
        if "min" in bound:
            record["constraints"].append(bound["min"] - v)
            if v < bound["min"]:
                broken.append(f"{name} = {v:.6g} < min {bound['min']:g}")
    if broken:
        record.update(status="infeasible", reason="constraint " + "; ".join(broken))


def _provenance(task: dict) -> dict:
    return {"npusim_version": provenance.npusim_version(), "git_commit": provenance.git_commit(),
            "seed": task["seed"],
            "workload_hash": {w["label"]: provenance.workload_hash(w["model"], w["resolution"])
                              for w in task["workloads"]}}
