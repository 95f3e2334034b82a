"""Networks of each CNN family, as exporters write them (tests/compiler/onnx_nets.py), compile,
simulate and verify on npu-edge: bit-exact against the integer reference, and close to
onnxruntime running the original file."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from onnx_nets import FAMILIES  # noqa: E402

from compiler.frontend import import_onnx  # noqa: E402
from compiler.reference import run_float  # noqa: E402


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_runs_bit_exact_and_agrees_with_onnxruntime(family, tmp_path):
    from npusim import flow
    path = tmp_path / f"{family}.onnx"
    onnx.save(FAMILIES[family](), str(path))
    compiled = flow.compile(str(path), "npu-edge")
    v = flow.verify(compiled, flow.simulate(compiled))
    assert v.bit_exact and v.verified
    assert v.reference == f"onnxruntime on {path.name}"
    assert v.snr_db > 30.0, v            # int8 against float32 onnxruntime
    assert v.top1_agree >= 0.9, v


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_float_import_matches_onnxruntime(family):
    import onnxruntime as ort
    m = FAMILIES[family]()
    x = np.random.default_rng(0).standard_normal(
        [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim]).astype(np.float32)
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    want = sess.run(None, {"x": x})[0]
    got = run_float(import_onnx(m), {"x": x})["y"]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_weights_in_an_external_data_file_next_to_the_model(tmp_path):
    """A model saved with its weights in an external file (as exporters do past 2 GB)."""
    from npusim import flow
    path = tmp_path / "resnet.onnx"
    onnx.save(FAMILIES["resnet50_v1_zoo"](), str(path), save_as_external_data=True,
              all_tensors_to_one_file=True, location="resnet.data", size_threshold=64)
    assert (tmp_path / "resnet.data").stat().st_size > 1000
    compiled = flow.compile(str(path), "npu-edge")
    v = flow.verify(compiled, flow.simulate(compiled))
    assert v.bit_exact and v.snr_db > 30, v
