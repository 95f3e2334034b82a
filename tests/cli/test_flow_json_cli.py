"""`npusim run --json` prints exactly npusim.flow's Result.to_json(): the same keys in the same
order and the same values (wall-clock seconds aside)."""

import json

import pytest

from cli_helpers import run
from npusim import flow

WALL = ("sim_wall_s", "compile_s")


def _same(cli: dict, api: dict) -> None:
    assert list(cli) == list(api)
    for key in WALL:
        cli.pop(key), api.pop(key)
    assert cli == json.loads(json.dumps(api))


@pytest.mark.parametrize("model,target,flags,kwargs", [
    ("small_cnn", "npu-tiny", ["--seed", "2"], {"seed": 2}),
    ("mlp", "npu-edge -dtype=fp16", [], {}),
    ("mobilenetv2", "npu-edge", ["--resolution", "32", "--timing-only"],
     {"resolution": 32, "timing_only": True}),
])
def test_run_json_is_the_flow_result(capsys, model, target, flags, kwargs):
    code, out, _ = run(capsys, "run", model, "-t", target, "--json", *flags)
    assert code == 0
    _same(json.loads(out), flow.run(model, target, **kwargs).to_json())


def test_an_artifacts_json_is_the_flow_result(capsys, tmp_path):
    d = tmp_path / "a"
    assert run(capsys, "compile", "small_cnn", "-t", "npu-tiny", "-o", d)[0] == 0
    code, out, _ = run(capsys, "run", d, "-t", "npu-tiny -dram-bw=8", "--json")
    assert code == 0
    api = flow.simulate(flow.compile(str(d)), target="npu-tiny -dram-bw=8").to_json()
    _same(json.loads(out), api)
