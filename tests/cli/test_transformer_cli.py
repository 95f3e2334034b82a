"""`npusim run` of the transformer zoo models: --seq reaches the model (--decode's step is
tested through npusim.flow in tests/npusim/test_transformers.py: GPT-2 small takes a while
to quantize), and both are refused (one line) for models they do not apply to."""

import json

from cli_helpers import one_line_error, run


def test_seq_sets_the_sequence_of_bert_tiny(capsys):
    code, out, _ = run(capsys, "run", "bert-tiny", "--seq", "8", "--json")
    s = json.loads(out)
    assert code == 0 and s["verified"] is True and s["bit_exact"] is True
    probs = next(layer for layer in s["layers"] if layer["name"] == "l0.attn.probs")
    assert probs["kind"] == "softmax" and probs["dram_bytes"] > 0


def test_seq_and_decode_apply_to_transformer_models_only(capsys, tmp_path):
    code, _, err = run(capsys, "run", "resnet18", "--seq", "8")
    assert code == 2 and "--seq apply to zoo transformer models (--seq: bert-tiny, gpt2; " \
        "--decode: gpt2), not to 'resnet18'" in one_line_error(err)
    code, _, err = run(capsys, "run", "bert-tiny", "--decode")
    assert code == 2 and "--decode apply to zoo transformer models" in one_line_error(err)
