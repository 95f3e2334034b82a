"""The same model and Target give the same program on every machine: calibration's float
forward pass (compiler.ops.exact) does not depend on which BLAS kernel or SIMD path runs it.

OpenBLAS picks its sgemm/dgemm kernel by CPU; OPENBLAS_CORETYPE forces one. Nehalem (SSE
only, every x86-64 has it) and Haswell (AVX2 + FMA) sum dot products in different orders:
before the exact products, their float32 results differed in the last bits, and so did the
calibrated scales and the int8 constants."""

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from compiler.ops import exact

ROOT = Path(__file__).resolve().parents[2]
CASES = ("small_cnn|npu-tiny", "mlp|npu-tiny", "small_cnn|npu-edge -dtype=fp16")
SCRIPT = """
import json, sys
from compiler.backends import build
from compiler.ops import exact
import numpy as np, hashlib
sha = lambda b: hashlib.sha256(b).hexdigest()
out = {}
for case in sys.argv[1:]:
    model, target = case.split("|")
    art = build(model, target).artifact
    out[case] = [sha(art.program.to_bytes()), sha(bytes(art.constants))]
rng = np.random.default_rng(1)
a = rng.standard_normal((64, 3000)).astype(np.float32)
b = rng.standard_normal((3000, 48)).astype(np.float32)
out["matmul"] = sha(exact.matmul(a, b).tobytes())
print(json.dumps(out))
"""


def openblas_dynamic() -> bool:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return False
    return any(i.get("internal_api") == "openblas" for i in threadpool_info())


def hashes(coretype: str) -> dict:
    env = dict(os.environ, OPENBLAS_CORETYPE=coretype, NPUSIM_CACHE_DIR="off",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", SCRIPT, *CASES], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                    reason="OPENBLAS_CORETYPE names x86-64 kernels")
@pytest.mark.skipif(not openblas_dynamic(), reason="numpy's BLAS is not OpenBLAS")
def test_programs_equal_under_two_blas_kernels():
    sse, avx2 = hashes("Nehalem"), hashes("Haswell")
    assert sse == avx2


def test_exact_matmul_is_the_rounded_exact_product_of_rounded_operands():
    """Each output is one rounding of an exact sum: equal to a float64 product of the same
    integers summed in a fixed order, and within 2**-19 of the operands' peaks of the exact
    float result (float32 sgemm's own error is of that size)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 700)).astype(np.float32)
    b = (rng.standard_normal((700, 3)) * [1.0, 1e-3, 40.0]).astype(np.float32)
    got = exact.matmul(a, b)
    ba, bb = exact.bits(700)
    qa, sa = exact.integers(a, ba)
    qb, sb = exact.integers(b, bb, axis=0)
    assert np.abs(qa).max() <= 2 ** ba and np.abs(qb).max() <= 2 ** bb
    assert 700 * 2 ** (ba + bb) <= 2 ** 53
    fixed = np.array([[sum(float(x) * float(y) for x, y in zip(qa[i], qb[:, j]))
                       for j in range(3)] for i in range(5)])  # left to right, exact
    assert np.array_equal(got, np.ldexp(fixed, sa + sb).astype(np.float32))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    peak = np.abs(a).max() * np.abs(b).max(axis=0) * 700
    assert np.all(np.abs(got - ref) <= peak * 2.0 ** -19)


def test_exact_matmul_shapes_and_nonfinite():
    rng = np.random.default_rng(2)
    for sa_, sb_ in [((4, 6), (6, 2)), ((3, 4, 6), (3, 6, 2)), ((6,), (3, 6, 2)),
                     ((2, 4, 6), (6,)), ((4, 0), (0, 2))]:
        a = rng.standard_normal(sa_).astype(np.float32)
        b = rng.standard_normal(sb_).astype(np.float32)
        got, ref = exact.matmul(a, b), np.matmul(a.astype(np.float64), b.astype(np.float64))
        assert got.shape == ref.shape and got.dtype == np.float32
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
    a = np.array([[1.0, np.inf]], np.float32)
    assert np.isinf(exact.matmul(a, np.ones((2, 1), np.float32))[0, 0])
