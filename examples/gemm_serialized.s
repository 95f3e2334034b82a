; gemm_serialized.s -- the serialized twin of gemm_double_buffered.s: the same
; C[64x16] int32 = A[64x16] @ W[16x16] with one ibuf and one abuf tile, so every step waits
; for the previous one: load, compute, store, then the next load.
;
;   IN_FULL  dma0 -> matrix  the A tile is in ibuf
;   ACC_FULL matrix -> dma1  the C tile is in abuf
;   STORED   dma1 -> dma0    C is stored: ibuf and abuf may be reused

.target npu-edge

.tensor A, dram=0x0000, shape=64x16, dtype=int8
.tensor W, dram=0x0400, shape=16x16, dtype=int8
.tensor C, dram=0x1000, shape=64x16, dtype=int32
.equ IN_FULL, 0
.equ ACC_FULL, 1
.equ STORED, 2

    load chan=0, sram=wbuf[0], dram=W, rows=16, cols=16, stride=16

tile0:
    load chan=0, sram=ibuf[0], dram=A+0*256, rows=16, cols=16, stride=16
    signal unit=dma0, sem=IN_FULL
    wait unit=matrix, sem=IN_FULL
    gemm ibuf[0], wbuf[0], abuf[0], m=16, k=16, n=16
    signal unit=matrix, sem=ACC_FULL
    wait unit=dma1, sem=ACC_FULL
    store chan=1, sram=abuf[0], dram=C+0*1024, rows=16, cols=16, stride=64
    signal unit=dma1, sem=STORED

tile1:
    wait unit=dma0, sem=STORED
    load chan=0, sram=ibuf[0], dram=A+1*256, rows=16, cols=16, stride=16
    signal unit=dma0, sem=IN_FULL
    wait unit=matrix, sem=IN_FULL
    gemm ibuf[0], wbuf[0], abuf[0], m=16, k=16, n=16
    signal unit=matrix, sem=ACC_FULL
    wait unit=dma1, sem=ACC_FULL
    store chan=1, sram=abuf[0], dram=C+1*1024, rows=16, cols=16, stride=64
    signal unit=dma1, sem=STORED

tile2:
    wait unit=dma0, sem=STORED
    load chan=0, sram=ibuf[0], dram=A+2*256, rows=16, cols=16, stride=16
    signal unit=dma0, sem=IN_FULL
    wait unit=matrix, sem=IN_FULL
    gemm ibuf[0], wbuf[0], abuf[0], m=16, k=16, n=16
    signal unit=matrix, sem=ACC_FULL
    wait unit=dma1, sem=ACC_FULL
    store chan=1, sram=abuf[0], dram=C+2*1024, rows=16, cols=16, stride=64
    signal unit=dma1, sem=STORED

tile3:
    wait unit=dma0, sem=STORED
    load chan=0, sram=ibuf[0], dram=A+3*256, rows=16, cols=16, stride=16
    signal unit=dma0, sem=IN_FULL
    wait unit=matrix, sem=IN_FULL
    gemm ibuf[0], wbuf[0], abuf[0], m=16, k=16, n=16
    signal unit=matrix, sem=ACC_FULL
    wait unit=dma1, sem=ACC_FULL
    store chan=1, sram=abuf[0], dram=C+3*1024, rows=16, cols=16, stride=64
    halt
