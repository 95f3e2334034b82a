"""The on-disk front-half cache: a second compile (another Target) reuses the first one's front
half; a changed model or option misses; a corrupt, truncated or foreign entry is rebuilt, never
trusted; NPUSIM_CACHE_DIR picks the folder or turns the cache off."""

from pathlib import Path

import numpy as np
import pytest

from compiler import cache
from compiler.backends import build
from compiler.build import build_quantized


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path))
    return tmp_path


def entries(root: Path) -> list:
    cache.flush()  # entries are written by a background thread
    return sorted((root / "front").glob("*.pkl")) if (root / "front").exists() else []


def program_bytes(model, target, **kw) -> tuple:
    art = build(model, target, **kw).artifact
    return art.program.to_bytes(), bytes(art.constants)


def test_a_second_target_reuses_the_front_half(cache_dir, monkeypatch):
    first = program_bytes("small_cnn", "npu-edge", num_calib=2)
    assert len(entries(cache_dir)) == 1
    cold_other = program_bytes("small_cnn", "npu-server", num_calib=2)
    with monkeypatch.context() as m:
        m.setattr("compiler.build.load_model", lambda *a, **k: pytest.fail("front half ran"))
        assert program_bytes("small_cnn", "npu-edge", num_calib=2) == first
        assert program_bytes("small_cnn", "npu-server", num_calib=2) == cold_other
    assert len(entries(cache_dir)) == 1
    assert not list((cache_dir / "front").glob("*.tmp"))  # written atomically, nothing left


def test_the_module_carries_the_target_it_was_asked_for(cache_dir):
    a = build_quantized("mlp", num_calib=1, target="npu-edge")
    b = build_quantized("mlp", num_calib=1, target="npu-server")
    assert a.target.tag == "npu-edge" and b.target.tag == "npu-server"
    assert len(entries(cache_dir)) == 1


@pytest.mark.parametrize("change", [
    {"num_calib": 2}, {"seed": 1}, {"pipeline": "simplify, fold-constants, fold-bn, "
                                    "convert-layout, calibrate(method=percentile), fuse, "
                                    "quantize, plan-memory"},
])
def test_a_changed_option_misses(cache_dir, change):
    build_quantized("mlp", num_calib=1)
    build_quantized("mlp", **{"num_calib": 1, **change})
    assert len(entries(cache_dir)) == 2


def test_model_kwargs_and_calibration_inputs_are_part_of_the_key(cache_dir):
    build_quantized("resnet18", num_calib=1, resolution=32)
    build_quantized("resnet18", num_calib=1, resolution=16)
    assert len(entries(cache_dir)) == 2
    feed = {"input": np.full((1, 784), 0.5, np.float32)}
    a = build_quantized("mlp", [feed])
    b = build_quantized("mlp", [{"input": np.full((1, 784), 2.0, np.float32)}])
    assert len(entries(cache_dir)) == 4
    assert a.scales != b.scales


def test_a_changed_model_misses(cache_dir):
    from compiler import zoo
    g = zoo.get("mlp")
    build_quantized(g, num_calib=1)
    name = next(iter(g.constants))
    g.constants[name] = g.constants[name] + 1
    build_quantized(g, num_calib=1)
    assert len(entries(cache_dir)) == 2


