"""The user's own ONNX file behind a compiled model: its stamp (path and SHA-256, with its
external data) on the float graph, and onnxruntime run on that file (not on our re-export) as
the float reference."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

from ..errors import FrontendError, OnnxRejectedError

META_KEY = "onnx_file"  # graph.meta[META_KEY] = {"path": absolute path, "sha256": hex digest}


def _external_files(path: Path) -> list:
    """The external data files the model's tensors name (beside it), sorted."""
    import onnx
    from onnx.external_data_helper import uses_external_data
    try:
        model = onnx.load(str(path), load_external_data=False)
    except Exception:  # noqa: BLE001 - not a model: the importer says so; its bytes still hash
        return []
    names = {e.value for t in _tensors(model.graph) if uses_external_data(t)
             for e in t.external_data if e.key == "location"}
    return sorted(names)


def _tensors(graph):
    """Every TensorProto of a graph: initializers and node attributes, subgraphs included."""
    yield from graph.initializer
    for node in graph.node:
        for a in node.attribute:
            if a.HasField("t"):
                yield a.t
            yield from a.tensors
            for g in ([a.g] if a.HasField("g") else []) + list(a.graphs):
                yield from _tensors(g)


def file_sha256(path: Path) -> str:
    """SHA-256 of the file and of each external data file it names (their weights are part of
    the model the reference runs)."""
    h = hashlib.sha256()
    for name in [None] + _external_files(path):
        if name is not None:
            h.update(b"\0" + name.encode() + b"\0")
        with open(path if name is None else path.parent / name, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def stamp(graph, path) -> None:
    """Record on `graph` (imported from the file `path`) which file it came from, so the float
    reference runs that file. Done by the build after the (cached) import, so the stamp names
    the path given now, not whichever path first filled the cache with the same bytes."""
    p = Path(path).resolve()
    graph.meta[META_KEY] = {"path": str(p), "sha256": file_sha256(p)}


def source_of(graph) -> dict | None:
    """The stamp of the file `graph` was imported from, or None (zoo, builder, ModelProto)."""
    return getattr(graph, "meta", {}).get(META_KEY)


# what the file's inputs take: floats, or integer token ids (an embedding lookup's)
_FEED_DTYPES = {"tensor(float16)": np.float16, "tensor(float)": np.float32,
                "tensor(int64)": np.int64, "tensor(int32)": np.int32}


def run_source(graph, feeds: dict) -> tuple:
    """(onnxruntime's outputs of the original file on `feeds`, the reference's name). The file
    must still hold the bytes compiled; onnxruntime loaded it when it was imported, so a
    failure now is an error, never a quiet fall-back to another reference."""
    import onnxruntime as ort
    src = source_of(graph)
    path = Path(src["path"])
    what = f"ONNX model '{path}'"
    try:
        digest = file_sha256(path)
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
        dtypes = {i.name: _FEED_DTYPES.get(i.type, np.float32) for i in sess.get_inputs()}
        outs = sess.run(list(graph.outputs),
                        {k: np.asarray(feeds[k], dtypes.get(k, np.float32))
                         for k in graph.inputs})
    except Exception as e:  # noqa: BLE001 - onnxruntime's Fail/InvalidArgument/...
        from .onnx_check import onnxruntime_reason
        raise OnnxRejectedError(f"onnxruntime could not run {what} as the float reference: "
                                f"{onnxruntime_reason(e)}") from None
    return ({k: np.asarray(v, np.float32) for k, v in zip(graph.outputs, outs)},
            f"onnxruntime on {os.path.basename(path)}")
