"""Device runs: bindings staged into fixed tensor addresses, results vs isa.semantics, faults."""
from pathlib import Path

import numpy as np
import pytest

from isa import instruction
from isa.asm import Program, TensorDecl
from isa.semantics import gemm
from npusim.faults import MemoryFault
from npusim.runtime import Device, DeviceError, ProgramError, RunFault
from npusim.simulate import simulate

EXAMPLES = Path(__file__).parents[2] / "examples"
rng = np.random.default_rng(7)
A_ADDR, W_ADDR, C_ADDR = 0x100, 0x140, 0x180


def gemm_program(c_dram=C_ADDR, target="npu-tiny"):
    """C[4x4] int32 = A[4x4] int8 @ W[4x4] int8 on npu-tiny, through dma0 and the array."""
    code = [
        instruction("load", chan=0, buf="ibuf", sram=0, dram=A_ADDR, rows=4, cols=4, stride=4),
        instruction("load", chan=0, buf="wbuf", sram=0, dram=W_ADDR, rows=4, cols=4, stride=4),
        instruction("signal", unit="dma0", sem=0),
        instruction("wait", unit="matrix", sem=0),
        instruction("gemm", ibuf=0, wbuf=0, abuf=0, m=4, k=4, n=4, acc=0),
        instruction("signal", unit="matrix", sem=1),
        instruction("wait", unit="dma0", sem=1),
        instruction("store", chan=0, buf="abuf", sram=0, dram=c_dram, rows=4, cols=4, stride=16),
        instruction("halt"),
    ]
    tensors = {"A": TensorDecl(A_ADDR, (4, 4), "int8"), "W": TensorDecl(W_ADDR, (4, 4), "int8"),
               "C": TensorDecl(C_ADDR, (4, 4), "int32")}
    return Program.from_instructions([code], target=target, tensors=tensors, source="gemm4")


def int8(*shape):
    return rng.integers(-128, 128, shape).astype(np.int8)


@pytest.fixture
def dev():
    with Device("npu-tiny") as d:
        yield d


def test_moved_bindings_compute_gemm_and_leave_other_buffers_alone(dev):
    a, w = int8(4, 4), int8(4, 4)
    # The pool's first blocks cover the program's tensor addresses 0x100..0x1c0: the run
    # must stage around them and restore them.
    victims = [dev.upload(np.full(64, i, np.uint8), name=f"v{i}") for i in range(8)]
    assert any(v.addr == A_ADDR for v in victims) and any(v.addr == C_ADDR for v in victims)
    A, W = dev.upload(a, name="A"), dev.upload(w, name="W")
    C = dev.alloc((4, 4), "int32", name="C")
    assert (A.addr, W.addr, C.addr) == (0x200, 0x240, 0x280)
    prog = dev.load_program(gemm_program())
    result = dev.sync(dev.run(prog, bindings={"A": A, "W": W, "C": C}))
    np.testing.assert_array_equal(dev.copy_from_device(C), gemm(a, w))
    np.testing.assert_array_equal(result.output("C"), gemm(a, w))  # reads the bound buffer
    for i, v in enumerate(victims):
        assert (dev.copy_from_device(v) == i).all(), f"run clobbered {v.label}"
    np.testing.assert_array_equal(dev.copy_from_device(A), a)
    # The device adds no cycles: the same program simulated directly times the same.
    direct = simulate(gemm_program(), inputs={"A": a, "W": w})
    assert result.cycles == direct.cycles and result.macs == 64
    s = dev.stats()
    assert (s["runs"], s["total_cycles"], s["pending"], s["buffers"]) == (1, result.cycles, 0, 11)


def test_in_place_buffers_from_alloc_for(dev):
    a, w = int8(4, 4), int8(4, 4)
    prog = dev.load_program(gemm_program())
    bufs = {n: dev.alloc_for(prog, n) for n in ("A", "W", "C")}
    assert [b.addr for b in bufs.values()] == [A_ADDR, W_ADDR, C_ADDR]
    dev.copy_to_device(bufs["A"], a)
    dev.copy_to_device(bufs["W"], w)
    dev.sync(dev.run(prog, bindings=bufs))
    np.testing.assert_array_equal(dev.copy_from_device(bufs["C"]), gemm(a, w))
    with pytest.raises(ProgramError, match="cannot place tensor 'A' of gemm4 in place.*overlaps A"):
        dev.alloc_for(prog, "A")


def test_unbound_tensors_run_on_zeros_and_timing_only_moves_no_data(dev):
    a = int8(4, 4)
    prog = dev.load_program(gemm_program())
    A, C = dev.upload(a, name="A"), dev.upload(np.full((4, 4), 99, np.int32), name="C")
    on_w = dev.alloc_for(prog, "W")  # live but unbound: the run must see zeros, not its 7s
    dev.copy_to_device(on_w, np.full((4, 4), 7, np.int8))
    full = dev.sync(dev.run(prog, bindings={"A": A, "C": C}))
    assert (dev.copy_from_device(C) == 0).all() and (dev.copy_from_device(on_w) == 7).all()
    dev.copy_to_device(C, np.full((4, 4), 99, np.int32))
    fast = dev.sync(dev.run(prog, bindings={"A": A, "C": C}, timing_only=True))
    assert fast.cycles == full.cycles and fast.timing_only
    assert (dev.copy_from_device(C) == 99).all()
    assert dev.stats()["total_cycles"] == 2 * full.cycles


