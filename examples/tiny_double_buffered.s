; tiny_double_buffered.s -- C[16x4] int32 = A[16x4] @ W[4x4] in 4 row tiles of 4 on npu-tiny,
; double-buffered on the one DMA channel: two ibuf and two abuf slots, so dma0 loads tile t+1
; while the array computes tile t; a core barrier and a nop before halt.
;
;   IN_FULL  dma0 -> matrix  an A tile is in its ibuf slot
;   IN_FREE  matrix -> dma0  the array has read an ibuf slot (it may be refilled)
;   ACC_FULL matrix -> dma0  a C tile is in its abuf slot
;   ACC_FREE dma0 -> matrix  dma0 has stored an abuf slot (it may be overwritten)

.target npu-tiny

.tensor A, dram=0x000, shape=16x4, dtype=int8
.tensor W, dram=0x040, shape=4x4,  dtype=int8
.tensor C, dram=0x100, shape=16x4, dtype=int32

.equ IN_FULL, 0
.equ IN_FREE, 1
.equ ACC_FULL, 2
.equ ACC_FREE, 3
.equ SLOT, 16              ; elements per ibuf / abuf slot (one 4x4 tile)

    load chan=0, sram=wbuf[0], dram=W, rows=4, cols=4, stride=4
    load chan=0, sram=ibuf[0*SLOT], dram=A+0*16, rows=4, cols=4, stride=4
    signal unit=dma0, sem=IN_FULL
    load chan=0, sram=ibuf[1*SLOT], dram=A+1*16, rows=4, cols=4, stride=4
    signal unit=dma0, sem=IN_FULL

    wait unit=matrix, sem=IN_FULL
    gemm ibuf[0*SLOT], wbuf[0], abuf[0*SLOT], m=4, k=4, n=4
    signal unit=matrix, sem=ACC_FULL
    signal unit=matrix, sem=IN_FREE
    wait unit=matrix, sem=IN_FULL
    gemm ibuf[1*SLOT], wbuf[0], abuf[1*SLOT], m=4, k=4, n=4
    signal unit=matrix, sem=ACC_FULL
    signal unit=matrix, sem=IN_FREE

; tile 0 out, tile 2 in (slot 0)
    wait unit=dma0, sem=ACC_FULL
    store chan=0, sram=abuf[0*SLOT], dram=C+0*64, rows=4, cols=4, stride=16
    signal unit=dma0, sem=ACC_FREE
    wait unit=dma0, sem=IN_FREE
    load chan=0, sram=ibuf[0*SLOT], dram=A+2*16, rows=4, cols=4, stride=4
    signal unit=dma0, sem=IN_FULL
    wait unit=matrix, sem=ACC_FREE
    wait unit=matrix, sem=IN_FULL
    gemm ibuf[0*SLOT], wbuf[0], abuf[0*SLOT], m=4, k=4, n=4
    signal unit=matrix, sem=ACC_FULL
    signal unit=matrix, sem=IN_FREE

; tile 1 out, tile 3 in (slot 1)
    wait unit=dma0, sem=ACC_FULL
    store chan=0, sram=abuf[1*SLOT], dram=C+1*64, rows=4, cols=4, stride=16
    signal unit=dma0, sem=ACC_FREE
    wait unit=dma0, sem=IN_FREE
    load chan=0, sram=ibuf[1*SLOT], dram=A+3*16, rows=4, cols=4, stride=4
    signal unit=dma0, sem=IN_FULL
    wait unit=matrix, sem=ACC_FREE
    wait unit=matrix, sem=IN_FULL
    gemm ibuf[1*SLOT], wbuf[0], abuf[1*SLOT], m=4, k=4, n=4
    signal unit=matrix, sem=ACC_FULL
    signal unit=matrix, sem=IN_FREE

; tiles 2 and 3 out
    wait unit=dma0, sem=ACC_FULL
    store chan=0, sram=abuf[0*SLOT], dram=C+2*64, rows=4, cols=4, stride=16
    wait unit=dma0, sem=ACC_FULL
    store chan=0, sram=abuf[1*SLOT], dram=C+3*64, rows=4, cols=4, stride=16
    barrier
    nop
    halt
