"""A saved artifact's manifest is checked when loaded (issue 12's probes): a missing or mistyped
field, a bad const_base, a tensor the program does not declare, or any hand edit is refused in
one line naming the field, never half-trusted (a complex128 input once ran into a misleading
vrequant fault)."""

import json

import pytest

from compiler.artifact import Artifact, ArtifactError, _manifest_sha
from compiler.backends import build


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    d = tmp_path_factory.mktemp("art")
    build("small_cnn", "npu-tiny", num_calib=1).artifact.save(d)
    return d


def edited(saved, tmp_path, sign=True, drop=(), **fields):
    """A copy of the artifact with manifest fields changed (re-signed: a consistent edit)."""
    for f in saved.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    m = json.loads((saved / "manifest.json").read_text())
    m.update(fields)
    for key in drop:
        del m[key]
    if sign:
        m["manifest_sha256"] = _manifest_sha(m)
    (tmp_path / "manifest.json").write_text(json.dumps(m))
    return tmp_path


def test_a_saved_artifact_loads_and_signs_its_manifest(saved):
    m = json.loads((saved / "manifest.json").read_text())
    assert m["manifest_sha256"] == _manifest_sha(m)
    assert Artifact.load(saved).inputs[0].dtype == "int8"


@pytest.mark.parametrize("field", ["target", "const_base", "inputs"])
def test_a_missing_field_is_named(saved, tmp_path, field):
    with pytest.raises(ArtifactError, match=f"corrupted: no '{field}' field; recompile"):
        Artifact.load(edited(saved, tmp_path, drop=(field,)))


@pytest.mark.parametrize("value,match", [
    ("0x4000", "'const_base' is str '0x4000', not int"),
    (-64, "const_base -64 is negative"),
    (1 << 40, "end past the target's 1,048,576 B of DRAM"),
])
def test_a_bad_const_base_is_refused(saved, tmp_path, value, match):
    with pytest.raises(ArtifactError, match=match):
        Artifact.load(edited(saved, tmp_path, const_base=value))


def test_a_string_layer_of_is_refused(saved, tmp_path):
    with pytest.raises(ArtifactError, match="'layer_of' is str '0,1', not list"):
        Artifact.load(edited(saved, tmp_path, layer_of="0,1"))
    with pytest.raises(ArtifactError, match="layer_of must list"):
        Artifact.load(edited(saved, tmp_path, layer_of=[[["0", 1]]]))


def test_an_input_the_program_does_not_declare_is_refused(saved, tmp_path):
    m = json.loads((saved / "manifest.json").read_text())
    wrong_dtype = [{**m["inputs"][0], "dtype": "complex128"}]
    with pytest.raises(ArtifactError, match=r"inputs\[0\]\.dtype 'complex128' is not one of"):
        Artifact.load(edited(saved, tmp_path, inputs=wrong_dtype))
    wrong_shape = [{**m["inputs"][0], "shape": [1, 16, 16, 3]}]
    with pytest.raises(ArtifactError, match=r"input 'input.nhwc' is int8\[1, 16, 16, 3\] at "
                                            r"0x4000, but the program declares int8\[1, 32, 32, "
                                            r"3\] there"):
        Artifact.load(edited(saved, tmp_path, inputs=wrong_shape))


def test_any_unsigned_edit_is_refused(saved, tmp_path):
    m = json.loads((saved / "manifest.json").read_text())
    layers = [dict(m["layers"][0], macs=m["layers"][0]["macs"] * 100)] + m["layers"][1:]
    with pytest.raises(ArtifactError, match="the manifest was edited"):
        Artifact.load(edited(saved, tmp_path, sign=False, layers=layers))
