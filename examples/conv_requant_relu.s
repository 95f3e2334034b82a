; conv_requant_relu.s -- a 3x3 same-padded convolution with bias, requantization and ReLU.
;
;   X  [8x8x16]      int8  input tile, HWC
;   Wt [3x3x16x16]   int8  weights, kh x kw x cin x cout
;   B  [16]          int32 bias per output channel
;   RQ [16x2]        int32 (mult, shift) per output channel
;   Y  [8x8x16]      int8  = relu(requant(conv2d(X, Wt, pad 1) + B))
;
; With 16 input channels every kernel tap is one pass over the 16x16 array (9 passes).

.target npu-edge

.tensor X,  dram=0x0000, shape=8x8x16,    dtype=int8
.tensor Wt, dram=0x0400, shape=3x3x16x16, dtype=int8
.tensor B,  dram=0x0d00, shape=16,        dtype=int32
.tensor RQ, dram=0x0d40, shape=16x2,      dtype=int32
.tensor Y,  dram=0x0e00, shape=8x8x16,    dtype=int8

.equ H, 8
.equ W, 8
.equ CIN, 16
.equ COUT, 16
.equ ACC, 0x000            ; abuf: the 8x8x16 int32 conv output (1024 words)
.equ BIAS, 0x400           ; abuf: 16 bias words
.equ TABLE, 0x410          ; abuf: 16 (mult, shift) pairs

.equ XW_READY,  0          ; dma0 -> matrix: X in ibuf, Wt in wbuf
.equ ACC_READY, 1          ; matrix -> vector: conv output in abuf
.equ BT_READY,  2          ; dma1 -> vector: bias and requant table in abuf
.equ Y_READY,   3          ; vector -> dma1: int8 Y in obuf

; dma0: the input tile, one DRAM row of W*CIN bytes per image row, and the weights,
; one row of CIN*COUT bytes per kernel tap.
    load chan=0, sram=ibuf[0], dram=X, rows=H, cols=W*CIN, stride=W*CIN
    load chan=0, sram=wbuf[0], dram=Wt, rows=3*3, cols=CIN*COUT, stride=CIN*COUT
    signal unit=dma0, sem=XW_READY

; dma1: the per-channel bias and requant table, straight into abuf (int32 elements).
    load chan=1, sram=abuf[BIAS], dram=B, rows=1, cols=COUT, stride=COUT*4
    load chan=1, sram=abuf[TABLE], dram=RQ, rows=1, cols=2*COUT, stride=2*COUT*4
    signal unit=dma1, sem=BT_READY

; The matrix unit's conv registers: 3x3 kernel, stride 1, one implicit zero row/column
; on every side, so the output stays 8x8. They sit in the matrix queue ahead of the conv.
    cfg unit=matrix, reg=conv_kh, value=3
    cfg unit=matrix, reg=conv_kw, value=3
    cfg unit=matrix, reg=conv_pad_top, value=1
    cfg unit=matrix, reg=conv_pad_left, value=1
    cfg unit=matrix, reg=conv_pad_bottom, value=1
    cfg unit=matrix, reg=conv_pad_right, value=1
    wait unit=matrix, sem=XW_READY
    conv ibuf[0], wbuf[0], abuf[ACC], in_h=H, in_w=W, cin=CIN, cout=COUT
    signal unit=matrix, sem=ACC_READY

; The vector unit adds the bias in place (int32), then requantizes to int8 with the
; fused ReLU (clamp below at the zero point 0) into obuf.
    wait unit=vector, sem=ACC_READY
    wait unit=vector, sem=BT_READY
    vbias dst=abuf[ACC], src0=abuf[ACC], src1=abuf[BIAS], len=H*W*COUT, channels=COUT
    vrequant dst=obuf[0], src0=abuf[ACC], src1=abuf[TABLE], len=H*W*COUT, channels=COUT, relu=1
    signal unit=vector, sem=Y_READY

; dma1 stores Y, one image row (W*COUT bytes) per DRAM row.
    wait unit=dma1, sem=Y_READY
    store chan=1, sram=obuf[0], dram=Y, rows=H, cols=W*COUT, stride=W*COUT
    halt
