"""One conformance test: an assembled program, its DRAM inputs, the signature region it writes,
and a Builder that lays those out for a Target."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from isa.asm import Program
from isa.asm.program import TensorDecl
from isa.checks import check_instruction, executing_unit, reset_registers
from isa.codec import make_instruction
from isa.errors import NpusimError
from isa.target import Target

SIGNATURE = "SIG"       # the signature tensor every test declares
CANARY = 0xA5           # the signature region's bytes before the run (RISCOF's 0xdeadbeef)
ALIGN = 64              # DRAM placement of tensors (bytes)


class GeneratorError(NpusimError):
    """A generated test is malformed (reads undefined data, would block in program order, does
    not fit its Target): a bug of the suite, never of a DUT."""


@dataclass
class TestCase:
    """A program for `target` whose results end in DRAM tensor SIG (`sig_addr`, `sig_bytes`).

    `inputs` are DRAM tensors (name -> array, SIG's canary fill included) written before the
    run; `labels` name what it exercises (its coverage bins add to them); `footprint` is one
    past the highest DRAM byte it touches. The expected signature and cycles come from
    npusim.conformance.reference, never from a simulator."""

    name: str
    target: str
    program: Program
    inputs: dict[str, np.ndarray]
    sig_addr: int
    sig_bytes: int
    labels: tuple[str, ...] = ()
    doc: str = ""
    footprint: int = 0

    __test__ = False  # not a pytest class

    @property
    def num_cores(self) -> int:
        return self.program.num_cores

    @property
    def instructions(self) -> int:
        return self.program.num_instructions


@dataclass
class _Sem:
    next: int = 0


class Builder:
    """Emits checked instructions core by core and places input tensors and the signature.

    Every instruction is checked against the Target as the assembler checks it (isa.checks,
    with the unit's registers as the cfg instructions so far set them), so a generator cannot
    build a program the Target refuses."""

    def __init__(self, name: str, target, doc: str = "", labels=()):
        self.name, self.doc, self.labels = name, doc, list(labels)
        self.target = Target.create(target)
        self.t = self.target
        self.cores: list[list] = [[]]
        self.core = 0
        self.tensors: dict[str, TensorDecl] = {}
        self.inputs: dict[str, np.ndarray] = {}
        self.dram_next = 0
        self.sig: list[tuple[int, int]] = []   # (offset, nbytes) of each output
        self.sig_bytes = 0
        self._outputs: list = []               # pending stores into SIG (core, index)
        self._regs = [self._reset_regs()]
        self._sem = [_Sem()]
        self._next = [dict.fromkeys(self.t.derived.buffer_elems, 0)]
        self.footprint = 0

    def _reset_regs(self) -> dict:
        regs = reset_registers()
        return {u: dict(regs) for u in ("matrix", "vector", *[f"dma{c}" for c in range(8)])}

    # ---- cores -------------------------------------------------------------------------------

    def on_core(self, core: int) -> "Builder":
        while len(self.cores) <= core:
            self.cores.append([])
            self._regs.append(self._reset_regs())
            self._sem.append(_Sem())
            self._next.append(dict.fromkeys(self.t.derived.buffer_elems, 0))
        self.core = core
        return self

    # ---- SRAM --------------------------------------------------------------------------------

    def alloc(self, buf: str, count: int, top: bool = False) -> int:
        """An element address for `count` elements of `buf` (the next free one, or the last
        `count` elements of the buffer with top=True)."""
        size = self.t.derived.buffer_elems[buf]
        if top:
            return size - count
        addr = self._next[self.core][buf]
        if addr + count > size:
            raise GeneratorError(f"{self.name}: {count} more elements do not fit {buf} "
                                 f"({size} on {_target_text(self.t)})")
        self._next[self.core][buf] = addr + count
        return addr

    def put(self, name: str, array, buf: str, top: bool = False, chan: int = 0) -> int:
        """Place `array` in DRAM, allocate it in `buf` and load it there; its SRAM address."""
        dtype = np.int32 if self.t.derived.elem_bytes[buf] == 4 else np.int8
        flat = np.ascontiguousarray(array).reshape(-1)
        if not np.array_equal(flat.astype(dtype), flat):
            raise GeneratorError(f"{self.name}: values of '{name}' do not fit {buf}")
        flat = flat.astype(dtype)
        addr = self.alloc(buf, flat.size, top)
        self.load_array(name, flat, buf, addr, chan=chan)
        return addr

    # ---- DRAM --------------------------------------------------------------------------------

    def tensor(self, name: str, array, at: int | None = None) -> int:
        """Place input `array` (int8 or int32) in DRAM; its byte address."""
        array = np.ascontiguousarray(array)
        dtype = {np.dtype(np.int8): "int8", np.dtype(np.int32): "int32"}[array.dtype]
        addr = self._place(array.nbytes, at)
        self.tensors[name] = TensorDecl(addr, tuple(array.shape), dtype)
        self.inputs[name] = array
        return addr

    def scratch(self, nbytes: int, name: str | None = None) -> int:
        """DRAM bytes the program writes and reads back (declared, no input: zero at start)."""
        addr = self._place(nbytes, None)
        name = name or f"SCRATCH{sum(n.startswith('SCRATCH') for n in self.tensors)}"
        self.tensors[name] = TensorDecl(addr, (nbytes,), "int8")
        return addr

    def _place(self, nbytes: int, at: int | None) -> int:
        if at is None:
            at = self.dram_next
            self.dram_next = -(-(at + nbytes) // ALIGN) * ALIGN
        self.footprint = max(self.footprint, at + nbytes)
        if at + nbytes > self.t.derived.dram_bytes:
            raise GeneratorError(f"{self.name}: DRAM bytes {at}..{at + nbytes} past the "
                                 f"{self.t.derived.dram_bytes} of {_target_text(self.t)}")
        return at

    # ---- instructions ------------------------------------------------------------------------

    def emit(self, mnemonic: str, **fields) -> int:
        """Append one instruction to the current core; its index there."""
        instr = make_instruction(mnemonic, **fields)
        regs = self._regs[self.core]
        unit = executing_unit(instr)
        try:
            check_instruction(instr, self.t, regs.get(unit) if unit in regs else None)
        except NpusimError as e:
            raise GeneratorError(f"{self.name}: core {self.core} [{len(self.cores[self.core])}] "
                                 f"{e}") from None
        if mnemonic == "cfg":
            from isa.spec import load_spec
            spec = load_spec()
            regs[spec.enums["unit"].names[instr.fields["unit"]]][
                spec.enums["reg"].names[instr.fields["reg"]]] = instr.fields["value"]
        self.cores[self.core].append(instr)
        return len(self.cores[self.core]) - 1

    def sem(self) -> int:
        s = self._sem[self.core]
        sem = s.next % self.t.semaphores
        s.next += 1
        return sem

    def handoff(self, src: str, dst: str, sem: int | None = None) -> None:
        """`src` signals and `dst` waits: everything `src` did before is visible to what
        `dst` does after."""
        if src == dst:
            return
        sem = self.sem() if sem is None else sem
        self.emit("signal", unit=src, sem=sem)
        self.emit("wait", unit=dst, sem=sem)

    def load(self, buf: str, sram: int, dram: int, rows: int, cols: int, stride: int | None = None,
             chan: int = 0, **pads) -> int:
        eb = self.t.derived.elem_bytes[buf]
        return self.emit("load", chan=chan, sram=(buf, sram), dram=dram, rows=rows, cols=cols,
                         stride=cols * eb if stride is None else stride, **pads)

    def load_array(self, name: str, array, buf: str, sram: int, chan: int = 0) -> int:
        """Place `array` in DRAM and load it whole into `buf` at `sram` (one row per 4095
        elements or fewer)."""
        flat = np.ascontiguousarray(array).reshape(-1)
        addr = self.tensor(name, flat)
        rows, cols = _shape(flat.size)
        return self.load(buf, sram, addr, rows, cols, chan=chan)

    def output(self, buf: str, sram: int, count: int, chan: int = 0, src: str | None = None) -> int:
        """Store `count` elements of `buf` at `sram` into the next signature slot; hand off from
        `src` (the unit that produced them) to the channel first."""
        if src:
            self.handoff(src, f"dma{chan}")
        if self._regs[self.core][f"dma{chan}"]["dma_planes"] != 1:  # a signature slot is 2-D
            self.emit("cfg", unit=f"dma{chan}", reg="dma_planes", value=1)
        eb = self.t.derived.elem_bytes[buf]
        rows, cols = _shape(count)
        offset = self.sig_bytes
        self.sig.append((offset, count * eb))
        self.sig_bytes = -(-(offset + count * eb) // 4) * 4
        self._outputs.append((self.core, len(self.cores[self.core]), buf, sram, rows, cols, chan,
                              offset))
        self.cores[self.core].append(None)  # filled by build(), once SIG has its address
        return offset

    def build(self) -> TestCase:
        """Place SIG after every other tensor, fill in the stores, end each core with halt."""
        sig_addr = self._place(self.sig_bytes or 4, None)
        self.tensors["SIG"] = TensorDecl(sig_addr, (self.sig_bytes or 4,), "int8")
        self.inputs["SIG"] = np.full(self.sig_bytes or 4, CANARY, np.uint8).view(np.int8)
        for core, index, buf, sram, rows, cols, chan, offset in self._outputs:
            eb = self.t.derived.elem_bytes[buf]
            self.cores[core][index] = make_instruction(
                "store", chan=chan, sram=(buf, sram), dram=sig_addr + offset, rows=rows,
                cols=cols, stride=cols * eb)
        for core in self.cores:
            core.append(make_instruction("halt"))
        target = str(self.t) if not self.t.tag else _target_text(self.t)
        program = Program.from_instructions(self.cores, target=target, tensors=self.tensors,
                                            source=f"{self.name}.s")
        return TestCase(self.name, target, program, self.inputs, sig_addr, self.sig_bytes or 4,
                        tuple(self.labels), self.doc, self.footprint)


def _shape(count: int) -> tuple[int, int]:
    """rows x cols (cols <= 4095) holding exactly `count` elements."""
    if count <= 4095:
        return 1, count
    for cols in range(4095, 0, -1):
        if count % cols == 0 and count // cols <= 4095:
            return count // cols, cols
    raise GeneratorError(f"cannot shape {count} elements as rows x cols within 4095 each")


def _target_text(t) -> str:
    from isa.checks import target_name
    return target_name(t)


@dataclass(frozen=True)
class Dropped:
    """A test a generator could not build on this Target (its sizes do not fit), and why."""

    name: str
    reason: str


def tolerant(name: str, make) -> "Builder | Dropped":
    """make() -> Builder, or Dropped(name, why) when the Target cannot hold the test."""
    try:
        return make()
    except GeneratorError as e:
        return Dropped(name, str(e))
