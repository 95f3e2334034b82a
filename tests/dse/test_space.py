"""The space file: what it accepts, the grid it spans, and one-line errors that name the key,
the value and what is allowed."""

import pytest

from npusim.dse import SpaceError, load_space, parse_space

BASE = {"study": {"name": "s"}, "workloads": {"models": ["small_cnn"], "resolution": 16},
        "space": {"array": ["8x8", "16x16"]}, "objectives": {"minimize": ["latency_ms"]}}


def space(**tables):
    data = {k: dict(v) for k, v in BASE.items()}
    for k, v in tables.items():
        data[k] = v
    return parse_space(data)


def error(**tables) -> str:
    with pytest.raises(SpaceError) as e:
        space(**tables)
    text = str(e.value)
    assert "\n" not in text
    return text


def test_the_issue_example_parses_and_spans_its_grid(tmp_path):
    path = tmp_path / "edge.toml"
    path.write_text("""
[study]
name = "edge-sweep"
base = "npu-edge"
sampler = "grid"
seed = 0
[workloads]
models = ["resnet18", "mobilenetv2"]
resolution = 224
[space]
array = ["8x8", "16x16", "32x32"]
dram-bw = [8, 16, 32]
dma-engines = [1, 2, 4]
ibuf-kb = { low = 32, high = 512, log = true, step = 32 }
[objectives]
minimize = ["latency_ms", "energy_uj", "area_mm2"]
[constraints]
area_mm2 = { max = 6.0 }
""")
    s = load_space(path)
    assert s.name == "edge-sweep" and s.objectives == ("latency_ms", "energy_uj", "area_mm2")
    assert s.constraints == {"area_mm2": {"max": 6.0}}
    assert [w.resolution for w in s.workloads] == [224, 224]
    ibuf = next(p for p in s.params if p.name == "ibuf-kb")
    assert ibuf.grid_values() == [32, 64, 128, 256, 512]
    assert s.size() == 3 * 3 * 3 * 5
    assert s.default_storage() == f"sqlite:///{path.with_suffix('.db').resolve()}"
    t = s.target({"array": "8x8", "dram-bw": 32, "dma-engines": 4, "ibuf-kb": 64})
    assert (t.array, t.dram_bw, t.dma_engines, t.ibuf_kb) == ((8, 8), 32, 4, 64)
    assert str(t).startswith("npu -array=8x8 ")


def test_a_dataflow_axis_over_a_tag_drops_its_ws_features_on_os():
    """npu-edge's two weight banks and depthwise mode are ws-array features: an os point of a
    space based on it is the os array (one bank, no mode), a ws point keeps them, and each
    point's Target prints and re-parses to the same attributes (the study stores str(t))."""
    from isa.target import Target, TargetError
    s = space(space={"dataflow": ["ws", "os"]})
    assert s.base == "npu-edge"
    ws, os_ = s.target({"dataflow": "ws"}), s.target({"dataflow": "os"})
    assert (ws.weight_buffers, ws.depthwise_mode) == (2, 1)
    assert (os_.dataflow, os_.weight_buffers, os_.depthwise_mode) == ("os", 1, 0)
    assert all(Target.create(str(t)) == t for t in (ws, os_))
    both = space(space={"dataflow": ["os"], "weight-buffers": [2]})
    with pytest.raises(TargetError, match="weight-buffers=2 with dataflow=os"):
        both.target({"dataflow": "os", "weight-buffers": 2})  # asked for: refused


def test_ranges_with_a_step_and_snapping():
    s = space(space={"dram-bw": {"low": 8, "high": 40, "step": 16}})
    (p,) = s.params
    assert p.grid_values() == [8, 24, 40]
    assert p.snap(30) == 24 and p.snap(33) == 40 and p.snap(100) == 40


def test_workloads_without_resolution_parameters_keep_none():
    s = space(workloads={"models": ["mlp", "small_cnn"], "resolution": 16})
    assert [(w.label, w.resolution) for w in s.workloads] == [("mlp", None), ("small_cnn", 16)]


def test_an_unknown_attribute_lists_close_matches():
    text = error(space={"dram-bandwith": [8, 16]})
    assert "'dram-bandwith' is not an npu attribute" in text
    assert "close matches: dram-bw" in text and "allowed:" in text


def test_a_value_out_of_range_names_key_value_and_range():
    text = error(space={"dma-engines": [1, 99]})
    assert "[space] dma-engines = 99" in text and "1..8" in text


def test_a_bad_shape_names_the_expected_form():
    assert "ROWSxCOLS" in error(space={"array": ["8by8"]})


@pytest.mark.parametrize("tables, words", [
    ({"study": {"name": "s", "sampler": "bayes"}},
     ["sampler = 'bayes'", "grid, random, tpe, nsga2"]),
    ({"study": {"name": "s", "samplr": "grid"}}, ["'samplr' is unknown", "close matches: sampler"]),
    ({"objectives": {"minimize": ["latncy_ms"]}}, ["'latncy_ms' is not an objective",
                                                   "close matches: latency_ms"]),
    ({"constraints": {"area_mm2": {"maximum": 3}}}, ["area_mm2", "max = X"]),
    ({"workloads": {"models": ["resnet81"]}}, ["'resnet81'", "close matches: resnet18"]),
    ({"space": {"array": {"low": 4, "high": 16}}}, ["a range needs a number attribute"]),
    ({"space": {"dram-bw": {"low": 64, "high": 8}}}, ["low = 64 > high = 8"]),
    ({"space": {}}, ["[space] is empty"]),
    ({"objectives": {}}, ["no objective"]),
    ({"study": {"name": "s", "seed": -1}}, ["seed = -1", "integer >= 0"]),
    ({"study": {"name": "s", "base": "npu-egde"}}, ["base = 'npu-egde'", "npu-edge"]),
    ({"study": {"name": "s", "base": "cpu-host"}}, ["is a cpu target"]),
])
def test_mistakes_are_one_line_naming_what_is_allowed(tables, words):
    text = error(**tables)
    for w in words:
        assert w in text


def test_a_grid_needs_finite_values():
    s = space(space={"dram-bw": {"low": 8, "high": 64}})
    with pytest.raises(SpaceError, match="a grid needs a finite set of values"):
        s.size()


def test_random_needs_a_budget_and_a_file_error_names_the_file(tmp_path):
    s = space(study={"name": "s", "sampler": "random"})
    with pytest.raises(SpaceError, match="--trials N"):
        s.size()
    assert s.size(5) == 5
    bad = tmp_path / "bad.toml"
    bad.write_text("[study\nname = 1")
    with pytest.raises(SpaceError, match="bad.toml: not valid TOML"):
        load_space(bad)