@pytest.mark.parametrize("damage", [
    lambda b: b[: len(b) // 2],                                   # truncated
    lambda b: b[:-10] + bytes(10),                                # corrupted payload
    lambda b: b"not a cache entry",                               # foreign file
    lambda b: b[:len(cache.MAGIC) + 8] + bytes(4) + b[len(cache.MAGIC) + 12:],  # bad checksum
])
def test_a_damaged_entry_is_rebuilt_not_trusted(cache_dir, damage):
    first = program_bytes("mlp", "npu-edge", num_calib=1)
    path, = entries(cache_dir)
    path.write_bytes(damage(path.read_bytes()))
    assert program_bytes("mlp", "npu-edge", num_calib=1) == first
    assert cache.load(path.stem) is not None  # rewritten sound


def test_another_keys_entry_is_not_used(cache_dir):
    a = build_quantized("mlp", num_calib=1)
    build_quantized("mlp", num_calib=2)
    one, two = entries(cache_dir)
    one.write_bytes(two.read_bytes())  # a sound entry under the wrong name
    assert cache.load(one.stem) is None
    again = build_quantized("mlp", num_calib=1)
    assert again.scales == a.scales


def test_the_cache_can_be_turned_off(tmp_path, monkeypatch):
    for word in ("off", "OFF", "none", "0", "false"):
        monkeypatch.setenv("NPUSIM_CACHE_DIR", word)
        assert cache.cache_dir() is None
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("NPUSIM_CACHE_DIR", "off")
    build_quantized("mlp", num_calib=1)
    assert not any(tmp_path.rglob("*.pkl"))


def test_where_the_cache_lives(tmp_path, monkeypatch):
    monkeypatch.delenv("NPUSIM_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "npusim"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache.cache_dir() == tmp_path / ".cache" / "npusim"
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "mine"))
    assert cache.cache_dir() == tmp_path / "mine"


def test_an_unwritable_cache_only_costs_the_reuse(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(blocker))
    assert build_quantized("mlp", num_calib=1).graph.nodes


def test_the_fp16_float_front_half_is_cached_too(cache_dir, monkeypatch):
    first = program_bytes("small_cnn", "npu-edge -dtype=fp16")
    assert len(entries(cache_dir)) == 1
    monkeypatch.setattr("compiler.build.load_model", lambda *a, **k: pytest.fail("front half ran"))
    assert program_bytes("small_cnn", "npu-server -dtype=fp16") != first
    assert program_bytes("small_cnn", "npu-edge -dtype=fp16") == first


def test_a_zoo_models_entry_leaves_its_float_model_out(cache_dir, monkeypatch):
    from compiler import build as front
    a = build_quantized("small_cnn", num_calib=1)
    path, = entries(cache_dir)
    assert cache.load(path.stem).float_graph is None  # the zoo's code pins it: rebuilt on use
    calls = []
    real = front.load_model
    monkeypatch.setattr(front, "load_model", lambda *a, **k: calls.append(a) or real(*a, **k))
    b = build_quantized("small_cnn", num_calib=1)
    assert calls == []  # a warm hit builds nothing the back half does not read ...
    assert b.float_graph.inputs == a.float_graph.inputs and calls == [("small_cnn",)]
    assert [n.output for n in b.float_graph.nodes] == [n.output for n in a.float_graph.nodes]
    for name, array in a.float_graph.constants.items():  # ... and the float model on first use
        assert np.array_equal(b.float_graph.constants[name], array)


def test_an_onnx_file_fingerprint_covers_its_external_data(tmp_path):
    """Weights kept in an external data file are part of the model: editing them must miss the
    cache (the fingerprint hashed only the .onnx bytes, so a stale front half was reused)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    w = numpy_helper.from_array(np.ones((4, 3), np.float32), "w")
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])], [w])
    path = tmp_path / "m.onnx"
    onnx.save_model(helper.make_model(graph), path, save_as_external_data=True,
                    location="w.data", size_threshold=0)
    before = cache.model_fingerprint(str(path))
    data = tmp_path / "w.data"
    raw = bytearray(data.read_bytes())
    raw[0] ^= 1
    data.write_bytes(bytes(raw))
    assert cache.model_fingerprint(str(path)) != before


def test_arrays_round_trip_out_of_band(cache_dir):
    """An entry keeps its arrays' data out of the pickle (aligned, read back in place): every
    layout and dtype comes back equal, and a flipped byte in an array's data is caught."""
    values = {"c": np.arange(24, dtype=np.int8).reshape(2, 3, 4),
              "f": np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4)),
              "strided": np.arange(20, dtype=np.int32)[::3], "empty": np.zeros((0, 3)),
              "scalar": np.float64(2.5), "text": "x" * 100}
    cache.store("k", values)
    got = cache.load("k")
    assert got.keys() == values.keys() and got["text"] == values["text"]
    for k in ("c", "f", "strided", "empty", "scalar"):
        assert np.array_equal(got[k], values[k]) and got[k].dtype == values[k].dtype
    assert got["f"].flags.f_contiguous and got["c"].flags.aligned
    path, = entries(cache_dir)
    data = bytearray(path.read_bytes())
    at = bytes(data).index(bytes(values["c"]))  # the int8 array's data, outside the pickle
    data[at + 5] ^= 1
    path.write_bytes(bytes(data))
    assert cache.load("k") is None


