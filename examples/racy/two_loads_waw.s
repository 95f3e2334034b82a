; two_loads_waw.s -- RACY ON PURPOSE (npusim stops with a RaceError): dma0 and dma1 load two
; tensors into the same ibuf range; which one the vcopy sees depends on the DRAM port's timing.
; The fix: give the second load its own range (ibuf[16]), or order the loads with a
; signal/wait from dma0 to dma1.

.target npu-tiny -dma-engines=2

.tensor A, dram=0x000, shape=4x4, dtype=int8
.tensor B, dram=0x010, shape=4x4, dtype=int8
.tensor Y, dram=0x020, shape=4x4, dtype=int8

    load chan=0, sram=ibuf[0], dram=A, rows=4, cols=4, stride=4
    load chan=1, sram=ibuf[8], dram=B, rows=4, cols=4, stride=4   ; WAW on ibuf[8:16]
    barrier
    vcopy dst=obuf[0], src0=ibuf[0], len=16
    barrier
    store chan=0, sram=obuf[0], dram=Y, rows=4, cols=4, stride=4
    halt
