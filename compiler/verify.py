"""Checks of a device run against the compiler's references, one path for every backend:
int8 bit for bit against the integer reference, float against the float reference (ours, or
onnxruntime's: on the user's ONNX file where the model came from one) by SNR, top-1 agreement
and max relative error."""

from __future__ import annotations

import numpy as np

from .metrics import max_rel_error, snr_db, top1_agreement


def integer_mismatches(module, dev_in: dict, outputs: dict) -> int:
    """Elements of the device's int8 outputs that differ from QuantizedModule.run_int."""
    want = module.run_int(dev_in)
    return sum(int(np.count_nonzero(np.asarray(outputs[b.qname]) != want[b.qname]))
               for b in module.outputs)


def float_reference(float_graph, feeds: dict, onnxruntime: bool = False) -> tuple:
    """(outputs, reference name): onnxruntime's when asked: on the user's own ONNX file where
    the model was imported from one (named "onnxruntime on <file>"; it must run), else on our
    export of the graph ("onnxruntime"; an op it lacks falls back to ours, and the name says
    so); without onnxruntime, the numpy float32 reference."""
    from .frontend.onnx_source import run_source, source_of
    from .reference import run_float, run_onnxruntime
    if onnxruntime and source_of(float_graph) is not None and _has_onnxruntime():
        return run_source(float_graph, feeds)
    if onnxruntime:
        try:
            return run_onnxruntime(float_graph, feeds), "onnxruntime"
        except Exception:  # noqa: BLE001 - an op onnxruntime lacks: fall back, and say so
            pass
    return run_float(float_graph, feeds), "numpy float reference"


def _has_onnxruntime() -> bool:
    import importlib.util
    return importlib.util.find_spec("onnxruntime") is not None


def float_agreement(ref: dict, got: dict) -> dict:
    """The worst output's SNR (dB), top-1 agreement and max relative error."""
    return {"snr_db": min(snr_db(ref[k], got[k]) for k in ref),
            "top1_agree": min(top1_agreement(ref[k], got[k]) for k in ref),
            "max_rel_error": max(max_rel_error(ref[k], got[k]) for k in ref)}


def verify_run(float_graph, specs, feeds: dict, outputs: dict, module=None, dev_in=None,
               onnxruntime: bool = True) -> dict:
    """A device run's outputs against both references: bit_exact against run_int (int8 runs:
    `module` and `dev_in` given; else None), and the host-finished outputs (`specs`,
    compiler.host) against the float model: worst SNR, top-1 agreement, max relative error.
    For an NPU artifact, specs = [HostOutput.of(e) for e in artifact.outputs]."""
    from .host import host_outputs
    ref, name = float_reference(float_graph, feeds, onnxruntime)
    bit_exact = None if module is None else integer_mismatches(module, dev_in, outputs) == 0
    return {"bit_exact": bit_exact, "reference": name,
            **float_agreement(ref, host_outputs(outputs, specs))}
