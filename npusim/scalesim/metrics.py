"""One simulated layer's numbers in SCALE-Sim 3.0's report columns (their meanings, counted on
our program's instructions) and in ours (DMA, vector, sync, stalls by cause, energy)."""

from __future__ import annotations

from isa.checks import reset_registers
from isa.operands import cycle_operands
from isa.spec import load_spec
from isa.timing import HwParams, conv_passes

MATRIX = ("gemm", "conv")
SYNC = ("signal", "wait", "barrier", "gbarrier")
CAUSES = ("stall_token", "stall_dram", "stall_queue", "stall_barrier")

COMPUTE_COLUMNS = ("LayerID", "Total Cycles (incl. prefetch)", "Total Cycles", "Stall Cycles",
                   "Overall Util %", "Mapping Efficiency %", "Compute Util %")
BANDWIDTH_COLUMNS = ("LayerID", "Avg IFMAP SRAM BW", "Avg FILTER SRAM BW", "Avg OFMAP SRAM BW",
                     "Avg IFMAP DRAM BW", "Avg FILTER DRAM BW", "Avg OFMAP DRAM BW")
OUR_COMPUTE = ("Layer", "Compute Cycles", "MACs", "Matrix Instructions", "DMA Cycles",
               "Vector Cycles", "Sync Cycles", "Array Wait Cycles", "Stall Token Cycles",
               "Stall DRAM Cycles", "Stall Queue Cycles", "Stall Barrier Cycles", "DRAM Bytes",
               "Energy uJ")
OUR_BANDWIDTH = ("Layer", "IFMAP DRAM Bytes", "FILTER DRAM Bytes", "OFMAP DRAM Bytes",
                 "DRAM BW Achieved", "DRAM BW Limit")


def _matrix_operands(program) -> dict:
    """instruction index -> the cycle-rule operands of each matrix instruction of core 0
    (a conv's oh, ow, kh, kw come from the matrix unit's registers at that point)."""
    spec = load_spec()
    units, reg_names = spec.enums["unit"].names, spec.enums["reg"].names
    regs, out = reset_registers(), {}
    for i, ins in enumerate(program.instructions(0)):
        if ins.mnemonic == "cfg" and units[ins["unit"]] == "matrix":
            regs[reg_names[ins["reg"]]] = ins["value"]
        elif ins.mnemonic in MATRIX:
            out[i] = cycle_operands(ins, regs)
    return out


def _passes(mnemonic: str, ops: dict, hw: HwParams, dataflow: str) -> list:
    """(depth k, columns n, rows m, cycles) of each fold of one matrix instruction, as our
    array runs it: SCALE-Sim's folds. ws: one pass per block of R reduction rows (a conv:
    per kernel tap and block of R channels), m input rows streamed past stationary weights.
    os: one fold per R output rows, the whole depth k streamed (a conv: kh * kw * cin)."""
    fill = hw.array_rows + hw.array_cols - 1
    if mnemonic == "gemm":
        k, n, m = ops["k"], ops["n"], ops["m"]
        depths = [k]
    else:
        k, n, m = ops["kh"] * ops["kw"] * ops["cin"], ops["cout"], ops["m"]
        depths = conv_passes(hw, ops["kh"], ops["kw"], ops["cin"])
    if dataflow == "os":
        rows = [min(hw.array_rows, m - r) for r in range(0, m, hw.array_rows)]
        return [(k, n, r, k + fill) for r in rows]
    return [(kp, n, m, kp + m + fill) for kp in depths]


def _window(rows) -> int:
    return int(rows.end.max() - rows.start.min() + 1) if len(rows) else 0


