"""Backend registry by target kind; the artifact's save/load round trip and its refusals."""

import json

import numpy as np
import pytest

from compiler.artifact import Artifact, ArtifactError
from compiler.backends import Backend, build, get_backend, list_backends, register_backend
from compiler.errors import CompilerError
from npusim.cli.run_cmd import device_inputs, execute, random_inputs


@pytest.fixture(scope="module")
def mlp_npu():
    return build("mlp", "npu-edge", num_calib=2)


def test_backends_are_found_by_kind_not_by_target():
    assert "npu" in list_backends()
    assert type(get_backend("npu-tiny")) is type(get_backend("npu -array=8x8"))
    with pytest.raises(CompilerError, match="no backend for target kind 'gpu'.*known: .*npu"):
        get_backend("gpu-a100")


def test_a_new_kind_registers_and_builds():
    @register_backend("cpu")
    class Dummy(Backend):
        def build(self, model, target, **options):
            return ("built", model, str(target))
    try:
        assert build("mlp", "cpu-host") == ("built", "mlp", "cpu-host")
    finally:
        from compiler import backends
        backends._BACKENDS.pop("cpu")


def test_registering_a_kind_twice_is_refused():
    with pytest.raises(CompilerError, match="already registered"):
        @register_backend("npu")
        class Other(Backend):
            pass


def test_artifact_round_trip_runs_identically(mlp_npu, tmp_path):
    art = mlp_npu.artifact
    art.save(tmp_path)
    back = Artifact.load(tmp_path)
    assert back.program.cores == art.program.cores and back.constants == art.constants
    assert back.target == "npu-edge" and back.isa_version == art.isa_version
    assert [e.to_json() for e in back.inputs] == [e.to_json() for e in art.inputs]
    assert back.layers == json.loads(json.dumps(art.layers))
    dev_in = device_inputs(mlp_npu, random_inputs(mlp_npu))
    r1, o1 = execute(art, dev_in)
    r2, o2 = execute(back, dev_in)
    assert r1.cycles == r2.cycles
    assert all(np.array_equal(o1[k], o2[k]) for k in o1)
    # the readable assembly names the layer and the tile in comments
    assert "; fc1.matmul out 0:256 in 0:" in back.assembly
    assert "L0_fc1.matmul:" in back.assembly


@pytest.mark.parametrize("damage,needle", [
    (lambda d: (d / "constants.bin").write_bytes(b"\0" + (d / "constants.bin").read_bytes()[1:]),
     "corrupted: sha256"),
    (lambda d: (d / "program.s").unlink(), "program.s is missing"),
    (lambda d: (d / "manifest.json").write_text("{"), "corrupted: not JSON"),
    (lambda d: (d / "manifest.json").unlink(), "no manifest.json"),
    (lambda d: _edit(d, format_version=0), "stale artifact: format version 0"),
    (lambda d: _edit(d, isa_version="2.0"), "stale artifact: built for ISA 2.0"),
    (lambda d: _edit(d, format="zip"), "not an npusim-artifact manifest"),
])
def test_damaged_artifacts_are_refused_with_a_reason(mlp_npu, tmp_path, damage, needle):
    mlp_npu.artifact.save(tmp_path)
    damage(tmp_path)
    with pytest.raises(ArtifactError, match=needle):
        Artifact.load(tmp_path)


def test_program_container_damage_is_caught_even_with_a_matching_hash(mlp_npu, tmp_path):
    mlp_npu.artifact.save(tmp_path)
    blob = bytearray((tmp_path / "program.bin").read_bytes())
    blob[100] ^= 1
    (tmp_path / "program.bin").write_bytes(bytes(blob))
    _edit(tmp_path, files_hash="program.bin")  # re-hash: only the container's CRC can tell
    with pytest.raises(ArtifactError, match="checksum mismatch"):
        Artifact.load(tmp_path)


def _edit(d, files_hash=None, **fields):
    import hashlib
    m = json.loads((d / "manifest.json").read_text())
    m.update(fields)
    if files_hash:
        m["files"][files_hash]["sha256"] = hashlib.sha256((d / files_hash).read_bytes()).hexdigest()
    (d / "manifest.json").write_text(json.dumps(m))
