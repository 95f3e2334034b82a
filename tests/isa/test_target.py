"""Tests for isa.target: parsing, printing, validation, tags and derived values."""
import copy
import json
import pickle

import pytest

import compiler.backends  # noqa: F401 - the cpu and gpu Target kinds come with it
from isa.target import (Attr, Target, TargetError, get_tag, get_target_kind, list_tags,
                        list_target_kinds, register_target_kind)

ALL_TAGS = ["npu-tiny", "npu-edge", "npu-server", "cpu-host", "gpu-t4", "gpu-a100", "gpu-h100"]


def test_registries():
    assert list_target_kinds() == ["cpu", "gpu", "npu"]
    assert list_tags() == ALL_TAGS
    assert list_tags("gpu") == ["gpu-t4", "gpu-a100", "gpu-h100"]
    assert all(get_tag(n).description for n in ALL_TAGS)


@pytest.mark.parametrize("tag", ALL_TAGS)
def test_round_trip_every_tag(tag):
    t = Target.from_string(tag)
    assert t.tag == tag and t.kind == get_tag(tag).kind
    assert Target.from_string(str(t)) == t
    assert Target.from_dict(t.to_dict()) == t
    assert Target.from_dict(json.loads(json.dumps(t.to_dict()))).tag == tag
    assert pickle.loads(pickle.dumps(t)) == t and copy.deepcopy(t).tag == tag


def test_string_prints_kind_and_all_attrs_in_order():
    s = str(Target("npu"))
    assert s.startswith("npu -array=16x16 -vector-lanes=16 -dma-engines=2 -num-cores=1 "
                        "-ibuf-kb=128 ")
    assert s.endswith("-dtype=int8 -dataflow=ws -energy-mac-pj=0.3 -energy-mac-fp16-pj=2.0 "
                      "-energy-sram-byte-pj=1.25 -energy-dram-byte-pj=160.0 "
                      "-energy-vector-op-pj=0.1 -leakage-mw-per-mm2=25.0 -static-mw=0.0 "
                      "-depthwise-mode=0 -weight-buffers=1")
    assert str(Target("cpu", openmp=True)).split()[-2:] == ["-openmp=1", "-march=native"]


def test_dataflow_defaults_to_ws_and_names_its_choices():
    assert Target("npu-edge").dataflow == "ws"
    assert Target.create("npu-edge -dataflow=os").dataflow == "os"
    assert Target("npu-edge").with_attrs(dataflow="os") == Target.create("npu -dataflow=os")
    with pytest.raises(TargetError, match="'dataflow' value 'is' is not allowed.*choices: ws, os"):
        Target.create("npu -dataflow=is")


def test_npu_edge_is_the_npu_defaults_plus_the_ws_arrays_features():
    edge = Target("npu", weight_buffers=2, depthwise_mode=1)
    assert edge == Target.from_string("npu-edge")
    assert edge.tag is None  # tag is provenance, not identity
    assert hash(edge) == hash(Target("npu-edge"))
    assert Target("npu-edge").with_attrs(weight_buffers=1, depthwise_mode=0) == Target("npu")
    server = Target("npu-server")
    assert (server.weight_buffers, server.depthwise_mode) == (2, 1)
    tiny = Target("npu-tiny")  # the RTL co-simulation size keeps the RTL's default build
    assert (tiny.weight_buffers, tiny.depthwise_mode) == (1, 0)


@pytest.mark.parametrize("text,dataflow,banks,mode", [
    ("npu-edge", "ws", 2, 1),
    ("npu-edge -dataflow=ws", "ws", 2, 1),
    # the tag's weight banks and depthwise mode are a ws array's: on os the kind's defaults
    ("npu-edge -dataflow=os", "os", 1, 0),
    ("npu-edge -dataflow=os -weight-buffers=1", "os", 1, 0),
    ("npu-edge -dataflow=os -dma-engines=4", "os", 1, 0),
    ("npu-edge -weight-buffers=1", "ws", 1, 1),
    ("npu-edge -depthwise-mode=0", "ws", 2, 0),
    ("npu-server", "ws", 2, 1),
    ("npu-server -dataflow=os", "os", 1, 0),
    ("npu-server -depthwise-mode=0", "ws", 2, 0),
    ("npu-tiny -dataflow=os", "os", 1, 0),
    ("npu -dataflow=os", "os", 1, 0),
])
def test_a_tags_ws_features_hold_on_ws_only(text, dataflow, banks, mode):
    t = Target.create(text)
    assert (t.dataflow, t.weight_buffers, t.depthwise_mode) == (dataflow, banks, mode)
    # every spelling of it re-parses to the same attributes, the tag kept
    assert Target.from_string(str(t)) == t and Target.from_dict(t.to_dict()) == t
    assert Target.from_dict(t.to_dict()).tag == t.tag
    assert pickle.loads(pickle.dumps(t)) == t
    from isa.checks import target_name
    assert Target.create(target_name(t)) == t


