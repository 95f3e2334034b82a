"""Lowered layers -> one program: per-core op lists, hazards, scheduling, then the isa
Instructions checked against the Target and put in the program container (no text)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from isa.asm import Annotations, Program, TensorDecl, disassemble, format_instruction
from isa.checks import (TargetCheckError, check_instruction, core_units, executing_unit,
                        reads_registers, target_name)
from isa.codec import encode_word, make_instruction
from isa.spec import load_spec

from ...errors import CompilerError
from ...lower.conv import ConvLayer
from .crosscore import Footprint, barrier_needed
from .dram import DramMap
from .emit import Emitter
from .generators import generator_for
from .hazards import Tracker
from .hoist import split_head
from .schedule import Stream, schedule


@dataclass
class CodegenResult:
    program: Program
    annotations: Annotations       # the layer headers and per-instruction comments
    dram: DramMap
    layer_of: list                 # per core: run-length [[first instruction, layer], ...]
    units: list
    notes: list = field(default_factory=list)

    @property
    def text(self) -> str:
        """The program as assembly, for people (disassembled on demand)."""
        return disassemble(self.program, indices=False, annotations=self.annotations)


def _units(hw) -> list:
    return core_units(hw.dma_engines)


def work(layer, hw, core: int, cores: int) -> list:
    """The tiles (or chunks) of `layer` that core `core` computes (its generator's split)."""
    return generator_for(layer).work(layer, hw, core, cores)


def label(index: int, name: str) -> str:
    return f"L{index}_" + re.sub(r"[^\w.]", "_", name)


def generate(lowered, sync: str = "auto", progress=None, source: str | None = None
             ) -> CodegenResult:
    """sync: 'tokens' (one core: layers overlap, ordered by semaphores only), 'barrier'
    (a barrier/gbarrier between layers), 'auto' (tokens on one core, else barriers);
    source: the file name the program records (its listing's name, e.g. 'resnet50.s')."""
    hw, target = lowered.hw, lowered.target
    cores = hw.num_cores
    if sync == "auto":
        sync = "tokens" if cores == 1 else "barrier"
    units = _units(hw)
    dram = DramMap(target.derived.dram_bytes)
    dram.place_activations(lowered)
    trackers = [Tracker(readonly=("dram", dram.const_base)) for _ in range(cores)]
    streams = [Stream(hw, units) for _ in range(cores)]
    pending = [[] for _ in range(cores)]
    made: dict = {}            # the Instructions built so far, shared (see Emitter.ins)
    costs: dict = {}           # the cost model's cycles per shape, shared (Emitter.costs)
    # with gbarriers, a layer is generated before the barrier ahead of it is placed, so that
    # its first constant loads can go before that barrier (hoist.py), and the barrier is left
    # out where no core's ops of it touch DRAM that another core's ops since the last barrier
    # touch (crosscore.py); one core keeps the plain barrier between layers
    hoist = sync == "barrier" and cores > 1
    for li, layer in enumerate(lowered.layers):
        new = [[] for _ in range(cores)]
        for c in range(cores):
            items = work(layer, hw, c, cores)
            if not items:
                continue
            em = Emitter(hw, trackers[c], li, layer.name, made, costs)
            generator_for(layer).gen(em, layer, items, dram, lowered, f"L{li}")
            new[c] = em.ops
        if hoist:  # since[c]: what core c's ops touched in DRAM since the last barrier
            prints = [Footprint(dram.const_base) for _ in range(cores)]
            for c in range(cores):
                prints[c].add(new[c])
            if li > 0 and not barrier_needed(since, prints):
                for c in range(cores):
                    since[c].add(new[c])
            else:
                if li > 0:
                    _barrier(li - 1, pending, new, streams, trackers, dram.const_base, True)
                since = prints  # (the hoisted loads touch constants only)
        for c in range(cores):
            pending[c] += new[c]
        if sync == "barrier" and not hoist:
            _barrier(li, pending, [[] for _ in range(cores)], streams, trackers,
                     dram.const_base, False)
        if progress:
            progress(li)
    if hoist and lowered.layers:
        _barrier(len(lowered.layers) - 1, pending, [[] for _ in range(cores)], streams,
                 trackers, dram.const_base, False)
    for c in range(cores):
        schedule(pending[c], streams[c])
    return CodegenResult(*_program(lowered, streams, dram, source), units)


def _barrier(li: int, pending: list, new: list, streams: list, trackers: list,
             const_base: int, hoist: bool) -> None:
    """Schedule each core's pending ops of layer li (with the next layer's hoisted constant
    loads, `new` being that layer's ops, generated already) and place the barrier after
    them; `new` keeps the rest."""
    cores = len(streams)
    for c in range(cores):
        hoisted, rest = split_head(new[c], pending[c], const_base) if hoist else ([], new[c])
        schedule(pending[c] + hoisted, streams[c])
        pending[c] = []
        trackers[c].fence(keep_from=new[c][0].id if new[c] else None)
        new[c][:] = rest
        streams[c].entries.append(
            ("ins", make_instruction("gbarrier", id=li % 256) if cores > 1
             else make_instruction("barrier")))


def _program(lowered, streams, dram, source) -> tuple:
    """The Program (what assembling the listing would give, byte for byte: the labels,
    tensors, target and source name), its Annotations, and the layer runs per core."""
    target = lowered.target
    name = target_name(target)
    notes = Annotations(head=[
        f"{lowered.name}: {len(lowered.layers)} layers, {lowered.macs:,} MACs",
        f"generated by compiler.backends.npu for {target}",
        f"DRAM: activations [0, {dram.arena_bytes:#x}), constants "
        f"[{dram.const_base:#x}, {dram.const_top:#x})"])
    tensors = {}
    for kind, names in (("input", lowered.inputs), ("output", lowered.outputs)):
        for v in names:
            info, tname = lowered.tensor(v), _tensor_name(v)
            if tname in tensors:
                raise CompilerError(f"model tensors '{v}' and another both name DRAM tensor "
                                    f"'{tname}'; rename one")
            tensors[tname] = TensorDecl(dram.addr(lowered, v), tuple(info.shape), info.dtype)
            notes.tensors[tname] = f"model {kind} '{v}'"
    halt = make_instruction("halt")
    # The checks: every instruction against the Target, with the config registers its unit
    # holds at that point of the stream (conv, pool and DMA extents depend on them). The
    # check is a function of (instruction, Target, registers), and an instruction is its
    # word: one met again under the same register file (a sync, a cfg, a vector op on a
    # reused slot) has passed already, so it is not checked twice. Register files are kept
    # one per content (a DMA's cfgs switch dma_planes back and forth: the file it returns to
    # is the one met before), so "the same file" is the same object.
    reset: dict = {}           # the file of a unit no cfg has written yet
    files = {(): reset}        # content -> its one file (alive, so that the ids stay unique)
    after_cfg: dict = {}       # (id(file), reg, value) -> the file a cfg makes of it
    passed: set = set()        # (word, id(register file)) that passed
    known: dict = {}           # id(instruction) -> (word, unit, is a cfg)
    reg_names = load_spec().enums["reg"].names
    cores, words, labels, layer_of = [], [], {}, []
    for c, stream in enumerate(streams):
        runs, seen, last = [], set(), None
        before, after, names = {}, {}, {}
        core_words, regs, failed = [], {}, None
        # one pass over the stream's instructions (signals nobody waited for dropped): their
        # words and checks, the layer runs and the comments
        instrs, owners = stream.instructions()
        instrs.append(halt)
        owners.append(None)
        for index, (ins, op) in enumerate(zip(instrs, owners)):
            if op is not None:
                layer = op.layer
                if layer not in seen:
                    seen.add(layer)
                    lay = lowered.layers[layer]
                    before[index] = [f"---- layer {layer}: {lay.name} ({_describe(lay)})"]
                    names[label(layer, lay.name)] = index
                if op.comment:
                    after[index] = op.comment
                if layer != last:
                    runs.append([index, layer])
                    last = layer
            facts = known.get(id(ins))
            if facts is None:  # the instructions stay alive in `cores`: their ids too
                facts = known[id(ins)] = (encode_word(ins), executing_unit(ins),
                                          ins.spec.mnemonic == "cfg", reads_registers(ins))
            word, unit, is_cfg, by_regs = facts
            core_words.append(word)
            held = regs.get(unit, reset)
            if by_regs is not None and (word, id(held)) not in passed:
                try:
                    check_instruction(ins, target, held)
                    passed.add((word, id(held)))
                    if not by_regs:  # its verdict holds under any registers: not asked again
                        known[id(ins)] = (word, unit, is_cfg, None)
                except TargetCheckError as e:
                    if failed is None:  # raised below, once every layer run is known
                        failed = (index, ins, e)
            if is_cfg:
                fields = ins.fields
                step = (id(held), fields["reg"], fields["value"])
                new = after_cfg.get(step)
                if new is None:
                    new = {**held, reg_names[fields["reg"]]: fields["value"]}
                    new = after_cfg[step] = files.setdefault(tuple(sorted(new.items())), new)
                regs[unit] = new
        if failed is not None:
            _refuse(*failed, target, c, runs, lowered)
        words.append(core_words)
        cores.append(instrs)
        if names:
            labels[c] = names
        notes.notes[c], notes.comments[c] = before, after
        layer_of.append(runs)
    program = Program.from_instructions(cores, target=" ".join(name.split()), tensors=tensors,
                                        labels=labels, words=words,
                                        source=None if source is None else Path(source).name)
    return program, notes, dram, layer_of


def _refuse(i: int, ins, e: TargetCheckError, target, core: int, runs: list, lowered):
    """Instruction i failed its Target check: a CompilerError naming its layer."""
    # an instruction before a layer's first op (its cfg, a wait) is that layer's
    layer = max((r for r in runs if r[0] <= i), default=runs[0] if runs else None,
                key=lambda r: r[0])
    where = f"layer '{lowered.layers[layer[1]].name}', " if layer else ""
    raise CompilerError(f"{where}core {core} instruction {i} ({format_instruction(ins)}) does "
                        f"not fit {target_name(target)}: {e} (a code generator bug: please "
                        "report it)") from None


def _tensor_name(v: str) -> str:
    return re.sub(r"[^\w]", "_", v)


def _describe(layer) -> str:
    sched = getattr(layer, "schedule", None)
    text = type(layer).__name__.replace("Layer", "").lower()
    if isinstance(layer, ConvLayer):
        g = layer.geom
        text += (f" {g.h}x{g.w}x{g.cin} -> {g.oh}x{g.ow}x{g.cout}, {g.kh}x{g.kw}/{g.sh}"
                 + (f" groups {g.groups}" if g.groups > 1 else ""))
    if layer.note:
        text += f", {layer.note}"
    if sched is not None:
        text += f"; {sched.describe()}"
    return text
