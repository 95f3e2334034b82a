; two_core_barrier.s -- a split-K GEMM on two cores joined by a global barrier.
;
;   C[16x16] int32 = A[16x32] @ W[32x16]
;                  = A[:, 0:16] @ W[0:16, :]  (core 0)  +  A[:, 16:32] @ W[16:32, :]  (core 1)
;
; Each core computes its partial product on its own array with its own DMA engine.
; Core 1 stores its int32 partial P1 to DRAM; after the global barrier core 0 loads P1,
; adds it to its own partial with vadd and stores C.

.target npu-edge -num-cores=2

.tensor A,  dram=0x000, shape=16x32, dtype=int8
.tensor W,  dram=0x200, shape=32x16, dtype=int8
.tensor P1, dram=0x400, shape=16x16, dtype=int32      ; scratch: core 1's partial sums
.tensor C,  dram=0x800, shape=16x16, dtype=int32

.equ AW_READY,  0          ; dma0 -> matrix: A half and W half loaded
.equ ACC_READY, 1          ; matrix -> vector (core 0) or matrix -> dma0 (core 1)
.equ P1_READY,  2          ; dma0 -> vector: core 1's partial in abuf (core 0)
.equ C_READY,   3          ; vector -> dma0: the sum in abuf (core 0)
.equ JOIN, 0               ; global barrier id

.core 0
; Columns 0..15 of A (rows 32 bytes apart) and rows 0..15 of W.
    load chan=0, sram=ibuf[0], dram=A, rows=16, cols=16, stride=32
    load chan=0, sram=wbuf[0], dram=W, rows=16, cols=16, stride=16
    signal unit=dma0, sem=AW_READY
    wait unit=matrix, sem=AW_READY
    gemm ibuf[0], wbuf[0], abuf[0], m=16, k=16, n=16
    signal unit=matrix, sem=ACC_READY
; Wait until core 1 has stored P1 (the barrier drains both cores' units first).
    gbarrier id=JOIN
    load chan=0, sram=abuf[0x100], dram=P1, rows=16, cols=16, stride=16*4
    signal unit=dma0, sem=P1_READY
; The vector unit needs both partials: its own (matrix token) and core 1's (DMA token).
    wait unit=vector, sem=ACC_READY
    wait unit=vector, sem=P1_READY
    vadd dst=abuf[0], src0=abuf[0], src1=abuf[0x100], len=16*16
    signal unit=vector, sem=C_READY
    wait unit=dma0, sem=C_READY
    store chan=0, sram=abuf[0], dram=C, rows=16, cols=16, stride=16*4
    halt

.core 1
; Columns 16..31 of A and rows 16..31 of W (16 rows x 16 bytes further on).
    load chan=0, sram=ibuf[0], dram=A+16, rows=16, cols=16, stride=32
    load chan=0, sram=wbuf[0], dram=W+16*16, rows=16, cols=16, stride=16
    signal unit=dma0, sem=AW_READY
    wait unit=matrix, sem=AW_READY
    gemm ibuf[0], wbuf[0], abuf[0], m=16, k=16, n=16
    signal unit=matrix, sem=ACC_READY
; dma0 stores the int32 partial once the matrix unit has finished it.
    wait unit=dma0, sem=ACC_READY
    store chan=0, sram=abuf[0], dram=P1, rows=16, cols=16, stride=16*4
; The store is complete before this core reaches the barrier (core barrier first).
    gbarrier id=JOIN
    halt
