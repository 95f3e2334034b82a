"""Broken models: the npusim model as a DUT with one deliberate bug each, for the mutation tests
(each must fail the conformance suite with a diff naming the instruction it breaks).

Each bug is patched in only while the mutant runs a test (and undone after), at the level a
buggy implementation would have it: an instruction handler of npusim.exec, a unit's wait, a
cycle rule. They run with the race check off, so they fail by signature, as a foreign
implementation would. Also usable from the command line:
    npusim conformance run --dut tests/conformance/conformance_mutants.py:RequantHalfDown"""

from __future__ import annotations

from contextlib import ExitStack, contextmanager

import numpy as np

from isa import semantics, timing
from isa.codec import Instruction
import npusim.exec as exec_pkg
import npusim.exec.kernels as exec_kernels
import npusim.exec.vector as exec_vector
from npusim.conformance.plugins.model import ModelDut, TimingDut
from npusim.units.base import Unit


@contextmanager
def _handler(ref: str, wrap):
    """Replace the model's handler of spec ref `ref` by wrap(original)."""
    old = exec_pkg.HANDLERS[ref]
    exec_pkg.HANDLERS[ref] = wrap(old)
    try:
        yield
    finally:
        exec_pkg.HANDLERS[ref] = old


class _Mutant(ModelDut):
    def __init__(self):
        super().__init__(races="off")

    def patches(self, stack: ExitStack) -> None:
        raise NotImplementedError

    def simulate(self, test):
        with ExitStack() as stack:
            self.patches(stack)
            return super().simulate(test)


class _HalfDownSemantics:
    """isa.semantics with requantize rounding half down: (x + 2^(s-1) - 1) >> s."""

    def __getattr__(self, name):
        return getattr(semantics, name)

    @staticmethod
    def requantize(acc, mult, shift, zp, relu, channels):
        c = np.arange(acc.size) % channels
        x = acc.astype(np.int64) * mult.astype(np.int64)[c]
        s = shift.astype(np.int64)[c]
        half = np.where(s > 0, np.left_shift(1, np.maximum(s - 1, 0)) - 1, 0)
        y = np.right_shift(x + half, s) + zp
        if relu:
            y = np.maximum(y, zp)
        return semantics.saturate(y, np.int8)


class _HalfDownKernels:
    """npusim.exec.kernels (the model's requantize, bit-equal to isa.semantics') with the
    rounding half of every shift > 0 one less: ties round down."""

    def __getattr__(self, name):
        return getattr(exec_kernels, name)

    requantize = staticmethod(_HalfDownSemantics.requantize)

    @staticmethod
    def requant_table(mult, shift):
        mult64, s, half = exec_kernels.requant_table(mult, shift)
        return mult64, s, np.where(s > 0, half - 1, 0)


class RequantHalfDown(_Mutant):
    """vrequant rounds ties down instead of up."""

    name = "mutant-requant-half-down"

    def patches(self, stack):
        old = exec_vector.kernels
        exec_vector.kernels = _HalfDownKernels()
        stack.callback(setattr, exec_vector, "kernels", old)


class DroppedPadRow(_Mutant):
    """A padded load leaves its last bottom pad row (its first top one without a bottom pad)
    unwritten: the buffer keeps what it held there."""

    name = "mutant-dropped-pad-row"

    def patches(self, stack):
        def wrap(original):
            def handler(instr, state, dram, timing_only):
                info, commit = original(instr, state, dram, timing_only)
                f = instr.fields
                if commit is None or not (f["pad_bottom"] or f["pad_top"]):
                    return info, commit
                pcol = f["pad_left"] + f["cols"] + f["pad_right"]
                prow = f["pad_top"] + f["rows"] + f["pad_bottom"]
                row = prow - 1 if f["pad_bottom"] else 0
                buf = state.buffers[state.buf_names[f["buf"]]]
                lo = f["sram"] + row * pcol

                def dropped():
                    keep = buf[lo:lo + pcol].copy()
                    commit()
                    buf[lo:lo + pcol] = keep
                return info, dropped
            return handler
        stack.enter_context(_handler("dma_load", wrap))


