"""The text form of `npusim run`: the per-layer table and the totals of a Result.to_json()."""

from __future__ import annotations


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
