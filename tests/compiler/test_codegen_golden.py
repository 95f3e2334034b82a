"""Exact code and cycle trace of the smallest layer: a 16 -> 16 dense layer on npu-edge.

Derivation (S = 8 setup, Lat = 100, BW = 16 B/cycle, R = C = 16, P = 4, L = 16):
  dma1  load W^T  256 B  1 + 8 + 16 beats + 100            = 125
  dma0  load x     16 B  3 + 8, its beat waits for the port
                         (dma1's beats hold it 9..25): 26 + 100 = 126
  dma1  load table 192 B after its signal: 126 + 8 + 12 + 100 = 246
  matrix waits for x (signal at 127) and W (126): gemm 129 + (k + m + R + C - 1 = 63) = 192
  vector waits for the table (247) and the sum (193): vrequant with the bias (bias=1, the
         table's (bias, mult, shift) triples) 249 + P + 2 + 1 + 1 = 257, signal 258
  dma0  store 16 B: 259 + 8 + 1 + 100 = 368
"""

import numpy as np

from compiler.backends.npu.codegen import generate
from compiler.ir.graph import Graph, Node
from compiler.ir.types import TensorType
from compiler.lower.program import lower
from compiler.passes.infer import infer_types
from compiler.reference import run_int
from isa.asm import assemble
from npusim.memory import Dram
from npusim.simulate import simulate

CODE = """\
L0_y:
    load chan=1, sram=ibuf[0x0], dram=0x140, rows=1, cols=256, stride=256  ; y out 0:16 in 0:16: weights (transposed)
    signal unit=dma1, sem=1
    load chan=0, sram=wbuf[0x0], dram=0x0, rows=1, cols=16, stride=16  ; y: input vector
    signal unit=dma0, sem=0
    load chan=1, sram=abuf[0x0], dram=0x80, rows=1, cols=48, stride=192  ; y: epilogue table
    signal unit=dma1, sem=2
    wait unit=matrix, sem=0
    wait unit=matrix, sem=1
    gemm ibuf[0x0], wbuf[0x0], abuf[0x30], m=16, k=16, n=1  ; y out 0:16 in 0:16
    signal unit=matrix, sem=3
    wait unit=vector, sem=2
    wait unit=vector, sem=3
    vrequant dst=obuf[0x0], src0=abuf[0x30], src1=abuf[0x0], len=16, channels=16, relu=1, bias=1  ; y out 0:16
    signal unit=vector, sem=4
    wait unit=dma0, sem=4
    store chan=0, sram=obuf[0x0], dram=0x40, rows=1, cols=16, stride=16  ; y out 0:16: store
    halt
"""

TRACE = [("dma1", "load", 1, 125), ("dma0", "load", 3, 126), ("dma1", "load", 126, 246),
         ("matrix", "gemm", 129, 192), ("vector", "vrequant", 249, 257),
         ("dma0", "store", 259, 368)]


def dense_graph():
    r = np.random.default_rng(0)
    g = Graph("one_dense")
    g.add_input("x", TensorType((1, 16), "int8"))
    ins = ["x", g.add_constant("w", r.integers(-127, 128, (16, 16)).astype(np.int8)),
           g.add_constant("b", np.arange(16, dtype=np.int32)),
           g.add_constant("m", np.full(16, 1 << 30, np.int32)),
           g.add_constant("s", np.full(16, 36, np.int32))]
    g.add_node(Node("qnn.dense", ins, "y", {"act": "relu"}))
    g.outputs = ["y"]
    return infer_types(g)


def test_dense_layer_code_and_cycle_trace_are_exact():
    g = dense_graph()
    lowered = lower(g, "npu-edge")
    res = generate(lowered)
    assert res.text.split(".core 0\n")[1].split("\n", 1)[1] == CODE
    prog = assemble(res.text)
    dram = Dram(1 << 20)
    dram.bytes[res.dram.const_base:res.dram.const_top] = np.frombuffer(res.dram.image(), np.uint8)
    x = np.random.default_rng(1).integers(-128, 128, (1, 16)).astype(np.int8)
    dram.write(res.dram.addr(lowered, "x"), x)
    out = simulate(prog, "npu-edge", dram=dram)
    work = out.trace[~out.trace["mnemonic"].isin(["wait", "signal", "halt"])]
    assert list(work[["unit", "mnemonic", "start", "end"]].itertuples(index=False, name=None)) \
        == TRACE
    assert out.cycles == 368
    assert np.array_equal(dram.read(res.dram.addr(lowered, "y"), (1, 16), np.int8),
                          run_int(g, {"x": x})["y"])
