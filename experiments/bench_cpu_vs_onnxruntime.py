"""Our generated C against onnxruntime on the same model, in one process, so the CPU baseline
that NPU speedups are quoted against is honest.

    python experiments/bench_cpu_vs_onnxruntime.py [--models resnet18,mobilenetv2,...]
        [--resolution 224] [--repeats 15] [--threads 1]

Per model: onnxruntime (CPU provider, float32) on the exported float model, our C in float32
(the same float graph) and in int8 (the NPU's integer graph), all with the same thread count.
Runs are interleaved (one of each in turn) so load from other processes hits every contender
alike; the table gives wall-clock medians and ratio = ours / onnxruntime (below 1: ours is
faster). With one thread everything runs on the calling thread, so the median CPU time of
that thread is printed too: on a busy machine it is the steadier figure.
Our outputs are checked: float32 against onnxruntime's, int8 bit-exact against run_int."""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def onnxruntime_session(float_graph, threads: int):
    import onnxruntime as ort

    from compiler.frontend.onnx_export import export_onnx
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(export_onnx(float_graph).SerializeToString(), opts,
                                providers=["CPUExecutionProvider"])


def bench_model(name: str, resolution: int | None, repeats: int, threads: int) -> dict:
    import compiler.backends.cpu  # noqa: F401  registers the cpu kind
    from compiler.backends import build
    from compiler.build import build_quantized
    from compiler.metrics import max_rel_error
    kw = {} if resolution is None or name in ("mlp", "small_cnn") else {"resolution": resolution}
    target = "cpu-host" if threads == 1 else f"cpu-host -openmp=1 -cores={threads}"
    q = build_quantized(name, num_calib=2, **kw)
    c_int8 = build(q, target)
    c_fp32 = build(q, target, dtype="float32")
    g = q.float_graph
    feeds = {v: np.random.default_rng(0).standard_normal(g.type_of(v).shape).astype(np.float32)
             for v in g.inputs}
    sess = onnxruntime_session(g, threads)
    ort_out = dict(zip(g.outputs, sess.run(list(g.outputs), feeds)))

    p8, p32 = c_int8.prepared, c_fp32.prepared
    in8, in32 = p8.device_inputs(feeds), p32.device_inputs(feeds)
    exact = p8.check(feeds, in8, c_int8.run(in8))["bit_exact"]
    fp32_err = max(max_rel_error(ort_out[k], v)
                   for k, v in p32.host_outputs(c_fp32.run(in32)).items())

    arenas = {}
    for key, mod, dev in (("int8", c_int8, in8), ("fp32", c_fp32, in32)):
        arena = mod.program.new_arena()
        mod.program.write_inputs(arena, dev)
        arenas[key] = (mod, arena)
    runs = {"ort": lambda: sess.run(None, feeds),
            "fp32": lambda: arenas["fp32"][0]._call(arenas["fp32"][1]),
            "int8": lambda: arenas["int8"][0]._call(arenas["int8"][1])}
    times = {k: [] for k in runs}
    cpu = {k: [] for k in runs}
    for _ in range(2):                      # warm-up
        for fn in runs.values():
            fn()
    for _ in range(repeats):                # interleaved
        for key, fn in runs.items():
            c0, t0 = time.thread_time(), time.perf_counter()
            fn()
            times[key].append(time.perf_counter() - t0)
            cpu[key].append(time.thread_time() - c0)
    med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    cpu_med = {k: statistics.median(v) * 1e3 for k, v in cpu.items()}
    return {"model": name, "resolution": kw.get("resolution", "-"),
            "gmacs": c_int8.program.flops / 2e9, "ort_ms": med["ort"], "fp32_ms": med["fp32"],
            "int8_ms": med["int8"], "fp32_ratio": med["fp32"] / med["ort"],
            "int8_ratio": med["int8"] / med["ort"], "fp32_err": fp32_err, "int8_exact": exact,
            "cpu_ms": cpu_med}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="resnet18,mobilenetv2,small_cnn,mlp")
    ap.add_argument("--resolution", type=int, default=224,
                    help="input resolution of the ImageNet models (default 224)")
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--threads", type=int, default=1,
                    help="threads for onnxruntime and our C (OpenMP above 1)")
    args = ap.parse_args(argv)
    head = (f"{'model':<12} {'res':>4} {'GMACs':>7} {'ORT fp32':>9} {'C fp32':>9} {'ratio':>6} "
            f"{'C int8':>9} {'ratio':>6}  checks")
    print(f"median ms of {args.repeats} interleaved runs, {args.threads} thread(s); "
          "ratio = ours / onnxruntime")
    print(head + "\n" + "-" * len(head))
    for name in args.models.split(","):
        r = bench_model(name.strip(), args.resolution, args.repeats, args.threads)
        print(f"{r['model']:<12} {r['resolution']:>4} {r['gmacs']:>7.3f} {r['ort_ms']:>9.3f} "
              f"{r['fp32_ms']:>9.3f} {r['fp32_ratio']:>6.2f} {r['int8_ms']:>9.3f} "
              f"{r['int8_ratio']:>6.2f}  fp32 vs ORT {r['fp32_err']:.1e}, int8 "
              f"{'bit-exact' if r['int8_exact'] else 'MISMATCH'}", flush=True)
        if args.threads == 1:
            c = r["cpu_ms"]
            print(f"{'  CPU time':<12} {'':>4} {'':>7} {c['ort']:>9.3f} {c['fp32']:>9.3f} "
                  f"{c['fp32'] / c['ort']:>6.2f} {c['int8']:>9.3f} {c['int8'] / c['ort']:>6.2f}",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
