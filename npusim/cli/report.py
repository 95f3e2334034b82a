"""The text form of `npusim run`: the per-layer table and the totals of a Result.to_json()."""

from __future__ import annotations


NAME = 20  # layer-name column: the zoo's longest names fit; the table stays under 120 columns


def compact(v) -> str:
    """A count in at most 6 characters: 9,999 / 61.2k / 123k / 12.3M (--json has them exact)."""
    if v is None:
        return "-"
    v = float(v)
    for limit, div, unit in ((1e4, 1, ""), (1e6, 1e3, "k"), (1e9, 1e6, "M"), (1e12, 1e9, "G")):
        if abs(v) < limit:
            if not unit:
                return f"{v:,.0f}"
            return f"{v / div:.{1 if abs(v) < 100 * div else 0}f}{unit}"
    return f"{v:.2e}"


def top_stall(stalls: dict | None) -> str:
    """The cause the layer's instructions waited on most, with its cycles ("token 12.3k")."""
    if not stalls or not any(stalls.values()):
        return "-"
    cause = max(stalls, key=stalls.get)
    return f"{cause} {compact(stalls[cause])}"


def layer_ratio(r: dict) -> str:
    """cycles / roofline, 6 wide. A share below the bound means the layer's work ran under
    its neighbours' (no layer's work takes less than its roofline): printed `hidden`, not
    a ratio below 1. A rewrite's copy is no model layer and has no bound of its own: `-`."""
    if not r["roofline_cycles"]:
        return f"{'-':>6}"
    if r["cycles"] < r["roofline_cycles"]:
        return f"{'hidden':>6}"
    return f"{r['cycles'] / r['roofline_cycles']:>6.2f}"


def format_report(s: dict) -> str:
    """The per-layer table and the totals `npusim run` prints: per layer its share of the run
    (cycles partition it, docs/layers.md), first start, last end, the cycles of that span other
    layers overlapped, and the stall cause its instructions waited on most."""
    head = (f"{'layer':<{NAME}} {'kind':<5} {'MACs':>7} {'cycles':>10} {'util':>6} "
            f"{'DRAM B':>7} {'bound':<7} {'roof':>7} {'x roof':>6} {'start':>7} {'end':>7} "
            f"{'overlap':>7} top stall")
    lines = [head, "-" * (len(head) + 3)]
    for r in s["layers"]:
        ratio = layer_ratio(r)
        name = r["name"] if len(r["name"]) <= NAME else r["name"][:NAME - 1] + "~"
        lines.append(f"{name:<{NAME}} {r['kind'][:5]:<5} {compact(r['macs']):>7} "
                     f"{r['cycles']:>10,} {r['utilization']:>6.1%} {compact(r['dram_bytes']):>7} "
                     f"{r['bound']:<7} {compact(r['roofline_cycles']):>7} {ratio} "
                     f"{compact(r.get('start')):>7} {compact(r.get('end')):>7} "
                     f"{compact(r.get('overlap_cycles')):>7} {top_stall(r.get('stalls'))}")
    lines.append(lines[1])
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
    lines += [f"on the host {'before' if h['side'] == 'input' else 'after'} the NPU: "
              f"{h['model']} {'->' if h['side'] == 'input' else '<-'} {', '.join(h['steps'])}"
              for h in s.get("host", [])]
    return "\n".join(lines)
