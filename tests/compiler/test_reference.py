"""References: float vs onnxruntime, quantized resnet18 accuracy and determinism, input checks."""

import numpy as np
import pytest

from compiler import build_quantized, zoo
from compiler.errors import CompilerError
from compiler.metrics import max_rel_error, snr_db, top1_agreement
from compiler.reference import run_float, run_graph, run_int, run_onnxruntime


@pytest.mark.parametrize("name", ["resnet18", "mobilenetv2"])
def test_float_reference_agrees_with_onnxruntime(name, resnet18_32, feed):
    g = resnet18_32 if name == "resnet18" else zoo.get(name, resolution=32)
    x = feed(g)
    ours, ort = run_float(g, x), run_onnxruntime(g, x)
    for k in g.outputs:
        assert max_rel_error(ort[k], ours[k]) < 1e-4


def test_quantized_resnet18_accuracy_vs_onnxruntime(resnet18_q, feed):
    snrs = []
    for seed in (11, 12):
        x = feed(resnet18_q.float_graph, seed)
        snrs.append(resnet18_q.compare(x, reference="onnxruntime")["fc"]["snr_db"])
    assert min(snrs) > 20.0, snrs


def test_integer_reference_is_deterministic(resnet18_q, resnet18_32, feed):
    q_in = resnet18_q.quantize_inputs(feed(resnet18_32, 21))
    a, b = resnet18_q.run_int(q_in), resnet18_q.run_int(q_in)
    assert a["fc"].dtype == np.int8 and np.array_equal(a["fc"], b["fc"])
    again = build_quantized(resnet18_32, num_calib=4, seed=0)   # same calibration seed
    assert all(np.array_equal(again.graph.constants[k], v)
               for k, v in resnet18_q.graph.constants.items())
    assert np.array_equal(again.run_int(q_in)["fc"], a["fc"])


def test_top1_on_a_ten_class_model(feed):
    m = build_quantized("resnet18", resolution=32, num_classes=10, num_calib=4)
    agree = [m.compare(feed(m.float_graph, s))["fc"]["top1"] for s in range(4)]
    assert np.mean(agree) >= 0.75


def test_input_checks_and_int_only(resnet18_q, resnet18_32):
    with pytest.raises(CompilerError, match="needs input"):
        run_graph(resnet18_32, {})
    with pytest.raises(CompilerError, match=r"input 'input' has shape \(1, 3, 8, 8\), the "
                                            r"graph expects \(1, 3, 32, 32\)"):
        run_graph(resnet18_32, {"input": np.zeros((1, 3, 8, 8), np.float32)})
    with pytest.raises(CompilerError, match="input 'input.nhwc' is float32, the graph expects "
                                            "int8"):
        run_int(resnet18_q.graph, {"input.nhwc": np.zeros((1, 32, 32, 3), np.float32)})
    with pytest.raises(CompilerError, match="run_int needs a quantized graph"):
        run_int(resnet18_32, {"input": np.zeros((1, 3, 32, 32), np.float32)})


def test_metrics():
    ref = np.array([[1.0, 2.0, 3.0]])
    assert snr_db(ref, ref) == float("inf")
    assert snr_db(ref, ref * 1.1) == pytest.approx(20.0)     # noise = 10% of the signal
    assert top1_agreement(np.array([[0, 1], [1, 0]]), np.array([[0, 1], [0, 1]])) == 0.5
    assert max_rel_error(ref, ref + 0.3) == pytest.approx(0.1)
