"""Tests for npusim.runtime.pool: placement, alignment, coalescing, statistics and errors."""
import pytest

from npusim.runtime.errors import DeviceError, OutOfMemoryError, PoolError
from npusim.runtime.pool import Allocation, MemoryPool


def test_first_fit_places_blocks_in_address_order_and_aligns():
    pool = MemoryPool(1024, align=64)
    a = pool.alloc(10, name="a")
    b = pool.alloc(100, name="b")
    c = pool.alloc(1, align=256, name="c")
    assert (a.addr, b.addr, c.addr) == (0, 64, 256)
    assert (a.size, b.size, c.size) == (10, 100, 1)
    # The alignment gaps stay free: [10, 64), [164, 256), [257, 1024).
    assert pool.free_blocks == [(10, 64), (164, 256), (257, 1024)]
    assert pool.in_use == 111 and pool.total_free == 1024 - 111


def test_alignment_is_absolute_when_the_pool_has_a_base():
    pool = MemoryPool(4096, base=0x1010, align=64)
    assert pool.alloc(8).addr == 0x1040
    assert pool.alloc(8, align=1).addr == 0x1010


def test_free_coalesces_with_both_neighbours_and_block_is_reused():
    pool = MemoryPool(256, align=64)
    a, b, c, d = (pool.alloc(64, name=n) for n in "abcd")
    pool.free(a)
    pool.free(c)
    assert pool.free_blocks == [(0, 64), (128, 192)]
    assert pool.fragmentation == pytest.approx(0.5)
    pool.free(b.addr)  # by address: merges [0, 64) + [64, 128) + [128, 192)
    assert pool.free_blocks == [(0, 192)]
    assert pool.fragmentation == 0.0
    e = pool.alloc(192, name="e")
    assert e.addr == 0 and pool.largest_free == 0 and pool.fragmentation == 0.0
    pool.free(d)
    pool.free(e)
    assert pool.free_blocks == [(0, 256)]


def test_best_fit_picks_the_tightest_hole():
    pools = {s: MemoryPool(1024, align=1, strategy=s) for s in ("first-fit", "best-fit")}
    got = {}
    for strategy, pool in pools.items():
        big, sep1, small, sep2 = (pool.alloc(n) for n in (300, 10, 40, 10))
        pool.free(big)    # hole of 300 at 0
        pool.free(small)  # hole of 40 at 310
        got[strategy] = pool.alloc(32).addr
    assert got == {"first-fit": 0, "best-fit": 310}


def test_statistics():
    pool = MemoryPool(1000, align=128)
    a = pool.alloc(150)
    b = pool.alloc(250)
    pool.free(a)
    pool.alloc(50)
    s = pool.stats()
    assert s.total == 1000 and s.in_use == 300 and s.peak_in_use == 400
    assert s.live_allocs == 2 and s.total_allocs == 3
    # b sits at 256; free: [50, 256) and [506, 1000)
    assert b.addr == 256 and pool.free_blocks == [(50, 256), (506, 1000)]
    assert s.total_free == 700 and s.largest_free == 494 and s.free_blocks == 2
    assert s.fragmentation == pytest.approx(1 - 494 / 700)
    assert s.as_dict()["peak_in_use"] == 400 and b in pool


def test_reset_forgets_everything():
    pool = MemoryPool(512)
    a = pool.alloc(100)
    pool.reset()
    assert pool.free_blocks == [(0, 512)] and pool.in_use == 0 and pool.peak_in_use == 0
    with pytest.raises(PoolError, match="no block"):
        pool.free(a)


def test_reserve_claims_an_exact_range_and_names_the_clash():
    pool = MemoryPool(1024, align=64)
    r = pool.reserve(100, 28, name="weights")
    assert (r.addr, r.size) == (100, 28)
    assert pool.alloc(64).addr == 0 and pool.alloc(64).addr == 128
    with pytest.raises(PoolError,
                       match=r"reserve .x. at \[0x70, 0x90\).*weights at \[0x64, 0x80\)"):
        pool.reserve(0x70, 0x20, name="x")
    with pytest.raises(PoolError, match="outside the DRAM range"):
        pool.reserve(1000, 100)


def test_out_of_memory_message_gives_the_picture_and_a_hint():
    pool = MemoryPool(1024, align=64, label="npu-tiny DRAM")
    blocks = [pool.alloc(64) for _ in range(16)]
    for blk in blocks[::2]:
        pool.free(blk)
    with pytest.raises(OutOfMemoryError) as e:
        pool.alloc(128, name="A")
    msg = str(e.value)
    assert "cannot allocate 128 B 'A'" in msg and "npu-tiny DRAM" in msg
    assert "largest free block 64 B, 512 B free in 8 blocks of 1024 B" in msg
    assert "fragmentation 0.88" in msg
    with pytest.raises(OutOfMemoryError, match="more dram-mb"):
        pool.alloc(4096)
    assert isinstance(e.value, DeviceError) and isinstance(e.value, MemoryError)


def test_double_free_unknown_address_and_interior_address_are_errors():
    pool = MemoryPool(1024)
    a = pool.alloc(100, name="a")
    pool.free(a)
    with pytest.raises(PoolError, match="double free of block 'a' at 0x0: it was already freed$"):
        pool.free(a)
    b = pool.alloc(10, name="b")  # reuses address 0
    with pytest.raises(PoolError, match="double free .* now belongs to block 'b'"):
        pool.free(a)  # the stale handle must not free b
    assert b in pool
    with pytest.raises(PoolError, match="cannot free 0x4: it is inside block 'b' at 0x0"):
        pool.free(4)
    with pytest.raises(PoolError, match="cannot free 0x200: no block"):
        pool.free(0x200)


@pytest.mark.parametrize("kwargs, match", [
    (dict(nbytes=0), "positive integer byte count; got 0"),
    (dict(nbytes=-3), "got -3"),
    (dict(nbytes=2.5), "got 2.5"),
    (dict(nbytes=8, align=48), "power of two >= 1; got 48"),
    (dict(nbytes=8, align=0), "got 0"),
])
def test_bad_requests(kwargs, match):
    with pytest.raises(PoolError, match=match):
        MemoryPool(1024).alloc(**kwargs)


def test_bad_pool():
    with pytest.raises(PoolError, match="unknown pool strategy 'worst-fit'; known: first-fit"):
        MemoryPool(64, strategy="worst-fit")
    with pytest.raises(PoolError, match="size > 0"):
        MemoryPool(0)


def test_allocation_repr_hides_serial():
    assert repr(Allocation(64, 8, "x", serial=7)) == "Allocation(addr=64, size=8, name='x')"
