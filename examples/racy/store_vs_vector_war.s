; store_vs_vector_war.s -- RACY ON PURPOSE (npusim stops with a RaceError): dma0 stores Y from
; obuf while the vector unit overwrites obuf with the next result; nothing tells the vector
; unit that the store has read it. The fix: `signal unit=dma0, sem=1` after the store and
; `wait unit=vector, sem=1` before the vrelu.
;
;   Y [4x4] int8 = X;  Z [4x4] int8 = relu(X)   (Z overwrites Y's slot in obuf)

.target npu-tiny

.tensor X, dram=0x000, shape=4x4, dtype=int8
.tensor Y, dram=0x010, shape=4x4, dtype=int8
.tensor Z, dram=0x020, shape=4x4, dtype=int8

    load chan=0, sram=ibuf[0], dram=X, rows=4, cols=4, stride=4
    signal unit=dma0, sem=0
    wait unit=vector, sem=0
    vcopy dst=obuf[0], src0=ibuf[0], len=16
    signal unit=vector, sem=0
    wait unit=dma0, sem=0
    store chan=0, sram=obuf[0], dram=Y, rows=4, cols=4, stride=4
; the vector unit works on abuf meanwhile, then reuses obuf[0] while the store is in flight
    vcopy dst=abuf[0], src0=abuf[0x40], len=64
    vrelu dst=obuf[0], src0=ibuf[0], len=16              ; WAR: the store read obuf[0]
    barrier
    store chan=0, sram=obuf[0], dram=Z, rows=4, cols=4, stride=4
    halt