def test_damage_inside_a_large_array_is_caught(cache_dir):
    """A large buffer is checked by word sums, not a CRC: a changed word, and two of its
    512-byte blocks swapped (same words, other places), are each caught."""
    a = np.arange(8192, dtype=np.float64)  # 64 KB: 128 blocks
    cache.store("big", {"a": a})
    path, = entries(cache_dir)
    sound = bytearray(path.read_bytes())
    at = bytes(sound).index(a.tobytes())
    assert np.array_equal(cache.load("big")["a"], a)
    flipped = bytearray(sound)
    flipped[at + 40_000] ^= 0x10
    swapped = bytearray(sound)
    swapped[at + 1024:at + 1536], swapped[at + 4096:at + 4608] = \
        sound[at + 4096:at + 4608], sound[at + 1024:at + 1536]
    for damaged in (flipped, swapped):
        path.write_bytes(bytes(damaged))
        assert cache.load("big") is None


def test_an_entry_is_what_was_stored_though_written_later(cache_dir, monkeypatch):
    """store() returns before the file is written: a writable array changed right after is
    stored as it was, a read-only one is written from place, and a load waits for the write."""
    import threading
    from isa import files
    gate = threading.Event()
    real = files.write_atomic
    monkeypatch.setattr(cache, "write_atomic", lambda *a: gate.wait(10) and real(*a))
    live, frozen = np.arange(4096, dtype=np.int32), np.arange(4096, dtype=np.int32)
    frozen.setflags(write=False)
    cache.store("later", {"live": live, "frozen": frozen})
    live[:] = -1  # the caller goes on while the write waits
    assert not list(cache_dir.rglob("*.pkl"))  # not written yet
    gate.set()
    got = cache.load("later")
    assert np.array_equal(got["live"], np.arange(4096)) and np.array_equal(got["frozen"], frozen)


def test_a_killed_writers_temp_file_is_swept(cache_dir, monkeypatch):
    """A worker killed mid-write leaves write_atomic's hidden temp file; the next process's
    first store into the folder removes it (a dead writer's past a minute, anyone's past a
    day) and keeps a live writer's."""
    import os
    import subprocess
    import sys
    import time
    front = cache_dir / "front"
    front.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead_pid = int(dead.stdout)  # exited: no process has this pid now (it is not reused yet)
    stale = front / f".abc.pkl.{dead_pid}.00ff00ff.tmp"
    fresh_dead = front / f".abd.pkl.{dead_pid}.00ff00fe.tmp"
    live = front / f".abe.pkl.{os.getpid()}.00ff00fd.tmp"
    ancient = front / f".abf.pkl.{os.getpid()}.00ff00fc.tmp"
    other = front / ".notes.tmp"  # not a name write_atomic makes
    for p in (stale, fresh_dead, live, ancient, other):
        p.write_bytes(b"half an entry")
    hour, week = time.time() - 3600, time.time() - 7 * 86400
    for p in (stale, live):
        os.utime(p, (hour, hour))
    os.utime(ancient, (week, week))
    monkeypatch.setattr(cache, "_SWEPT", set())
    build_quantized("mlp", num_calib=1)
    cache.flush()
    left = {p.name for p in front.iterdir()}
    assert stale.name not in left and ancient.name not in left
    assert {fresh_dead.name, live.name, other.name} <= left
    assert len(entries(cache_dir)) == 1
