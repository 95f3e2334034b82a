"""The user's own ONNX file behind a compiled model: its stamp (path and SHA-256) on the float
graph, and onnxruntime run on that file (not on our re-export) as the float reference."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

from ..errors import FrontendError, OnnxRejectedError

META_KEY = "onnx_file"  # graph.meta[META_KEY] = {"path": absolute path, "sha256": hex digest}


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def stamp(graph, path) -> None:
    """Record on `graph` (imported from the file `path`) which file it came from, so the float
    reference runs that file. Done by the build after the (cached) import, so the stamp names
    the path given now, not whichever path first filled the cache with the same bytes."""
    p = Path(path).resolve()
    graph.meta[META_KEY] = {"path": str(p), "sha256": _sha256(p)}


def source_of(graph) -> dict | None:
    """The stamp of the file `graph` was imported from, or None (zoo, builder, ModelProto)."""
    return getattr(graph, "meta", {}).get(META_KEY)


def run_source(graph, feeds: dict) -> tuple:
    """(onnxruntime's outputs of the original file on `feeds`, the reference's name). The file
    must still hold the bytes compiled; onnxruntime loaded it when it was imported, so a
    failure now is an error, never a quiet fall-back to another reference."""
    import onnxruntime as ort
    src = source_of(graph)
    path = Path(src["path"])
    what = f"ONNX model '{path}'"
    try:
        digest = _sha256(path)
    except OSError as e:
        raise FrontendError(f"cannot read {what}, the float reference of this build: "
                            f"{e.strerror or e}; compile the model again") from None
    if digest != src["sha256"]:
        raise FrontendError(f"{what} changed since it was compiled (sha256 {digest[:12]}, "
                            f"compiled {src['sha256'][:12]}); compile it again to verify "
                            "against it")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1  # deterministic and polite on shared machines
    opts.log_severity_level = 3
    try:
        sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        dtypes = {i.name: np.float16 if i.type == "tensor(float16)" else np.float32
                  for i in sess.get_inputs()}
        outs = sess.run(list(graph.outputs),
                        {k: np.asarray(feeds[k], dtypes.get(k, np.float32))
                         for k in graph.inputs})
    except Exception as e:  # noqa: BLE001 - onnxruntime's Fail/InvalidArgument/...
        from .onnx_check import onnxruntime_reason
        raise OnnxRejectedError(f"onnxruntime could not run {what} as the float reference: "
                                f"{onnxruntime_reason(e)}") from None
    return ({k: np.asarray(v, np.float32) for k, v in zip(graph.outputs, outs)},
            f"onnxruntime on {os.path.basename(path)}")
