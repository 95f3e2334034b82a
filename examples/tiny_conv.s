; tiny_conv.s -- a small conv layer on npu-tiny: 3x3 same-padded convolution, bias,
; requantization and ReLU (written by hand: the compiler has no npu backend yet).
;
;   X  [5x5x6]     int8  input tile, HWC
;   Wt [3x3x6x4]   int8  weights, kh x kw x cin x cout
;   B  [4]         int32 bias per output channel
;   RQ [4x2]       int32 (mult, shift) per output channel
;   Y  [5x5x4]     int8  = relu(requant(conv2d(X, Wt, pad 1) + B))
;
; 6 input channels on a 4-row array: each of the 9 taps is 2 passes (4 + 2 channels).

.target npu-tiny

.tensor X,  dram=0x000, shape=5x5x6,   dtype=int8
.tensor Wt, dram=0x100, shape=3x3x6x4, dtype=int8
.tensor B,  dram=0x200, shape=4,       dtype=int32
.tensor RQ, dram=0x210, shape=4x2,     dtype=int32
.tensor Y,  dram=0x300, shape=5x5x4,   dtype=int8

.equ H, 5
.equ W, 5
.equ CIN, 6
.equ COUT, 4
.equ ACC, 0x000            ; abuf: the 5x5x4 int32 conv output
.equ BIAS, 0x100           ; abuf: 4 bias words
.equ TABLE, 0x110          ; abuf: 4 (mult, shift) pairs

.equ XW_READY,  0          ; dma0 -> matrix: X in ibuf, Wt in wbuf
.equ ACC_READY, 1          ; matrix -> vector: conv output in abuf
.equ BT_READY,  2          ; dma0 -> vector: bias and requant table in abuf
.equ Y_READY,   3          ; vector -> dma0: int8 Y in obuf

    load chan=0, sram=ibuf[0], dram=X, rows=H, cols=W*CIN, stride=W*CIN
    load chan=0, sram=wbuf[0], dram=Wt, rows=3*3, cols=CIN*COUT, stride=CIN*COUT
    signal unit=dma0, sem=XW_READY
    load chan=0, sram=abuf[BIAS], dram=B, rows=1, cols=COUT, stride=COUT*4
    load chan=0, sram=abuf[TABLE], dram=RQ, rows=1, cols=2*COUT, stride=2*COUT*4
    signal unit=dma0, sem=BT_READY

    cfg unit=matrix, reg=conv_kh, value=3
    cfg unit=matrix, reg=conv_kw, value=3
    cfg unit=matrix, reg=conv_pad_top, value=1
    cfg unit=matrix, reg=conv_pad_left, value=1
    cfg unit=matrix, reg=conv_pad_bottom, value=1
    cfg unit=matrix, reg=conv_pad_right, value=1
    wait unit=matrix, sem=XW_READY
    conv ibuf[0], wbuf[0], abuf[ACC], in_h=H, in_w=W, cin=CIN, cout=COUT
    signal unit=matrix, sem=ACC_READY

    wait unit=vector, sem=ACC_READY
    wait unit=vector, sem=BT_READY
    vbias dst=abuf[ACC], src0=abuf[ACC], src1=abuf[BIAS], len=H*W*COUT, channels=COUT
    vrequant dst=obuf[0], src0=abuf[ACC], src1=abuf[TABLE], len=H*W*COUT, channels=COUT, relu=1
    signal unit=vector, sem=Y_READY

    wait unit=dma0, sem=Y_READY
    store chan=0, sram=obuf[0], dram=Y, rows=H, cols=W*COUT, stride=W*COUT
    halt