def test_fault_surfaces_at_sync_with_the_instruction_and_restores_memory(dev):
    # C stored past the 1 MiB DRAM of npu-tiny.
    prog = dev.load_program(gemm_program(c_dram=(1 << 20) - 32))
    A = dev.upload(int8(4, 4), name="A")
    victim = dev.upload(np.full(64, 5, np.uint8), name="victim")
    victim_at_w = dev.alloc_for(prog, "W")  # an unbound buffer sitting on tensor W
    dev.copy_to_device(victim_at_w, np.full((4, 4), 3, np.int8))
    handle = dev.run(prog, bindings={"A": A})
    with pytest.raises(RunFault) as e:
        dev.sync(handle)
    msg = str(e.value)
    assert msg.startswith("run 1 of gemm4 on npu-tiny faulted: ")
    assert msg.endswith(str(e.value.fault))  # the fault's own text: unit, index, disassembly
    assert "core0.dma0" in msg and "[7] store" in msg and "1048576 bytes" in msg
    assert isinstance(e.value.fault, MemoryFault) and isinstance(e.value, DeviceError)
    assert (dev.copy_from_device(victim_at_w) == 3).all()
    assert (dev.copy_from_device(victim) == 5).all()
    assert dev.stats()["faults"] == 1 and dev.stats()["total_cycles"] == 0


def test_binding_errors(dev):
    prog = dev.load_program(gemm_program())
    with pytest.raises(ProgramError, match="gemm4 declares no tensor 'B'; declared: A, W, C"):
        dev.run(prog, bindings={"B": dev.alloc(16)})
    with pytest.raises(ProgramError, match=r"buffer 'x' \(int8\[16\]\) cannot bind tensor 'A' "
                                           r"\(int8\[4,4\], 16 B\)"):
        dev.run(prog, bindings={"A": dev.alloc(16, "int8", name="x")})
    raw = dev.alloc(16, name="raw")  # a raw buffer of the right byte size is fine
    both = {"A": raw, "W": raw}
    with pytest.raises(ProgramError, match="buffer 'raw' is bound to both 'A' and 'W'"):
        dev.run(prog, bindings=both)
    with pytest.raises(ProgramError, match="must be a DeviceBuffer"):
        dev.run(prog, bindings={"A": np.zeros((4, 4), np.int8)})
    assert dev.stats()["pending"] == 0


def test_sync_all_and_sync_twice(dev):
    prog = dev.load_program(gemm_program())
    h1, h2 = dev.run(prog), dev.run(prog, timing_only=True)
    assert dev.stats()["pending"] == 2
    r1, r2 = dev.sync()
    assert r1.cycles == r2.cycles and dev.stats()["runs"] == 2
    with pytest.raises(DeviceError, match="run 1 was already synced"):
        dev.sync(h1)


def test_incompatible_program_is_refused_at_load(dev):
    with pytest.raises(ProgramError, match=r"gemm4 built for npu-edge cannot run on npu-tiny: "
                                           r"-array=16x16 vs -array=4x4"):
        dev.load_program(gemm_program(target="npu-edge"))


def test_example_from_assembly_path_matches_numpy():
    a, w = int8(16, 16), int8(16, 16)
    rq = np.stack([rng.integers(1 << 13, 1 << 15, 16), rng.integers(18, 24, 16)], 1)
    rq = rq.astype(np.int32)
    with Device("npu-edge -dram-bw=32") as dev:  # a timing-only override is compatible
        prog = dev.load_program(EXAMPLES / "gemm_tile.s")
        bufs = {"A": dev.upload(a), "W": dev.upload(w), "RQ": dev.upload(rq),
                "C": dev.alloc((16, 16), "int8")}
        dev.sync(dev.run(prog, bindings=bufs))
        acc = gemm(a, w).astype(np.int64)
        y = (acc * rq[:, 0] + (1 << (rq[:, 1] - 1).astype(np.int64))) >> rq[:, 1]
        np.testing.assert_array_equal(dev.copy_from_device(bufs["C"]),
                                      np.clip(y, -128, 127).astype(np.int8))


def test_unreadable_program_paths(tmp_path):
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"hello")
    with Device("npu-tiny") as dev:
        with pytest.raises(ProgramError, match="bad.bin is not an npusim program"):
            dev.load_program(bad)
        with pytest.raises(ProgramError, match="cannot read program .*missing.bin"):
            dev.load_program(tmp_path / "missing.bin")


def test_two_core_program_with_scratch_tensor_left_unbound():
    a, w = int8(16, 32), int8(32, 16)
    with Device("npu-edge -num-cores=2") as dev:
        prog = dev.load_program(EXAMPLES / "two_core_barrier.s")
        C = dev.alloc((16, 16), "int32", name="C")
        keep = dev.upload(np.arange(4096, dtype=np.int32), name="keep")  # covers P1 and C
        result = dev.sync(dev.run(prog, bindings={"A": dev.upload(a), "W": dev.upload(w),
                                                  "C": C}))
        np.testing.assert_array_equal(dev.copy_from_device(C), gemm(a, w))
        np.testing.assert_array_equal(dev.copy_from_device(keep), np.arange(4096))
        assert result.macs == 16 * 32 * 16
        with pytest.raises(ProgramError, match=r"-num-cores=2 needs at least that, device has "
                                               r"-num-cores=1"):
            Device("npu-edge").load_program(EXAMPLES / "two_core_barrier.s")
