"""Assembles NPU assembly text into a Program, checking operands against the spec and Target."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from isa.asm.errors import AsmError
from isa.asm.expr import ExprError, evaluate
from isa.asm.lexer import Operand, Statement, lex_line
from isa.asm.program import DTYPES, Program, TensorDecl
from isa.checks import TargetCheckError, check_instruction, executing_unit, target_name
from isa.codec import decode_word, encode_fields
from isa.spec import FieldSpec, InstructionSpec, load_spec

MAX_ERRORS = 20
DIRECTIVES = (".target", ".core", ".equ", ".tensor", ".file")
_BUFREF = re.compile(r"([A-Za-z_]\w*)\s*\[(.*)\]\s*", re.S)
_NAME = re.compile(r"[A-Za-z_]\w*")
_SHAPE = re.compile(r"\d+(\s*[xX]\s*\d+)*")
_STRING = re.compile(r'"([^"]*)"')


class _TooMany(Exception):
    """Raised internally once MAX_ERRORS are collected."""


def resolve_target(target):
    """A Target string/dict/Target -> (Target, the string recorded in the program)."""
    from isa.target import Target, TargetError

    t = Target.create(target)
    if t.kind != "npu":
        raise TargetError(f"target '{target_name(t)}' is a {t.kind} target; NPU programs need "
                          "an npu target such as npu-edge")
    text = " ".join(target.split()) if isinstance(target, str) else target_name(t)
    return t, text


def assemble(text: str, filename: str = "<string>", target=None) -> Program:
    """Assemble source text. `target` (e.g. from `-t`) must agree with any `.target` line."""
    return _Assembler(filename, target).run(text)


def assemble_file(path: str | Path, target=None) -> Program:
    path = Path(path)
    return assemble(path.read_text(), filename=str(path), target=target)


def _required(f: FieldSpec) -> bool:
    lo, hi = f.legal
    return not lo <= 0 <= hi


class _Assembler:
    def __init__(self, filename: str, target):
        self.spec = load_spec()
        self.file = filename
        self.target, self.target_text = resolve_target(target) if target is not None \
            else (None, None)
        self.caller_target = self.target is not None
        self.target_line = 0
        self.names: dict[str, int] = {}      # .equ constants and tensor addresses
        self.defined: dict[str, int] = {}    # name -> line it was defined on
        self.tensors: dict[str, TensorDecl] = {}
        self.cores: list[list[int]] = [[]]
        self.labels: list[dict[str, int]] = [{}]
        self.regs: list[dict[str, dict]] = [{}]  # per core: unit -> config registers written
        self.core = 0
        self.started = False  # an instruction, .core or .tensor was seen (.target is too late)
        self.source = None if filename.startswith("<") else Path(filename).name
        self.errors: list[AsmError] = []

    # ---- driver -----------------------------------------------------------------------------

    def run(self, text: str) -> Program:
        try:
            for number, line in enumerate(text.splitlines(), 1):
                stmt = lex_line(line, number)
                try:
                    self.statement(stmt)
                except AsmError as e:
                    self.report(e)
        except _TooMany:
            pass
        if self.errors:
            first = self.errors[0]
            first.errors = list(self.errors)
            first.truncated = len(self.errors) >= MAX_ERRORS
            raise first
        return Program(cores=self.cores, target=self.target_text, tensors=self.tensors,
                       labels={c: ls for c, ls in enumerate(self.labels) if ls},
                       source=self.source)

    def report(self, err: AsmError) -> None:
        self.errors.append(err)
        if len(self.errors) >= MAX_ERRORS:
            raise _TooMany

    def error(self, message: str, stmt: Statement, column: int, field=None, value=None):
        return AsmError(message, self.file, stmt.line, column, field, value)

    def statement(self, stmt: Statement) -> None:
        for name, col in stmt.labels:
            labels = self.labels[self.core]
            if name in labels:
                self.report(self.error(f"label '{name}' already defined in core {self.core} "
                                       f"(at instruction {labels[name]})", stmt, col))
            else:
                labels[name] = len(self.cores[self.core])
        if stmt.head is None:
            return
        if stmt.unclosed:
            char, column = stmt.unclosed
            raise self.error(f"'{char}' at column {column} is never closed", stmt, column)
        if stmt.head.startswith("."):
            handler = {".target": self.d_target, ".core": self.d_core, ".equ": self.d_equ,
                       ".tensor": self.d_tensor, ".file": self.d_file}.get(stmt.head)
            if handler is None:
                raise self.error(f"unknown directive '{stmt.head}'" + _hint(stmt.head, DIRECTIVES)
                                 + f" known: {', '.join(DIRECTIVES)}", stmt, stmt.column)
            handler(stmt)
        else:
            self.started = True
            self.instruction(stmt)

    # ---- directives -------------------------------------------------------------------------

    def d_target(self, stmt: Statement) -> None:
        from isa.target import TargetError

        if not stmt.rest:
            raise self.error(".target needs a target, e.g. '.target npu-edge'", stmt, stmt.column)
        if self.target_line:
            raise self.error(f"second .target (the first is on line {self.target_line})",
                             stmt, stmt.column)
        if self.started:
            raise self.error(".target must come before any instruction, .core or .tensor",
                             stmt, stmt.column)
        self.target_line = stmt.line
        try:
            t, text = resolve_target(stmt.rest)
        except TargetError as e:
            raise self.error(str(e), stmt, stmt.rest_column, "target", stmt.rest) from None
        if self.caller_target:
            if t != self.target:
                raise self.error(f".target '{text}' conflicts with the target given on the "
                                 f"command line ('{self.target_text}'); make them agree or drop "
                                 "one", stmt, stmt.rest_column, "target", text)
            return
        self.target, self.target_text = t, text

    def d_core(self, stmt: Statement) -> None:
        self.started = True
        n = self.value_of(self.single_operand(stmt, ".core N"), stmt)
        limit = self.target.num_cores if self.target else None
        if n < 0 or (limit is not None and n >= limit):
            bound = f"0..{limit - 1} for {target_name(self.target)}" if limit else ">= 0"
            raise self.error(f".core {n} out of range {bound}", stmt, stmt.rest_column, "core", n)
        if n > len(self.cores):
            raise self.error(f".core {n} skips core {len(self.cores)}; cores must be numbered "
                             f"0..n-1 without gaps", stmt, stmt.rest_column, "core", n)
        if n == len(self.cores):
            self.cores.append([])
            self.labels.append({})
            self.regs.append({})
        self.core = n

    def d_equ(self, stmt: Statement) -> None:
        ops = stmt.operands
        if len(ops) != 2 or ops[0].key is not None:
            raise self.error(".equ takes a name and a value: '.equ NAME, EXPR'", stmt,
                             stmt.column)
        name = self.new_name(ops[0], stmt)
        self.names[name] = self.value_of(ops[1], stmt)
        self.defined[name] = stmt.line

    def d_tensor(self, stmt: Statement) -> None:
        self.started = True
        usage = ".tensor NAME, dram=ADDR, shape=16x16, dtype=int8"
        ops = stmt.operands
        if not ops or ops[0].key is not None:
            raise self.error(f".tensor needs a name first: '{usage}'", stmt, stmt.column)
        name = self.new_name(ops[0], stmt)
        given: dict[str, Operand] = {}
        for op in ops[1:]:
            if op.key not in ("dram", "shape", "dtype"):
                raise self.error(f".tensor operand '{op.text}' is not dram=, shape= or dtype=; "
                                 f"usage: '{usage}'", stmt, op.column)
            if op.key in given:
                raise self.error(f".tensor {name}: '{op.key}' given twice", stmt, op.column)
            given[op.key] = op
        for key in ("dram", "shape", "dtype"):
            if key not in given:
                raise self.error(f".tensor {name}: missing {key}=; usage: '{usage}'", stmt,
                                 stmt.column, key)
        dram = self.value_of(given["dram"], stmt)
        shape_op, dtype_op = given["shape"], given["dtype"]
        if not _SHAPE.fullmatch(shape_op.value.strip()):
            raise self.error(f".tensor {name}: shape '{shape_op.value}' is not like 16x16 or "
                             "8x8x16", stmt, shape_op.column, "shape", shape_op.value)
        shape = tuple(int(d) for d in re.split(r"\s*[xX]\s*", shape_op.value.strip()))
        if 0 in shape:
            raise self.error(f".tensor {name}: shape {shape_op.value} has a zero dimension",
                             stmt, shape_op.column, "shape", shape_op.value)
        dtype = dtype_op.value.strip()
        if dtype not in DTYPES:
            raise self.error(f".tensor {name}: dtype '{dtype}' is not one of "
                             f"{', '.join(DTYPES)}" + _hint(dtype, DTYPES), stmt,
                             dtype_op.column, "dtype", dtype)
        tensor = TensorDecl(dram, shape, dtype)
        size = self.target.derived.dram_bytes if self.target else 1 << 32
        if dram < 0 or dram + tensor.nbytes > size:
            where = f"DRAM of {target_name(self.target)}" if self.target else "the 32-bit DRAM"
            raise self.error(f".tensor {name}: bytes {dram:#x}..{dram + tensor.nbytes:#x} lie "
                             f"outside the {size} bytes of {where}", stmt,
                             given["dram"].column, "dram", dram)
        self.tensors[name] = tensor
        self.names[name] = dram
        self.defined[name] = stmt.line

    def d_file(self, stmt: Statement) -> None:
        m = _STRING.fullmatch(stmt.rest)
        if not m:
            raise self.error('.file takes a quoted name: .file "prog.s"', stmt, stmt.column)
        self.source = m[1]

    def single_operand(self, stmt: Statement, usage: str) -> Operand:
        if len(stmt.operands) != 1 or stmt.operands[0].key is not None:
            raise self.error(f"{stmt.head} takes one value: '{usage}'", stmt, stmt.column)
        return stmt.operands[0]

    def new_name(self, op: Operand, stmt: Statement) -> str:
        name = op.text
        if not _NAME.fullmatch(name):
            raise self.error(f"'{name}' is not a valid name (letters, digits, _)", stmt,
                             op.column)
        if name in self.defined:
            raise self.error(f"'{name}' already defined on line {self.defined[name]}", stmt,
                             op.column, None, name)
        return name

    def value_of(self, op: Operand, stmt: Statement, field: str | None = None) -> int:
        try:
            return evaluate(op.value, self.names)
        except ExprError as e:
            msg = str(e)
            if "=" in op.value:
                msg += "; separate operands with commas"
            raise self.error(msg, stmt, op.column, field, op.value) from None

    # ---- instructions -----------------------------------------------------------------------

    def instruction(self, stmt: Statement) -> None:
        ins = self.spec.by_mnemonic.get(stmt.head)
        if ins is None:
            raise self.error(f"unknown mnemonic '{stmt.head}'" + _hint(stmt.head,
                             self.spec.by_mnemonic) + f" known: {', '.join(self.spec.by_mnemonic)}",
                             stmt, stmt.column, None, stmt.head)
        values: dict[str, int] = {}
        where: dict[str, Operand] = {}
        failed = False
        attempted = set()  # fields whose operand failed are not also reported missing
        for op in stmt.operands:
            try:
                self.operand(ins, op, stmt, values, where)
            except AsmError as e:
                self.report(e)
                failed = True
                attempted.add(op.key)
                # `kk=4` for `k`: the did-you-mean already says what is missing
                attempted.update(difflib.get_close_matches(op.key or "", ins.field_map, n=1))
        for f in ins.fields:
            if f.name not in values and f.name not in attempted and _required(f):
                lo, hi = f.legal
                self.report(self.error(f"{ins.mnemonic}: missing required field '{f.name}' "
                                       f"({f.doc}, range {lo}..{hi})", stmt, stmt.column,
                                       f.name))
                failed = True
        if failed:
            return
        word = encode_fields(ins.mnemonic, self.spec, **values)
        instr = decode_word(word)
        unit = executing_unit(instr)
        regs = self.regs[self.core].setdefault(unit, {})
        try:
            check_instruction(instr, self.target, regs)
        except TargetCheckError as e:
            op = where.get(e.field)
            raise self.error(str(e), stmt, op.column if op else stmt.column, e.field,
                             e.value) from None
        if ins.mnemonic == "cfg":
            regs[self.spec.enums["reg"].names[instr["reg"]]] = instr["value"]
        self.cores[self.core].append(word)

    def operand(self, ins: InstructionSpec, op: Operand, stmt: Statement, values: dict,
                where: dict) -> None:
        mn = ins.mnemonic
        if not op.text:
            raise self.error(f"{mn}: empty operand (stray comma?)", stmt, op.column)
        buffers = self.spec.enums["buf"].values
        if op.key is None:
            m = _BUFREF.fullmatch(op.text)
            fixed = [f for f in ins.fields if f.buffer in buffers]
            if m and m[1] in buffers and any(f.buffer == m[1] for f in fixed):
                f = next(f for f in fixed if f.buffer == m[1])
                self.set(ins, f, self.addr(m, op, stmt, f), op, stmt, values, where)
                return
            if ins.fields:
                forms = ", ".join(f"{f.buffer}[ADDR]" for f in fixed)
                extra = f" or a bare buffer address ({forms})" if fixed else ""
                named = [f.name for f in ins.fields if f.buffer and f.buffer not in buffers]
                if m and m[1] in buffers and named:
                    extra += f"; name the operand, e.g. {named[0]}={op.text}"
                raise self.error(f"{mn}: operand '{op.text}' must be field=value{extra}; "
                                 f"fields: {', '.join(ins.field_map)}", stmt, op.column)
            raise self.error(f"{mn} takes no operands, got '{op.text}'", stmt, op.column)
        f = ins.field_map.get(op.key)
        if f is None:
            fields = ", ".join(ins.field_map) or "(none)"
            raise self.error(f"{mn}: unknown field '{op.key}'" + _hint(op.key, ins.field_map)
                             + f" fields: {fields}", stmt, op.column, op.key)
        m = _BUFREF.fullmatch(op.value)
        if m and m[1] not in buffers and m[1] not in self.names:
            raise self.error(f"{mn}: '{m[1]}' in '{op.value}' is not a buffer" + _hint(
                m[1], buffers) + f" buffers: {', '.join(buffers)}", stmt, op.column, f.name,
                op.value)
        if m and m[1] in buffers:
            if f.buffer is None:
                raise self.error(f"{mn}: field '{f.name}' is not a buffer address; write "
                                 f"{f.name}=VALUE", stmt, op.column, f.name, op.value)
            if f.buffer in buffers:
                if m[1] != f.buffer:
                    raise self.error(f"{mn}: field '{f.name}' always addresses {f.buffer}, not "
                                     f"{m[1]}", stmt, op.column, f.name, m[1])
            else:
                self.set(ins, ins.field_map[f.buffer], buffers[m[1]], op, stmt, values, where)
            self.set(ins, f, self.addr(m, op, stmt, f), op, stmt, values, where)
            return
        if f.enum:
            names = self.spec.enums[f.enum].values
            word = op.value.strip()
            if word in names:
                self.set(ins, f, names[word], op, stmt, values, where)
                return
            if _NAME.fullmatch(word) and word not in self.names:
                raise self.error(f"{mn}: field '{f.name}' value '{word}' is not a {f.enum}"
                                 + _hint(word, names) + f" known: {', '.join(names)}",
                                 stmt, op.column, f.name, word)
        self.set(ins, f, self.value_of(op, stmt, f.name), op, stmt, values, where)

    def addr(self, m: re.Match, op: Operand, stmt: Statement, f: FieldSpec) -> int:
        inner = Operand(m[2], op.column, None, m[2], op.column)
        return self.value_of(inner, stmt, f.name)

    def set(self, ins: InstructionSpec, f: FieldSpec, value: int, op: Operand, stmt: Statement,
            values: dict, where: dict) -> None:
        if f.name in values:
            raise self.error(f"{ins.mnemonic}: field '{f.name}' given twice (first at column "
                             f"{where[f.name].column})", stmt, op.column, f.name, value)
        lo, hi = f.legal
        if not lo <= value <= hi:
            raise self.error(f"{ins.mnemonic}: field '{f.name}' value {value} out of range "
                             f"{lo}..{hi} ({f.doc})", stmt, op.column, f.name, value)
        if f.enum and value not in self.spec.enums[f.enum].names:
            known = ", ".join(f"{k}={v}" for k, v in self.spec.enums[f.enum].values.items())
            raise self.error(f"{ins.mnemonic}: field '{f.name}' value {value} is not a "
                             f"{f.enum}; known: {known}", stmt, op.column, f.name, value)
        values[f.name] = value
        where[f.name] = op


def _hint(word: str, known) -> str:
    close = difflib.get_close_matches(word, list(known), n=1)
    return f"; did you mean '{close[0]}'?" if close else ";"
