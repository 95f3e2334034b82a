"""The per-layer table of a simulated artifact and the run summary `npusim run` prints."""

from __future__ import annotations

import numpy as np


def layer_table(artifact, result) -> list:
    """One row per layer: name, MACs, cycles, utilization, DRAM bytes, bound, roofline.

    Layers may overlap (their ops interleave); a layer's cycles are those from the end of the
    layers before it to its own end, so the rows sum to the total."""
    df = result.trace
    target = result.target
    n = len(artifact.layers)
    layer = np.full(len(df), -1, np.int64)
    cores, idx = df["core"].to_numpy(), df["index"].to_numpy()
    for c, runs in enumerate(artifact.layer_of):
        if not runs:
            continue
        starts = np.array([r[0] for r in runs])
        ids = np.array([r[1] for r in runs])
        sel = cores == c
        pos = np.searchsorted(starts, idx[sel], side="right") - 1
        layer[sel] = np.where(pos >= 0, ids[np.maximum(pos, 0)], -1)
    df = df.assign(layer=layer, dur=df["end"] - df["start"])
    dma = df["unit"].str.startswith("dma")
    peak = target.derived.peak_macs_per_cycle
    rows, done = [], 0
    for i, info in enumerate(artifact.layers):
        d = df[df["layer"] == i]
        end = int(d["end"].max()) if len(d) else done
        cycles = max(0, end - done)
        done = max(done, end)
        nbytes = int(d.loc[dma[d.index], "bytes"].sum()) if len(d) else 0
        busy = {"matrix": int(d.loc[d["unit"] == "matrix", "dur"].sum()),
                "vector": int(d.loc[d["unit"] == "vector", "dur"].sum()),
                "memory": nbytes / target.dram_bw}
        macs = int(info["macs"])  # the model's MACs (executed ones include zero weights)
        rows.append({"name": info["name"], "kind": info["kind"], "macs": macs,
                     "cycles": cycles, "utilization": macs / (cycles * peak) if cycles else 0.0,
                     "dram_bytes": nbytes,
                     "bound": "memory" if busy["memory"] >= max(busy["matrix"], busy["vector"])
                     else "compute",
                     "roofline_cycles": round(info["roofline_cycles"], 1),
                     "est_cycles": info.get("est_cycles"), "schedule": info.get("schedule", "")})
    assert len(rows) == n
    return rows


def summary(compiled, result, checks: dict | None, model: str, compile_s: float) -> dict:
    art, t = compiled.artifact, result.target
    rows = layer_table(art, result)
    roof = sum(r["roofline_cycles"] for r in rows)
    checks = checks or {}
    from isa.checks import target_name
    return {"model": model, "target": target_name(t), "cycles": int(result.cycles),
            "latency_ms": result.cycles / (t.freq_mhz * 1e3), "roofline_cycles": round(roof, 1),
            "roofline_ratio": result.cycles / roof if roof else None,
            "utilization": sum(r["macs"] for r in rows) / (result.cycles * t.derived.
                                                           peak_macs_per_cycle),
            "verified": checks.get("verified"),
            "bit_exact": checks.get("bit_exact"), "top1_agree": checks.get("top1_agree"),
            "snr_db": checks.get("snr_db"), "reference": checks.get("reference"),
            "energy_pj": result.energy_pj["total"], "sim_wall_s": result.sim_wall_s,
            "compile_s": compile_s, "instructions": int(result.instructions),
            "dram_bytes": int(sum(result.dram_bytes.values())), "timing_only": result.timing_only,
            "layers": rows}


def format_report(s: dict) -> str:
    """The per-layer table and the totals `npusim run` prints."""
    head = f"{'layer':<22} {'kind':<6} {'MACs':>13} {'cycles':>10} {'util':>6} " \
           f"{'DRAM B':>11} {'bound':>7} {'roofline':>10} {'x roof':>6}"
    lines = [head, "-" * len(head)]
    for r in s["layers"]:
        ratio = f"{r['cycles'] / r['roofline_cycles']:>6.2f}" if r["roofline_cycles"] \
            else f"{'-':>6}"  # a rewrite's copy: not a model layer, no bound of its own
        lines.append(f"{r['name'][:22]:<22} {r['kind']:<6} {r['macs']:>13,} {r['cycles']:>10,} "
                     f"{r['utilization']:>6.1%} {r['dram_bytes']:>11,} {r['bound']:>7} "
                     f"{r['roofline_cycles']:>10,.0f} {ratio}")
    lines.append("-" * len(head))
    fmt = lambda v, f: "n/a" if v is None else format(v, f)  # noqa: E731
    lines += [
        f"model {s['model']} on {s['target']}",
        f"cycles {s['cycles']:,}  latency {s['latency_ms']:.3f} ms  roofline "
        f"{s['roofline_cycles']:,.0f} cycles ({fmt(s['roofline_ratio'], '.3f')}x)  utilization "
        f"{s['utilization']:.1%}",
        f"energy {s['energy_pj'] / 1e6:,.2f} uJ  DRAM {s['dram_bytes']:,} B  instructions "
        f"{s['instructions']:,}",
        f"verified {'yes' if s['verified'] else 'no' if s['verified'] is not None else 'n/a'}"
        + (f" (bit-exact vs integer reference: {fmt(s['bit_exact'], '')}; vs {s['reference']}: "
           f"top-1 agreement {fmt(s['top1_agree'], '.0%')}, SNR {fmt(s['snr_db'], '.1f')} dB)"
           if s["reference"] else " (no reference: timing only, or a saved artifact)"),
        f"compile {s['compile_s']:.1f} s  simulation {s['sim_wall_s']:.1f} s (wall)"]
    return "\n".join(lines)
