"""Every fault stops simulate() with a specific exception naming index, disassembly, unit and reason."""

import numpy as np
import pytest

import npusim.core
from isa import encode_fields
from isa import instruction as I
from npusim.faults import (CycleLimitExceeded, DeadlockError, IllegalInstructionError,
                           InputError, MemoryFault, SimulationFault, SyncFault)
from npusim.simulate import simulate


def load(**kw):
    args = dict(chan=0, buf="ibuf", sram=0, dram=0, rows=4, cols=4, stride=4)
    args.update(kw)
    return I("load", **args)


def test_unknown_opcode_faults_when_dispatch_reaches_it():
    words = [encode_fields("nop"), 0xEE, encode_fields("halt")]
    with pytest.raises(IllegalInstructionError) as e:
        simulate([words], "npu-tiny")
    err = e.value
    assert (err.core, err.unit, err.index, err.cycle) == (0, "dispatch", 1, 1)
    assert str(err).startswith("core0.dispatch [1] (cycle 1): illegal instruction: unknown "
                               "opcode 0xee")
    # after halt nothing is fetched, so a bad word there is harmless
    assert simulate([[encode_fields("halt"), 0xEE]], "npu-tiny").cycles == 1


def test_channel_the_target_lacks_is_illegal():
    with pytest.raises(IllegalInstructionError) as e:
        simulate([I("nop"), load(chan=2)], "npu-tiny")
    assert (e.value.index, e.value.unit) == (1, "dispatch")
    assert "load chan=2" in str(e.value) and "names unit dma2" in str(e.value)
    assert "dma-engines=1" in str(e.value)


def test_out_of_bounds_dram_read_is_a_memory_fault():
    # npu-tiny DRAM is 1 MiB = 1048576 bytes
    with pytest.raises(MemoryFault) as e:
        simulate([I("nop"), load(dram=1048570, rows=1, cols=16, stride=16)], "npu-tiny")
    err = e.value
    assert (err.core, err.unit, err.index) == (0, "dma0", 1)
    assert "load" in err.disassembly and "dram=0xffffa" in err.disassembly.lower()
    assert "ends at 1048586, past the DRAM size of 1048576 bytes" in str(err)


def test_buffer_overflow_in_the_matrix_unit():
    with pytest.raises(MemoryFault) as e:
        simulate([I("gemm", ibuf=0, wbuf=4090, abuf=0, m=1, k=4, n=4)], "npu-tiny")
    assert (e.value.unit, e.value.index) == ("matrix", 0)
    assert "wbuf overflow: operand 'wbuf' at element address 4090 with extent 16" in str(e.value)


def test_misaligned_transfer():
    with pytest.raises(MemoryFault, match="misaligned DRAM dram 2: abuf elements are 4 bytes"):
        simulate([load(buf="abuf", dram=2)], "npu-tiny")


def test_oversized_transfer():
    with pytest.raises(MemoryFault, match="obuf overflow: operand 'sram' .* extent 4352 .* "
                                          "size of 4096"):
        simulate([load(buf="obuf", rows=68, cols=64, stride=64)], "npu-tiny")


def test_deadlock_names_what_every_unit_waits_for():
    prog = [I("wait", unit="matrix", sem=3), I("gemm", ibuf=0, wbuf=0, abuf=0, m=1, k=1, n=1),
            I("halt")]
    with pytest.raises(DeadlockError) as e:
        simulate(prog, "npu-tiny")
    err = e.value
    assert err.waiting["core0.matrix"] == ("wait sem=3 (value 0) at [0] wait unit=matrix, sem=3")
    assert err.waiting["core0.vector"] == "idle (queue empty)"
    assert err.waiting["core0.dispatch"] == "finished (halt or end of program)"
    assert (err.unit, err.index) == ("matrix", 0)
    assert "core0.matrix: wait sem=3 (value 0) at [0]" in str(err)


def test_deadlock_on_a_full_queue_behind_a_wait():
    # matrix blocks on sem 0; its queue (depth 4) fills; dispatch can never reach the signal.
    prog = [I("wait", unit="matrix", sem=0)] + [I("gemm", ibuf=0, wbuf=0, abuf=0, m=1, k=1, n=1)] * 5 \
        + [I("signal", unit="vector", sem=0)]
    with pytest.raises(DeadlockError) as e:
        simulate(prog, "npu-tiny")
    assert e.value.waiting["core0.dispatch"].startswith("queue of core0.matrix full (4 entries) "
                                                        "at [5] gemm")
    assert e.value.cycle == 5


