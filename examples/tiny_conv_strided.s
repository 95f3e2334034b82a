; tiny_conv_strided.s -- the corners of hardware im2col on npu-tiny: two convs into one
; accumulator tile, the second accumulating (acc=1), with stride, dilation and uneven padding.
;
;   X  [7x7x3]   int8   input tile, HWC
;   Wa [2x3x3x4] int8   kernel 2x3: stride 2x1, dilation 2x1, pads top 1 left 0 bottom 0 right 2
;   Wb [1x1x3x4] int8   1x1 kernel on rows 0, 2, 4 (stride 2x1, no padding)
;   Z  [3x7x4]   int32  = conv(X, Wa) + conv(X, Wb)
;
; Out size: (7 + 1 + 0 - (2*(2-1)+1)) / 2 + 1 = 3 rows, (7 + 0 + 2 - 3) / 1 + 1 = 7 columns,
; and for the 1x1 kernel (7 - 1) / 2 + 1 = 4 rows, (7 - 1) / 1 + 1 = 7 columns: Wb's conv
; covers a 4x7 tile; only its first 3 rows land on Z (the fourth goes to scratch).

.target npu-tiny

.tensor X,  dram=0x000, shape=7x7x3,   dtype=int8
.tensor Wa, dram=0x100, shape=2x3x3x4, dtype=int8
.tensor Wb, dram=0x180, shape=1x1x3x4, dtype=int8
.tensor Z,  dram=0x200, shape=3x7x4,   dtype=int32

.equ READY, 0              ; dma0 -> matrix: X, Wa, Wb loaded
.equ DONE, 1               ; matrix -> dma0: Z complete in abuf

    load chan=0, sram=ibuf[0], dram=X, rows=7, cols=7*3, stride=7*3
    load chan=0, sram=wbuf[0], dram=Wa, rows=2*3, cols=3*4, stride=3*4
    load chan=0, sram=wbuf[0x100], dram=Wb, rows=1, cols=3*4, stride=3*4
    signal unit=dma0, sem=READY

    cfg unit=matrix, reg=conv_kh, value=2
    cfg unit=matrix, reg=conv_kw, value=3
    cfg unit=matrix, reg=conv_stride_h, value=2
    cfg unit=matrix, reg=conv_dilation_h, value=2
    cfg unit=matrix, reg=conv_pad_top, value=1
    cfg unit=matrix, reg=conv_pad_right, value=2
    wait unit=matrix, sem=READY
    conv ibuf[0], wbuf[0], abuf[0], in_h=7, in_w=7, cin=3, cout=4
    cfg unit=matrix, reg=conv_kh, value=1
    cfg unit=matrix, reg=conv_kw, value=1
    cfg unit=matrix, reg=conv_dilation_h, value=1
    cfg unit=matrix, reg=conv_pad_top, value=0
    cfg unit=matrix, reg=conv_pad_right, value=0
    conv ibuf[0], wbuf[0x100], abuf[0], in_h=7, in_w=7, cin=3, cout=4, acc=1
    signal unit=matrix, sem=DONE

    wait unit=dma0, sem=DONE
    store chan=0, sram=abuf[0], dram=Z, rows=3, cols=7*4, stride=7*4*4
    halt