def measure(layer, compiled, result) -> dict:
    """{"compute": SCALE-Sim's compute row, "bandwidth": its bandwidth row, "ours_compute",
    "ours_bandwidth": our columns} of one layer run alone (the LayerID is the caller's)."""
    target = compiled.target
    hw = HwParams.from_target(target)
    pes = hw.array_rows * hw.array_cols
    trace = result.trace
    trace = trace[trace.core == 0]
    work = (trace.end - trace.start - trace.stall)
    operands = _matrix_operands(compiled.artifact.program)
    mat = trace[trace.mnemonic.isin(MATRIX)]
    array = int(work.loc[mat.index].sum())
    dataflow = getattr(target, "dataflow", "ws")
    passes = [p for i, mn in zip(mat["index"], mat.mnemonic)
              for p in _passes(mn, operands[i], hw, dataflow)]
    # SCALE-Sim's per-fold averages: PEs holding work (ws: k x n weights; os: m x n outputs)
    # and MACs over PE-cycles of the fold
    used = [(k * n if dataflow == "ws" else m * n) for k, n, m, _ in passes]
    mapping = sum(used) / (pes * len(passes))
    util = sum(k * n * m / (pes * cyc) for k, n, m, cyc in passes) / len(passes)
    span = int(mat.end.max() - mat.start.min())
    on_matrix = trace[trace.unit == "matrix"]
    inside = on_matrix[(on_matrix.start >= mat.start.min()) & (on_matrix.end <= mat.end.max())]
    units = result.units.drop(index=[u for u in result.units.index if u.endswith("dispatch")])
    dma = units[[u.rsplit(".", 1)[-1].startswith("dma") for u in units.index]]
    program = compiled.artifact.program.instructions(0)
    bufs = load_spec().enums["buf"].names
    loads = trace[trace.mnemonic == "load"]
    to_ibuf = loads[[bufs[program[i]["buf"]] == "ibuf" for i in loads["index"]]]
    to_filter = loads.drop(index=to_ibuf.index)
    stores = trace[trace.mnemonic == "store"]
    sync = trace[trace.mnemonic.isin(SYNC)]

    ifmap_reads = sum(k * m for k, _, m, _ in passes)
    filter_reads = sum(k * n for k, n, _, _ in passes)
    ofmap_writes = sum(n * m for _, n, m, _ in passes)
    io = {name: int(rows.bytes.sum()) for name, rows in
          (("ifmap", to_ibuf), ("filter", to_filter), ("ofmap", stores))}
    # SCALE-Sim 3.0: Total Cycles = its compute cycles + its stall cycles, from the array's
    # first demand to its last (the prefetch before and the ofmap drain after are outside)
    compute = {"Total Cycles (incl. prefetch)": int(result.cycles), "Total Cycles": span,
               "Stall Cycles": span - array,
               "Overall Util %": 100.0 * layer.macs / (span * pes),
               "Mapping Efficiency %": 100.0 * mapping, "Compute Util %": 100.0 * util}
    bandwidth = {"Avg IFMAP SRAM BW": ifmap_reads / span,
                 "Avg FILTER SRAM BW": filter_reads / span,
                 "Avg OFMAP SRAM BW": ofmap_writes / span,
                 "Avg IFMAP DRAM BW": io["ifmap"] / max(1, _window(to_ibuf)),
                 "Avg FILTER DRAM BW": io["filter"] / max(1, _window(to_filter)),
                 "Avg OFMAP DRAM BW": io["ofmap"] / max(1, _window(stores))}
    ours = {"Layer": layer.name, "Compute Cycles": array, "MACs": layer.macs,
            "Matrix Instructions": len(mat), "DMA Cycles": int(dma.busy.sum()),
            "Vector Cycles": int(units.loc[[u for u in units.index
                                            if u.endswith("vector")], "busy"].sum()),
            "Sync Cycles": int(work.loc[sync.index].sum()),
            "Array Wait Cycles": int(inside.stall.sum())}
    for cause in CAUSES:
        ours[f"Stall {cause[6:].capitalize()} Cycles".replace("Dram", "DRAM")] = \
            int(units[cause].sum())
    ours["DRAM Bytes"] = int(sum(result.sim.dram_bytes.values()))
    ours["Energy uJ"] = result.energy_pj / 1e6
    ours_bw = {"Layer": layer.name, "IFMAP DRAM Bytes": io["ifmap"],
               "FILTER DRAM Bytes": io["filter"], "OFMAP DRAM Bytes": io["ofmap"],
               "DRAM BW Achieved": float(result.sim.dram_bw_achieved),
               "DRAM BW Limit": int(target.dram_bw)}
    return {"compute": compute, "bandwidth": bandwidth, "ours_compute": ours,
            "ours_bandwidth": ours_bw}
