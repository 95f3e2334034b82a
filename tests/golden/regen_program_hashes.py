"""Regenerate program_hashes.json: `python tests/golden/regen_program_hashes.py`.

SHA-256 of every zoo model's compiled NPU program (program.bin) and constants, per Target tag,
and of its C and CUDA sources. Recorded at revision a40910b; a refactor moves none of them
(tests/golden/test_program_hashes.py), so regenerate only in a commit that names the codegen
change that moved them."""

import hashlib
import json
import sys
from pathlib import Path

GOLDEN = Path(__file__).with_name("program_hashes.json")
MODELS = ("mlp", "small_cnn", "resnet18", "mobilenetv2", "resnet50")
# the transformer models (NPU only: the C-like backends have no matmul/softmax/layernorm
# kernels yet) are pinned by tests/npusim/test_transformers.py instead
NPU_ONLY = ("bert-tiny", "vit-tiny", "gpt2")
NPU_TARGETS = ("npu-tiny", "npu-edge", "npu-server", "npu-edge -dtype=fp16")
# npu-tiny's 4 KiB buffers cannot tile a 224x224 stem: its image models compile at 32x32
RESOLUTION = {("npu-tiny", m): 32 for m in ("resnet18", "resnet50", "mobilenetv2")}
CLIKE_TARGETS = ("cpu-host", "gpu-a100")
CLIKE_DTYPES = ("int8", "float32")


def sha(data) -> str:
    return hashlib.sha256(data if isinstance(data, bytes) else data.encode()).hexdigest()


def npu_hashes(model: str, target: str) -> dict:
    from compiler.backends import build
    res = RESOLUTION.get((target, model))
    from compiler.errors import CompilerError
    try:
        art = build(model, target, **({"resolution": res} if res else {})).artifact
    except CompilerError as e:  # npu-tiny's 1 MiB DRAM holds no ResNet: the refusal is pinned too
        return {"error": str(e)}
    return {"program": sha(art.program.to_bytes()), "constants": sha(bytes(art.constants))}


def clike_source(model: str, target: str, dtype: str) -> str:
    from compiler.backends import registry
    from compiler.backends.clike import emit, prepare
    from isa.target import Target
    t = Target.create(target)
    renderer = {"cpu": "compiler.backends.cpu.renderer:CRenderer",
                "gpu": "compiler.backends.gpu.renderer:CudaRenderer"}[t.kind]
    import importlib
    mod, _, cls = renderer.partition(":")
    r = getattr(importlib.import_module(mod), cls)(t)
    return emit(prepare(model, t, r, dtype, None, 8, 0), r).source


def measure(models=MODELS) -> dict:
    out = {}
    for m in models:
        for t in NPU_TARGETS:
            out[f"{m} | {t}"] = npu_hashes(m, t)
            print(m, t, out[f"{m} | {t}"], file=sys.stderr)
        for t in CLIKE_TARGETS:
            for d in CLIKE_DTYPES:
                out[f"{m} | {t} | {d}"] = {"source": sha(clike_source(m, t, d))}
    return out


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(measure(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