class AccumulateAsOverwrite(_Mutant):
    """gemm and conv ignore acc=1 and overwrite the accumulator tile."""

    name = "mutant-accumulate-as-overwrite"

    def patches(self, stack):
        def wrap(original):
            def handler(instr, state, dram, timing_only):
                if instr.fields["acc"]:
                    instr = Instruction(instr.spec, {**instr.fields, "acc": 0})
                return original(instr, state, dram, timing_only)
            return handler
        stack.enter_context(_handler("gemm", wrap))
        stack.enter_context(_handler("conv", wrap))


class WaitDoesNotBlock(_Mutant):
    """wait takes its cycle and goes on, whatever the semaphore holds."""

    name = "mutant-wait-does-not-block"

    def patches(self, stack):
        def wait(unit, instr):  # Unit.wait's contract: (ExecInfo, token stall, DRAM stall)
            yield unit.env.timeout(timing.RULES[instr.spec.timing](unit.core.state.hw))
            return None, 0, 0
        old = Unit.wait
        Unit.wait = wait
        stack.callback(setattr, Unit, "wait", old)


class VectorLaneOffByOne(_Mutant):
    """The last lane of every L-element beat of an elementwise op writes its neighbour
    lane's result."""

    name = "mutant-vector-lane-off-by-one"
    OPS = ("vadd", "vsub", "vmul", "vmax", "vmin", "vrelu", "vclip", "vshr", "vcopy", "vbias")

    def patches(self, stack):
        def wrap(original):
            def handler(instr, state, dram, timing_only):
                info, commit = original(instr, state, dram, timing_only)
                if commit is None:
                    return info, commit
                lanes = state.target.vector_lanes
                f = instr.fields
                buf = state.buffers[state.buf_names[f["dst_buf"]]]
                idx = np.arange(f["len"])
                last = f["dst"] + idx[(idx % lanes == lanes - 1) & (idx > 0)]

                def shifted():
                    commit()
                    buf[last] = buf[last - 1]
                return info, shifted
            return handler
        for op in self.OPS:
            stack.enter_context(_handler(op, wrap))


class TransposeIgnored(_Mutant):
    """gemm ignores wt=1 and reads the stored n x k tile as k x n."""

    name = "mutant-transpose-ignored"

    def patches(self, stack):
        def wrap(original):
            def handler(instr, state, dram, timing_only):
                if instr.fields["wt"]:
                    instr = Instruction(instr.spec, {**instr.fields, "wt": 0})
                return original(instr, state, dram, timing_only)
            return handler
        stack.enter_context(_handler("gemm", wrap))


class _TruncatingRowMul:
    """isa.semantics with vrmul's shift truncating (floor) instead of rounding half up."""

    def __getattr__(self, name):
        return getattr(semantics, name)

    @staticmethod
    def row_mul(a, v, shift, rows, cols, dtype):
        prod = a.astype(np.int64).reshape(rows, cols) * v.astype(np.int64)[:rows, None]
        return semantics.saturate(np.right_shift(prod, shift).reshape(-1), dtype)


class RowMulTruncates(_Mutant):
    """vrmul floors its shift instead of rounding half up."""

    name = "mutant-rowmul-truncates"

    def patches(self, stack):
        old = exec_vector.semantics
        exec_vector.semantics = _TruncatingRowMul()
        stack.callback(setattr, exec_vector, "semantics", old)


class CycleRulePlusOne(TimingDut):
    """The elementwise vector rule takes one cycle more than the spec says."""

    name = "mutant-cycle-rule-plus-one"

    def __init__(self):
        super().__init__(races="off")

    def simulate(self, test):
        original = timing.RULES["vector_elementwise"]
        with timing.override("vector_elementwise", lambda hw, **o: original(hw, **o) + 1):
            return super().simulate(test)


# mutant -> (what its diff must name: a mnemonic, and whether it is a timing diff)
MUTANTS = {RequantHalfDown: ("vrequant", False), DroppedPadRow: ("load", False),
           AccumulateAsOverwrite: (("gemm", "conv"), False), WaitDoesNotBlock: (None, False),
           VectorLaneOffByOne: (None, False), CycleRulePlusOne: ("vadd", True),
           TransposeIgnored: ("gemm", False), RowMulTruncates: ("vrmul", False)}