def test_os_npu_edge_is_named_by_its_dataflow_alone():
    from isa.checks import target_name
    assert target_name(Target.create("npu-edge -dataflow=os")) == "npu-edge -dataflow=os"
    assert target_name(Target.create("npu-server -dataflow=os -num-cores=2")) \
        == "npu-server -num-cores=2 -dataflow=os"
    assert target_name(Target.create("npu-edge -weight-buffers=1")) == "npu-edge -weight-buffers=1"
    assert target_name(Target.create("npu-edge -dataflow=os -depthwise-mode=1")) \
        == "npu-edge -dataflow=os -depthwise-mode=1"


def test_explicit_second_weight_bank_on_os_is_refused():
    with pytest.raises(TargetError, match=r"weight-buffers=2 with dataflow=os: the second weight "
                                          r"bank belongs to a weight-stationary array's PEs.*"
                                          r"hint: -dataflow=ws, or -weight-buffers=1"):
        Target.create("npu-edge -dataflow=os -weight-buffers=2")
    with pytest.raises(TargetError, match="weight-buffers=2 with dataflow=os"):
        Target("npu-edge", dataflow="os", weight_buffers=2)
    with pytest.raises(TargetError, match="weight-buffers=2 with dataflow=os"):
        Target("npu-edge").with_attrs(dataflow="os", weight_buffers=2)


def test_with_attrs_resolves_the_tags_ws_features_again():
    edge = Target("npu-edge")
    os_ = edge.with_attrs(dataflow="os")
    assert os_ == Target.create("npu-edge -dataflow=os") and os_.tag == "npu-edge"
    assert os_.with_attrs(dataflow="ws") == edge  # back to ws: the tag's banks return
    # a value other than the tag's is the user's own and stays
    one = edge.with_attrs(weight_buffers=1)
    assert one.with_attrs(dma_engines=4).weight_buffers == 1
    with pytest.raises(TargetError, match="weight-buffers=2 with dataflow=os"):
        Target("npu", weight_buffers=2).with_attrs(dataflow="os")  # no tag: nothing falls back


def test_an_attribute_tied_to_one_declared_after_it_is_refused():
    with pytest.raises(TargetError, match="'b' is tied to 'a', which is not declared before it"):
        register_target_kind("tied-kind", [Attr("b", int, 0, only_with=("a", (1,))),
                                           Attr("a", int, 1)])


def test_explicit_string():
    t = Target.from_string("npu -array=8x4 -vector-lanes=32 -dma-engines=2 -num-cores=1 "
                           "-ibuf-kb=128 -dram-bw=16 -freq-mhz=1000 -dtype=fp16 -energy-mac-pj=1")
    assert (t.array, t.array_rows, t.array_cols) == ((8, 4), 8, 4)
    assert t.vector_lanes == 32 and t.dtype == "fp16" and t.energy_mac_pj == 1.0
    assert t.tag is None


def test_tag_overrides():
    t = Target.from_string("npu-edge -dma-engines=4")
    assert t.tag == "npu-edge" and t.dma_engines == 4 and t.vector_lanes == 16
    assert Target("npu-server", num_cores=1).array == (32, 32)
    assert Target.from_string("npu-tiny -array=8x8").ibuf_kb == 4
    assert t.with_attrs(**{"vector-lanes": 8}).vector_lanes == 8
    w = Target("npu-tiny").with_attrs(array=(2, 2))
    assert w.tag == "npu-tiny" and w.array == (2, 2) and w.freq_mhz == 100


@pytest.mark.parametrize("value,expected", [
    ("1", True), ("0", False), ("true", True), ("False", False), (True, True), (0, False)])
def test_booleans(value, expected):
    assert Target("cpu-host", openmp=value).openmp is expected


def test_dict_parsing():
    a = Target.from_dict({"kind": "npu", "vector-lanes": 32, "array": "8x8"})
    b = Target.from_dict({"kind": "npu", "vector_lanes": "32", "array": [8, 8]})
    assert a == b and a.tag is None
    c = Target.from_dict({"tag": "gpu-a100", "launch-us": 3})
    assert c.tag == "gpu-a100" and c.launch_us == 3.0 and c.arch == "sm_80"
    with pytest.raises(TargetError, match="needs a 'kind'"):
        Target.from_dict({"vector-lanes": 3})
    with pytest.raises(TargetError, match="kind 'cpu' but tag 'npu-edge' is a npu target"):
        Target.from_dict({"kind": "cpu", "tag": "npu-edge"})
    with pytest.raises(TargetError, match="'vector-lanes' given twice"):
        Target.from_dict({"kind": "npu", "vector-lanes": 8, "vector_lanes": 8})


