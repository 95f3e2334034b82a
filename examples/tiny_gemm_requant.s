; tiny_gemm_requant.s -- an 8x4x4 int8 GEMM requantized to int8 on npu-tiny (4x4 array, one
; DMA channel), every hand-off through a semaphore; the RTL core runs it cycle for cycle.
;
;   C[8x4] int8 = requant(A[8x4] @ W[4x4], RQ)    RQ: one (mult, shift) int32 pair per column
;
; dma0's queue (4 entries) fills behind the loads, so dispatch stalls on it.

.target npu-tiny

.tensor A,  dram=0x000, shape=8x4, dtype=int8
.tensor W,  dram=0x040, shape=4x4, dtype=int8
.tensor RQ, dram=0x080, shape=4x2, dtype=int32
.tensor C,  dram=0x100, shape=8x4, dtype=int8

.equ RQ_ADDR, 0x40         ; abuf element address of the requant table

.equ AW_READY,  0          ; dma0 -> matrix: A in ibuf, W in wbuf
.equ ACC_READY, 1          ; matrix -> vector: int32 tile in abuf
.equ RQ_READY,  2          ; dma0 -> vector: requant table in abuf
.equ C_READY,   3          ; vector -> dma0: int8 C in obuf

    load chan=0, sram=ibuf[0], dram=A, rows=8, cols=4, stride=4
    load chan=0, sram=wbuf[0], dram=W, rows=4, cols=4, stride=4
    signal unit=dma0, sem=AW_READY
    load chan=0, sram=abuf[RQ_ADDR], dram=RQ, rows=1, cols=8, stride=32
    signal unit=dma0, sem=RQ_READY

    wait unit=matrix, sem=AW_READY
    gemm ibuf[0], wbuf[0], abuf[0], m=8, k=4, n=4
    signal unit=matrix, sem=ACC_READY

    wait unit=vector, sem=ACC_READY
    wait unit=vector, sem=RQ_READY
    vrequant dst=obuf[0], src0=abuf[0], src1=abuf[RQ_ADDR], len=8*4, channels=4, zp=-3
    signal unit=vector, sem=C_READY

    wait unit=dma0, sem=C_READY
    store chan=0, sram=obuf[0], dram=C, rows=8, cols=4, stride=4
    halt
