"""One error root: every error isa, compiler and npusim raise on purpose is an NpusimError, and
the CLI prints exactly those as short reports; anything else is a bug and keeps its traceback."""

import pytest

from cli_helpers import one_line_error, run


def test_every_specific_error_is_under_the_root():
    import npusim
    from compiler.artifact import ArtifactError
    from compiler.errors import (BackendError, CompilerError, FrontendError, GraphError, OpError,
                                 PassError, QuantizationError, ZooError)
    from isa.asm import AsmError, ContainerError
    from isa.checks import TargetCheckError
    from isa.errors import DecodeError, EncodingError, IsaError, NpusimError, SpecError
    from isa.target import TargetError
    from npusim.cli.errors import UsageError
    from npusim.faults import (CycleLimitExceeded, DeadlockError, IllegalInstructionError,
                               InputError, MemoryFault, SimulationFault, SyncFault)
    from npusim.flow import FlowError
    from npusim.runtime import (DeviceBufferError, DeviceClosedError, DeviceError,
                                OutOfMemoryError, PoolError, ProgramError, RunFault)
    assert npusim.NpusimError is NpusimError
    errors = [IsaError, SpecError, EncodingError, DecodeError, AsmError, ContainerError,
              TargetCheckError, TargetError, CompilerError, GraphError, OpError, FrontendError,
              QuantizationError, PassError, ZooError, BackendError, ArtifactError,
              SimulationFault, IllegalInstructionError, MemoryFault, SyncFault, InputError,
              DeadlockError, CycleLimitExceeded, DeviceError, PoolError, OutOfMemoryError,
              DeviceClosedError, DeviceBufferError, ProgramError, RunFault, FlowError,
              UsageError]
    assert [e.__name__ for e in errors if not issubclass(e, NpusimError)] == []
    # the old bases stay, so `except ValueError` / `except RuntimeError` callers still work
    assert issubclass(TargetError, ValueError) and issubclass(EncodingError, ValueError)
    assert issubclass(DeviceError, RuntimeError) and issubclass(OutOfMemoryError, MemoryError)


def test_an_error_of_the_root_is_its_first_line(capsys, monkeypatch):
    from compiler.errors import BackendError
    from npusim import flow

    def fails(*args, **kwargs):
        raise BackendError("nvcc failed to build model.cu (exit 1): nvcc ...\nerror: line 3")
    monkeypatch.setattr(flow, "compile", fails)
    code, out, err = run(capsys, "compile", "mlp", "-t", "gpu-a100", "-o", "unused")
    assert code == 2 and out == ""
    assert one_line_error(err) == "npusim: error: nvcc failed to build model.cu (exit 1): nvcc " \
                                  "...\n"


def test_a_simulation_fault_keeps_its_format_and_exit_1(capsys, monkeypatch):
    from npusim import flow
    from npusim.faults import DeadlockError

    def deadlocks(*args, **kwargs):
        raise DeadlockError("no unit can proceed", {"core0.load": "wait on token 3"})
    monkeypatch.setattr(flow, "simulate", deadlocks)
    code, _, err = run(capsys, "run", "mlp", "-t", "npu-tiny")
    assert code == 1
    assert err == ("npusim: simulation fault: DeadlockError: no unit can proceed\n"
                   "  core0.load: wait on token 3\n")


def test_any_other_exception_is_a_bug_with_its_traceback(capsys, monkeypatch):
    from npusim import flow

    def bug(*args, **kwargs):
        raise KeyError("a bug")
    monkeypatch.setattr(flow, "compile", bug)
    with pytest.raises(KeyError, match="a bug"):
        run(capsys, "run", "mlp")