def test_create():
    t = Target("npu-tiny")
    assert Target.create(t) is t
    assert Target.create("npu-tiny") == Target.create({"tag": "npu-tiny"}) == t
    with pytest.raises(TypeError):
        Target.create(42)


def test_did_you_mean_attribute():
    with pytest.raises(TargetError) as e:
        Target.from_string("npu -vector-lane=16")
    assert str(e.value).startswith("unknown npu attribute 'vector-lane'; "
                                   "did you mean 'vector-lanes'? known: array, vector-lanes, ")
    with pytest.raises(TargetError, match="did you mean 'vector-lanes'"):
        Target("npu", vector_lane=16)


def test_unknown_kind_and_tag():
    with pytest.raises(TargetError) as e:
        Target.from_string("npx -array=4x4")
    assert "unknown target kind 'npx'; did you mean 'npu'? known: cpu, gpu, npu" in str(e.value)
    with pytest.raises(TargetError, match="did you mean 'npu-edge'"):
        Target("npu-egde")
    with pytest.raises(TargetError, match="unknown target kind 'npx'; did you mean 'npu'"):
        get_target_kind("npx")
    with pytest.raises(TargetError, match="unknown target tag 'gpu-a10'; did you mean 'gpu-a100'"):
        get_tag("gpu-a10")


@pytest.mark.parametrize("build", [lambda: Target.from_dict({"kind": 5}),
                                   lambda: Target.from_dict({"tag": ["npu-edge"]}),
                                   lambda: Target(None)])
def test_kind_or_tag_that_is_not_a_name(build):
    with pytest.raises(TargetError, match="a target kind or tag is a name such as 'npu' or "
                                          r"'npu-edge', not (5 \(int|\['npu-edge'\] \(list|None)"):
        build()


@pytest.mark.parametrize("text,message", [
    ("npu -array=512x512",
     "npu attribute 'array' value '512x512' out of range: rows 1..256 (npu-server has 32x32)"),
    ("npu -array=16x0",
     "npu attribute 'array' value '16x0' out of range: cols 1..256 (npu-tiny has 4x4)"),
    ("npu -ibuf-kb=8193",
     "npu attribute 'ibuf-kb' value '8193' out of range: 1..8192 (npu-server has 512)"),
    ("npu -abuf-kb=32769",
     "npu attribute 'abuf-kb' value '32769' out of range: 1..32768 (npu-server has 1024)"),
    ("npu -vector-lanes=513",
     "npu attribute 'vector-lanes' value '513' out of range: 1..512 (npu-server has 64)"),
    ("npu-tiny -dram-latency=-1", "value '-1' out of range: 0..10000 (npu-tiny has 10)"),
    ("npu -static-mw=-0.5", "npu attribute 'static-mw' value '-0.5' out of range: >= 0.0"),
    ("cpu -cores=0", "cpu attribute 'cores' value '0' out of range: 1..256 (cpu-host has 2)"),
])
def test_out_of_range_names_the_limit(text, message):
    with pytest.raises(TargetError) as e:
        Target.from_string(text)
    assert message in str(e.value)


@pytest.mark.parametrize("text,message", [
    ("npu -vector-lanes=abc",
     "npu attribute 'vector-lanes' value 'abc' is not a valid int; expected an integer"),
    ("npu -vector-lanes=16.0", "is not a valid int"),
    ("npu -array=16",
     "npu attribute 'array' value '16' is not a valid shape2d; expected ROWSxCOLS"),
    ("npu -dram-bw=fast", "'dram-bw' value 'fast' is not a valid int"),
    ("npu -energy-mac-pj=inf", "'energy-mac-pj' value 'inf' is not a valid float"),
    ("cpu -openmp=maybe",
     "cpu attribute 'openmp' value 'maybe' is not a valid bool; expected 1/0 or true/false"),
    ("npu -dtype=int4",
     "npu attribute 'dtype' value 'int4' is not allowed; did you mean 'int8'? choices: int8, fp16"),
    ("cpu -vector-bits=1024", "'vector-bits' value '1024' is not allowed; choices: 128, 256, 512"),
    ("npu vector-lanes=4", "malformed target option 'vector-lanes=4'"),
    ("npu -num-cores=2 -num-cores=4", "'-num-cores' given twice"),
    ("   ", "empty target string"),
])
def test_bad_literals(text, message):
    with pytest.raises(TargetError) as e:
        Target.from_string(text)
    assert message in str(e.value)