def test_deadlock_when_a_core_never_reaches_the_global_barrier():
    with pytest.raises(DeadlockError) as e:
        simulate([[I("gbarrier", id=1)], [I("halt")]], "npu-tiny -num-cores=2")
    assert e.value.waiting["global"] == "gbarrier id=1: arrived core0; never reached by core1"
    assert "gbarrier id=1: waiting for the other cores at [0]" in e.value.waiting["core0.dispatch"]


def test_global_barrier_id_mismatch_is_a_sync_fault():
    with pytest.raises(SyncFault) as e:
        simulate([[I("gbarrier", id=1)], [I("gbarrier", id=2)]], "npu-tiny -num-cores=2")
    assert (e.value.core, e.value.unit, e.value.index) == (1, "dispatch", 0)
    assert "gbarrier id=2 on core1 meets gbarrier id=1 already reached by core0" in str(e.value)


def test_semaphore_overflow_is_a_sync_fault(monkeypatch):
    monkeypatch.setattr(npusim.core, "SEMAPHORE_MAX", 2)
    with pytest.raises(SyncFault) as e:
        simulate([I("signal", unit="vector", sem=5)] * 3, "npu-tiny")
    assert (e.value.unit, e.value.index) == ("vector", 2)
    assert "semaphore sem=5 overflows its capacity of 2" in str(e.value)


def test_semaphore_beyond_the_target_is_illegal():
    with pytest.raises(IllegalInstructionError, match="sem=9 does not exist: this Target has 8"):
        simulate([I("signal", unit="vector", sem=9)], "npu-tiny")


@pytest.mark.parametrize("fields, message", [
    (dict(unit="dma0", reg="conv_kh", value=3),
     "cfg: register conv_kh belongs to the matrix unit, not dma0; write it with unit=matrix"),
    (dict(unit="vector", reg="pool_kh", value=0),
     "cfg: pool_kh value 0 out of range 1..255 (pooling window height)"),
])
def test_illegal_cfg_words_fault_in_their_unit(fields, message):
    # The assembler refuses these; a word built without it must still not run.
    with pytest.raises(IllegalInstructionError) as e:
        simulate([I("nop"), I("cfg", **fields)], "npu-tiny")
    assert (e.value.unit, e.value.index) == (fields["unit"], 1)
    assert str(e.value).startswith(f"core0.{fields['unit']} [1] cfg unit={fields['unit']}")
    assert message in str(e.value)


def test_cycle_limit_guards_long_runs():
    prog = [load()]  # 17 cycles
    assert simulate(prog, "npu-tiny", max_cycles=17).cycles == 17
    with pytest.raises(CycleLimitExceeded) as e:
        simulate(prog, "npu-tiny", max_cycles=16)
    assert "max_cycles=16" in str(e.value)
    assert e.value.waiting["core0.dma0"].startswith("executing at [0] load")


def test_bad_inputs_are_reported_before_the_run():
    class Prog:
        cores = [[encode_fields("halt")]]
        tensors = {"X": (0, (4,), "int8")}
        target = "npu-tiny"

    with pytest.raises(InputError, match="input 'Y' is not a declared tensor; the program "
                                         "declares: X"):
        simulate(Prog(), None, inputs={"Y": np.zeros(4, np.int8)})
    with pytest.raises(InputError, match=r"shape \(5,\), the tensor is \(4,\)"):
        simulate(Prog(), None, inputs={"X": np.zeros(5, np.int8)})
    with pytest.raises(InputError, match="does not fit the tensor's int8"):
        simulate(Prog(), None, inputs={"X": np.array([1, 2, 3, 300])})
    with pytest.raises(InputError, match="2 core streams but the Target has num-cores=1"):
        simulate([[I("halt")], [I("halt")]], "npu-tiny")


def test_every_fault_is_a_simulation_fault():
    for cls in (IllegalInstructionError, MemoryFault, SyncFault, DeadlockError,
                CycleLimitExceeded, InputError):
        assert issubclass(cls, SimulationFault)


def test_deadlock_is_not_mistaken_for_the_cycle_limit():
    # A long transfer leaves the DRAM port's wake-up pending; the wait still deadlocks.
    prog = [I("load", chan=0, buf="ibuf", sram=0, dram=0, rows=64, cols=64, stride=64),
            I("wait", unit="vector", sem=0)]
    with pytest.raises(DeadlockError) as e:
        simulate(prog, "npu-tiny", max_cycles=100_000)
    assert e.value.waiting["core0.vector"].startswith("wait sem=0 (value 0) at [1]")
    assert e.value.cycle == 1 + 2 + 1024 + 10
