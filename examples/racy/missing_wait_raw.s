; missing_wait_raw.s -- RACY ON PURPOSE (npusim stops with a RaceError): the gemm reads ibuf
; while dma0 is still loading A into it. Without the race check it silently multiplies zeros.
; The fix is the pair gemm_tile.s uses: `signal unit=dma0` after the loads and
; `wait unit=matrix` before the gemm.
;
;   C [4x4] int32 = A [4x4] @ W [4x4]

.target npu-tiny

.tensor A, dram=0x000, shape=4x4, dtype=int8
.tensor W, dram=0x010, shape=4x4, dtype=int8
.tensor C, dram=0x020, shape=4x4, dtype=int32

    load chan=0, sram=ibuf[0], dram=A, rows=4, cols=4, stride=4
    load chan=0, sram=wbuf[0], dram=W, rows=4, cols=4, stride=4
    gemm ibuf[0], wbuf[0], abuf[0], m=4, k=4, n=4        ; RAW: no wait for the loads
    barrier
    store chan=0, sram=abuf[0], dram=C, rows=4, cols=4, stride=16
    halt