def test_bad_python_values():
    with pytest.raises(TargetError, match=r"'vector-lanes' value True \(bool\) is not a valid int"):
        Target("npu", vector_lanes=True)
    with pytest.raises(TargetError, match="'march' value 'a b' .* expected a word without spaces"):
        Target("cpu", march="a b")
    with pytest.raises(TargetError, match="'array' value \\(1, 2, 3\\)"):
        Target("npu", array=(1, 2, 3))


def test_equality_and_hash():
    a = Target("npu", dma_engines=4, weight_buffers=2, depthwise_mode=1)
    b = Target.from_string("npu-edge -dma-engines=4")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != Target("npu") and a != Target("cpu") and a != "npu"
    assert Target("npu", energy_mac_pj=1) == Target("npu", energy_mac_pj=1.0)


def test_immutable():
    t = Target("npu-edge")
    with pytest.raises(AttributeError, match="immutable"):
        t.vector_lanes = 32
    with pytest.raises(AttributeError):
        del t.kind
    t.attrs["vector_lanes"] = 99  # a copy
    assert t.vector_lanes == 16
    with pytest.raises(TypeError):
        t.derived.buffer_elems["abuf"] = 1
    with pytest.raises(AttributeError, match="did you mean 'vector_lanes'"):
        t.vector_lane


def test_npu_derived_exact():
    edge, tiny, server = (Target(n).derived for n in ("npu-edge", "npu-tiny", "npu-server"))
    assert dict(edge.buffer_elems) == {"ibuf": 131072, "wbuf": 131072, "abuf": 65536, "obuf": 65536}
    assert dict(edge.elem_bytes) == {"ibuf": 1, "wbuf": 1, "abuf": 4, "obuf": 1}
    assert edge.buffer_bytes["abuf"] == 256 * 1024 and edge.dram_bytes == 256 << 20
    assert edge.peak_macs_per_cycle == 256 and edge.peak_tops == pytest.approx(0.512)
    assert edge.cycle_ns == 1.0 and edge.dram_bytes_per_cycle == 16
    assert edge.dram_bytes_per_s == 16e9
    assert tiny.peak_macs_per_cycle == 16 and tiny.cycle_ns == 10.0
    assert dict(tiny.buffer_elems) == {"ibuf": 4096, "wbuf": 4096, "abuf": 4096, "obuf": 4096}
    assert server.peak_macs_per_cycle == 32 * 32 * 4
    assert server.peak_tops == pytest.approx(2 * 4096 * 1.5e9 / 1e12)
    fp16 = Target("npu-edge", dtype="fp16").derived
    assert dict(fp16.buffer_elems) == {"ibuf": 65536, "wbuf": 65536, "abuf": 65536, "obuf": 32768}
    assert Target("npu-edge").peak_macs_per_cycle == 256  # derived values reachable as attributes


def test_cpu_gpu_derived():
    cpu = Target("cpu-host").derived
    assert cpu.peak_flops == 100e9 and cpu.mem_bytes_per_s == 20e9
    h100 = Target("gpu-h100")
    assert (h100.arch, h100.sms, h100.launch_us, h100.smem_kb) == ("sm_90", 132, 5.0, 48)
    assert h100.derived.peak_flops == 67e12 and h100.derived.peak_flops_fp16 == 989e12
    assert h100.derived.mem_bytes_per_s == 3350e9
    t4 = Target("gpu-t4")
    got = (t4.arch, t4.peak_tflops, t4.peak_tflops_fp16, t4.mem_bw_gbs, t4.sms)
    assert got == ("sm_75", 8.1, 65.0, 320.0, 40)


def test_describe():
    rows = Target("npu-tiny").describe()
    assert rows[0] == ("array", "4x4", "PEs", "systolic array rows x cols (its dataflow: -dataflow)")
    assert [r[0] for r in rows] == [a.name for a in get_target_kind("npu").attrs]


def test_register_kind_validates():
    with pytest.raises(TargetError, match="already registered"):
        register_target_kind("npu", ())
    with pytest.raises(TargetError, match="'width' value '0' out of range"):
        register_target_kind("bad-kind", (Attr("width", int, 0, 1, 8),))
    with pytest.raises(TargetError, match="unsupported type"):
        Attr("width", list, [])
    assert "bad-kind" not in list_target_kinds()
