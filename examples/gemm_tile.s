; gemm_tile.s -- one 16x16x16 int8 GEMM tile on npu-edge, requantized to int8.
;
;   C[16x16] int8 = requant(A[16x16] int8 @ W[16x16] int8, RQ)
;   RQ holds one (mult, shift) int32 pair per output channel (column of C):
;   C[i][j] = sat8(round_shift(acc[i][j] * RQ[j][0], RQ[j][1])).
;
; Units run concurrently, in order within each unit; every hand-off of a buffer from
; the unit that fills it to the unit that reads it goes through a semaphore.

.target npu-edge

.tensor A,  dram=0x0000, shape=16x16, dtype=int8
.tensor W,  dram=0x0100, shape=16x16, dtype=int8
.tensor RQ, dram=0x0200, shape=16x2,  dtype=int32
.tensor C,  dram=0x0300, shape=16x16, dtype=int8

.equ M, 16
.equ K, 16
.equ N, 16
.equ RQ_ADDR, 0x100        ; abuf element address of the requant table (after the M*N tile)

; semaphores: producer -> consumer
.equ AW_READY,  0          ; dma0 -> matrix: A in ibuf, W in wbuf
.equ ACC_READY, 1          ; matrix -> vector: accumulator tile complete in abuf
.equ RQ_READY,  2          ; dma1 -> vector: requant table in abuf
.equ C_READY,   3          ; vector -> dma1: int8 C in obuf

start:
; dma0 brings the operands in: 16 rows of 16 bytes each, rows 16 bytes apart in DRAM.
    load chan=0, sram=ibuf[0], dram=A, rows=M, cols=K, stride=K
    load chan=0, sram=wbuf[0], dram=W, rows=K, cols=N, stride=N
    signal unit=dma0, sem=AW_READY

; dma1 brings the per-channel (mult, shift) table in parallel: 32 int32 words in one row.
    load chan=1, sram=abuf[RQ_ADDR], dram=RQ, rows=1, cols=2*N, stride=2*N*4
    signal unit=dma1, sem=RQ_READY

; The matrix unit waits for its operands, then streams the 16 rows of A through the array
; holding W (weight-stationary) and overwrites the int32 accumulator tile.
compute:
    wait unit=matrix, sem=AW_READY
    gemm ibuf[0], wbuf[0], abuf[0], m=M, k=K, n=N
    signal unit=matrix, sem=ACC_READY

; The vector unit waits for the accumulators and the table, then requantizes the 256
; int32 values to int8 in obuf (channel = column = i % 16).
    wait unit=vector, sem=ACC_READY
    wait unit=vector, sem=RQ_READY
    vrequant dst=obuf[0], src0=abuf[0], src1=abuf[RQ_ADDR], len=M*N, channels=N
    signal unit=vector, sem=C_READY

; dma1 writes C back once the vector unit has produced it.
    wait unit=dma1, sem=C_READY
    store chan=1, sram=obuf[0], dram=C, rows=M, cols=N, stride=N
    halt
