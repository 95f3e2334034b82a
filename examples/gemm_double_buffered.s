; gemm_double_buffered.s -- C[64x16] int32 = A[64x16] @ W[16x16], 4 row tiles of 16,
; double-buffered: two ibuf slots and two abuf slots, so dma0 loads tile t+1 while the array
; computes tile t and dma1 stores tile t-1. Its serialized twin is gemm_serialized.s.
;
; Semaphores count buffer hand-offs; units are in order, so slots alternate 0, 1, 0, 1:
;   IN_FULL  dma0 -> matrix  an A tile is in its ibuf slot
;   IN_FREE  matrix -> dma0  the array has read an ibuf slot (it may be refilled)
;   ACC_FULL matrix -> dma1  a C tile is in its abuf slot
;   ACC_FREE dma1 -> matrix  dma1 has read an abuf slot (it may be overwritten)

.target npu-edge

.tensor A, dram=0x0000, shape=64x16, dtype=int8
.tensor W, dram=0x0400, shape=16x16, dtype=int8
.tensor C, dram=0x1000, shape=64x16, dtype=int32
.equ IN_FULL, 0
.equ IN_FREE, 1
.equ ACC_FULL, 2
.equ ACC_FREE, 3
.equ SLOT, 256             ; elements per ibuf / abuf slot (one 16x16 tile)

; W stays in wbuf for every tile (weight-stationary); dma0 loads it before the first A tile,
; so the first IN_FULL also covers it.
    load chan=0, sram=wbuf[0], dram=W, rows=16, cols=16, stride=16

tile0:
; dma0: A tile 0 -> ibuf slot 0
    load chan=0, sram=ibuf[0*SLOT], dram=A+0*256, rows=16, cols=16, stride=16
    signal unit=dma0, sem=IN_FULL
; matrix: tile 0 into abuf slot 0
    wait unit=matrix, sem=IN_FULL
    gemm ibuf[0*SLOT], wbuf[0], abuf[0*SLOT], m=16, k=16, n=16
    signal unit=matrix, sem=IN_FREE
    signal unit=matrix, sem=ACC_FULL
; dma1: C tile 0 (int32, 64 bytes a row) back to DRAM
    wait unit=dma1, sem=ACC_FULL
    store chan=1, sram=abuf[0*SLOT], dram=C+0*1024, rows=16, cols=16, stride=64
    signal unit=dma1, sem=ACC_FREE

tile1:
; dma0: A tile 1 -> ibuf slot 1
    load chan=0, sram=ibuf[1*SLOT], dram=A+1*256, rows=16, cols=16, stride=16
    signal unit=dma0, sem=IN_FULL
; matrix: tile 1 into abuf slot 1
    wait unit=matrix, sem=IN_FULL
    gemm ibuf[1*SLOT], wbuf[0], abuf[1*SLOT], m=16, k=16, n=16
    signal unit=matrix, sem=IN_FREE
    signal unit=matrix, sem=ACC_FULL
; dma1: C tile 1 (int32, 64 bytes a row) back to DRAM
    wait unit=dma1, sem=ACC_FULL
    store chan=1, sram=abuf[1*SLOT], dram=C+1*1024, rows=16, cols=16, stride=64
    signal unit=dma1, sem=ACC_FREE

tile2:
; dma0: A tile 2 -> ibuf slot 0 once the array has released it
    wait unit=dma0, sem=IN_FREE
    load chan=0, sram=ibuf[0*SLOT], dram=A+2*256, rows=16, cols=16, stride=16
    signal unit=dma0, sem=IN_FULL
; matrix: tile 2 into abuf slot 0 once dma1 has stored what was there
    wait unit=matrix, sem=IN_FULL
    wait unit=matrix, sem=ACC_FREE
    gemm ibuf[0*SLOT], wbuf[0], abuf[0*SLOT], m=16, k=16, n=16
    signal unit=matrix, sem=ACC_FULL
; dma1: C tile 2 (int32, 64 bytes a row) back to DRAM
    wait unit=dma1, sem=ACC_FULL
    store chan=1, sram=abuf[0*SLOT], dram=C+2*1024, rows=16, cols=16, stride=64

tile3:
; dma0: A tile 3 -> ibuf slot 1 once the array has released it
    wait unit=dma0, sem=IN_FREE
    load chan=0, sram=ibuf[1*SLOT], dram=A+3*256, rows=16, cols=16, stride=16
    signal unit=dma0, sem=IN_FULL
; matrix: tile 3 into abuf slot 1 once dma1 has stored what was there
    wait unit=matrix, sem=IN_FULL
    wait unit=matrix, sem=ACC_FREE
    gemm ibuf[1*SLOT], wbuf[0], abuf[1*SLOT], m=16, k=16, n=16
    signal unit=matrix, sem=ACC_FULL
; dma1: C tile 3 (int32, 64 bytes a row) back to DRAM
    wait unit=dma1, sem=ACC_FULL
    store chan=1, sram=abuf[1*SLOT], dram=C+3*1024, rows=16, cols=16, stride=64
    halt
