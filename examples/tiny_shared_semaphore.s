; tiny_shared_semaphore.s -- two units block on one semaphore; each signal releases the one
; that has waited longest (here the vector unit, although the matrix unit comes first in
; unit order), as npusim's semaphores serve waits in request order.
;
;   Y [4x4] int8  = X             (vcopy, after the first signal)
;   Z [4x4] int32 = X @ W         (gemm, after the second)

.target npu-tiny

.tensor X, dram=0x000, shape=4x4, dtype=int8
.tensor W, dram=0x010, shape=4x4, dtype=int8
.tensor Y, dram=0x020, shape=4x4, dtype=int8
.tensor Z, dram=0x040, shape=4x4, dtype=int32

.equ LOADED, 0             ; dma0 -> vector or matrix, whichever waits longer
.equ Y_READY, 1            ; vector -> dma0
.equ Z_READY, 2            ; matrix -> dma0

    wait unit=vector, sem=LOADED
    nop
    nop
    wait unit=matrix, sem=LOADED
    load chan=0, sram=ibuf[0], dram=X, rows=4, cols=4, stride=4
    signal unit=dma0, sem=LOADED
    load chan=0, sram=wbuf[0], dram=W, rows=4, cols=4, stride=4
    signal unit=dma0, sem=LOADED

    vcopy dst=obuf[0], src0=ibuf[0], len=16
    signal unit=vector, sem=Y_READY
    gemm ibuf[0], wbuf[0], abuf[0], m=4, k=4, n=4
    signal unit=matrix, sem=Z_READY

    wait unit=dma0, sem=Y_READY
    store chan=0, sram=obuf[0], dram=Y, rows=4, cols=4, stride=4
    wait unit=dma0, sem=Z_READY
    store chan=0, sram=abuf[0], dram=Z, rows=4, cols=4, stride=16
    halt
