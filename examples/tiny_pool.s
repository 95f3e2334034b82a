; tiny_pool.s -- pooling on npu-tiny: 3x3 stride-2 max pooling with padding, then 2x2 stride-2
; sum pooling (saturated to int8), each after its pool_* registers are set by cfg.
;
;   X  [6x6x6] int8  input tile, HWC
;   Y  [3x3x6] int8  = maxpool(X, 3x3, stride 2, pad 1 on every side)
;   S  [3x3x6] int8  = sat8(sumpool(X, 2x2, stride 2))

.target npu-tiny

.tensor X, dram=0x000, shape=6x6x6, dtype=int8
.tensor Y, dram=0x100, shape=3x3x6, dtype=int8
.tensor S, dram=0x180, shape=3x3x6, dtype=int8

.equ X_READY, 0            ; dma0 -> vector: X in ibuf
.equ Y_READY, 1            ; vector -> dma0: Y and S in obuf

    load chan=0, sram=ibuf[0], dram=X, rows=6, cols=6*6, stride=6*6
    signal unit=dma0, sem=X_READY

    cfg unit=vector, reg=pool_kh, value=3
    cfg unit=vector, reg=pool_kw, value=3
    cfg unit=vector, reg=pool_stride_h, value=2
    cfg unit=vector, reg=pool_stride_w, value=2
    cfg unit=vector, reg=pool_pad_top, value=1
    cfg unit=vector, reg=pool_pad_left, value=1
    cfg unit=vector, reg=pool_pad_bottom, value=1
    cfg unit=vector, reg=pool_pad_right, value=1
    wait unit=vector, sem=X_READY
    vmaxpool dst=obuf[0], src0=ibuf[0], in_h=6, in_w=6, channels=6
    cfg unit=vector, reg=pool_kh, value=2
    cfg unit=vector, reg=pool_kw, value=2
    cfg unit=vector, reg=pool_pad_top, value=0
    cfg unit=vector, reg=pool_pad_left, value=0
    cfg unit=vector, reg=pool_pad_bottom, value=0
    cfg unit=vector, reg=pool_pad_right, value=0
    vsumpool dst=obuf[0x80], src0=ibuf[0], in_h=6, in_w=6, channels=6
    signal unit=vector, sem=Y_READY

    wait unit=dma0, sem=Y_READY
    store chan=0, sram=obuf[0], dram=Y, rows=3, cols=3*6, stride=3*6
    store chan=0, sram=obuf[0x80], dram=S, rows=3, cols=3*6, stride=3*6
    halt
