; maxpool.s -- 2x2, stride-2 max pooling of an 8x8x16 int8 tile (HWC) to 4x4x16.

.target npu-edge

.tensor X, dram=0x000, shape=8x8x16, dtype=int8
.tensor Y, dram=0x400, shape=4x4x16, dtype=int8

.equ X_READY, 0            ; dma0 -> vector: X in ibuf
.equ Y_READY, 1            ; vector -> dma0: Y in obuf

; dma0 loads the tile: 8 image rows of 8*16 bytes.
    load chan=0, sram=ibuf[0], dram=X, rows=8, cols=8*16, stride=8*16
    signal unit=dma0, sem=X_READY

; The vector unit's pooling registers (in its queue, ahead of the pool): 2x2 window,
; stride 2, no padding.
    cfg unit=vector, reg=pool_kh, value=2
    cfg unit=vector, reg=pool_kw, value=2
    cfg unit=vector, reg=pool_stride_h, value=2
    cfg unit=vector, reg=pool_stride_w, value=2
    wait unit=vector, sem=X_READY
    vmaxpool dst=obuf[0], src0=ibuf[0], in_h=8, in_w=8, channels=16
    signal unit=vector, sem=Y_READY

; dma0 stores the 4x4x16 result: 4 rows of 4*16 bytes.
    wait unit=dma0, sem=Y_READY
    store chan=0, sram=obuf[0], dram=Y, rows=4, cols=4*16, stride=4*16
    halt
