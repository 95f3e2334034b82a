"""Property tests of the DRAM pool: random alloc/free sequences keep every invariant."""
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim.runtime.errors import OutOfMemoryError
from npusim.runtime.pool import MemoryPool

# An op is ("alloc", nbytes, log2 align or None) or ("free", index into the live blocks).
ops = st.lists(st.one_of(
    st.tuples(st.just("alloc"), st.integers(1, 600), st.one_of(st.none(), st.integers(0, 8))),
    st.tuples(st.just("free"), st.integers(0, 1000))), max_size=60)


def check_invariants(pool, live):
    blocks = sorted(live, key=lambda a: a.addr)
    for a, b in zip(blocks, blocks[1:]):
        assert a.end <= b.addr, f"{a} overlaps {b}"
    assert all(pool.base <= a.addr and a.end <= pool.base + pool.size for a in blocks)
    assert pool.in_use == sum(a.size for a in blocks)
    assert pool.in_use + pool.total_free == pool.size
    free = pool.free_blocks
    # Free blocks are sorted, disjoint, non-empty and never adjacent (coalesced).
    assert all(s < e for s, e in free)
    assert all(e1 < s2 for (_, e1), (s2, _) in zip(free, free[1:]))
    assert all(not (a.addr < e and s < a.end) for a in blocks for s, e in free)
    assert 0.0 <= pool.fragmentation < 1.0


@settings(max_examples=150, deadline=None)
@given(ops=ops, strategy=st.sampled_from(["first-fit", "best-fit"]),
       base=st.sampled_from([0, 0x40, 0x1234]), default_align=st.sampled_from([1, 16, 64]))
def test_random_alloc_free_sequences(ops, strategy, base, default_align):
    pool = MemoryPool(4096, base=base, align=default_align, strategy=strategy)
    live, peak = [], 0
    for op in ops:
        if op[0] == "alloc":
            align = None if op[2] is None else 1 << op[2]
            try:
                a = pool.alloc(op[1], align=align)
            except OutOfMemoryError:
                # Refused only when no free block can hold it at that alignment.
                need = default_align if align is None else align
                assert all(-(-s // need) * need + op[1] > e for s, e in pool.free_blocks)
                continue
            assert a.addr % (default_align if align is None else align) == 0
            live.append(a)
        elif live:
            pool.free(live.pop(op[1] % len(live)))
        peak = max(peak, pool.in_use)
        check_invariants(pool, live)
    assert pool.peak_in_use == peak
    for a in live:
        pool.free(a)
    assert pool.free_blocks == [(base, base + 4096)]
    assert pool.in_use == 0 and pool.fragmentation == 0.0
