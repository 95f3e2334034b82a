; cross_core_no_gbarrier.s -- RACY ON PURPOSE (npusim stops with a RaceError): two_core_barrier.s
; without its gbarrier. Core 1 stores its partial sums P1 to DRAM; core 0 loads P1 with nothing
; ordering the load after the store, so it may add stale bytes. The fix is the gbarrier
; two_core_barrier.s has (after core 1's store, before core 0's load).
;
;   P1 [4x4] int32 = A1 @ W1 on core 1;  C = P1 + A0 @ W0 on core 0

.target npu-tiny -num-cores=2

.tensor A0, dram=0x000, shape=4x4, dtype=int8
.tensor W0, dram=0x010, shape=4x4, dtype=int8
.tensor A1, dram=0x020, shape=4x4, dtype=int8
.tensor W1, dram=0x030, shape=4x4, dtype=int8
.tensor P1, dram=0x040, shape=4x4, dtype=int32
.tensor C,  dram=0x080, shape=4x4, dtype=int32

.core 0
    load chan=0, sram=ibuf[0], dram=A0, rows=4, cols=4, stride=4
    load chan=0, sram=wbuf[0], dram=W0, rows=4, cols=4, stride=4
    signal unit=dma0, sem=0
    wait unit=matrix, sem=0
    gemm ibuf[0], wbuf[0], abuf[0], m=4, k=4, n=4
    signal unit=matrix, sem=1
    wait unit=dma0, sem=1
    load chan=0, sram=abuf[0x10], dram=P1, rows=4, cols=4, stride=16   ; RAW/WAR with core 1
    signal unit=dma0, sem=2
    wait unit=vector, sem=2
    vadd dst=abuf[0], src0=abuf[0], src1=abuf[0x10], len=16
    signal unit=vector, sem=3
    wait unit=dma0, sem=3
    store chan=0, sram=abuf[0], dram=C, rows=4, cols=4, stride=16
    halt

.core 1
    load chan=0, sram=ibuf[0], dram=A1, rows=4, cols=4, stride=4
    load chan=0, sram=wbuf[0], dram=W1, rows=4, cols=4, stride=4
    signal unit=dma0, sem=0
    wait unit=matrix, sem=0
    gemm ibuf[0], wbuf[0], abuf[0], m=4, k=4, n=4
    signal unit=matrix, sem=1
    wait unit=dma0, sem=1
    store chan=0, sram=abuf[0], dram=P1, rows=4, cols=4, stride=16
    halt
