"""The encoding covers the largest Target: every Target-bounded field and buffer address fits."""

import pytest

from isa.checks import TARGET_LIMITS, target_units
from isa.spec import load_spec
from isa.target import Target, get_target_kind

SPEC = load_spec()
BUFFERS = SPEC.enums["buf"].values


def largest(dtype: str) -> Target:
    """Every npu attribute at the top of its legal range (the widest machine one can declare)."""
    attrs = {a.key: a.max for a in get_target_kind("npu").attrs if a.max is not None}
    attrs["array"] = (attrs["array"], attrs["array"])
    return Target("npu", **attrs, dtype=dtype)


TARGETS = [Target("npu-server"), largest("int8"), largest("fp16")]


@pytest.mark.parametrize("target", TARGETS, ids=["npu-server", "max-int8", "max-fp16"])
def test_every_target_limit_fits_its_field(target):
    assert target.array_rows in (32, 256) and target.num_cores >= 4
    for ins in SPEC.instructions:
        for f in ins.fields:
            lo, hi = f.legal
            if f.target_max == "unit":
                assert set(target_units(target)) <= set(SPEC.enums["unit"].values), ins.mnemonic
            elif f.target_max:
                t_lo, t_hi = TARGET_LIMITS[f.target_max](target)
                assert lo <= t_lo and t_hi <= hi, (ins.mnemonic, f.name, (t_lo, t_hi), (lo, hi))
            if f.buffer:  # a fixed buffer, or any buffer the selector field may name
                names = [f.buffer] if f.buffer in BUFFERS else list(BUFFERS)
                for buf in names:
                    last = target.derived.buffer_elems[buf] - 1
                    assert last <= hi, (ins.mnemonic, f.name, buf, last, hi)


def test_the_largest_target_really_is_at_the_attribute_limits():
    t = largest("int8")
    assert (t.dma_engines, t.semaphores, t.dram_mb, t.ibuf_kb) == (8, 32, 4096, 8192)
    assert (t.array_rows, t.array_cols, t.abuf_kb) == (256, 256, 32768)
    # ISA 1.1's 23-bit element addresses: 8 Mi elements of every buffer (int32 ones in abuf)
    assert t.derived.buffer_elems == {"ibuf": 1 << 23, "wbuf": 1 << 23, "abuf": 1 << 23,
                                      "obuf": 1 << 23}
    assert t.derived.dram_bytes == 1 << 32
