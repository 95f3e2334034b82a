"""The RTL's copies of isa.semantics' fixed-point constants (exp polynomial, Newton seeds) and of
isa.timing's extra stages of vexp/vrecip/vrsqrt are the spec's: a change on one side fails here
before any co-simulation runs."""

import re

from isa import semantics, timing
from rtl_tests.runner import RTL

LANE = (RTL / "vector_lane.v").read_text()
UNIT = (RTL / "vector_unit.v").read_text()


def _param(name: str) -> int:
    m = re.search(rf"\b{name}\s*=\s*(-?)64'sd(\d+)", LANE)
    assert m, f"rtl/vector_lane.v has no localparam {name}"
    return -int(m.group(2)) if m.group(1) else int(m.group(2))


def test_lane_constants_are_the_semantics_constants():
    assert _param("LOG2E_Q30") == semantics.LOG2E_Q30
    assert [_param(f"EXP_C{i}") for i in (4, 3, 2, 1, 0)] == list(semantics.EXP_POLY_Q30)
    assert (_param("RECIP_A"), _param("RECIP_B")) == semantics.RECIP_SEED_Q30
    assert ((_param("RSQRT_A0"), _param("RSQRT_B0")),
            (_param("RSQRT_A1"), _param("RSQRT_B1"))) == semantics.RSQRT_SEED_Q30
    # the Newton loops and the Q20 exponent the functions hard-code
    assert LANE.count("for (k = 0; k < 3; k = k + 1)") == 2
    assert semantics.RECIP_NEWTON_STEPS == semantics.RSQRT_NEWTON_STEPS == 3
    assert semantics.EXP_T_FRAC == 20 and semantics.EXP_X_FLOOR == 32


def test_unit_extra_stages_are_the_timing_rules():
    m = re.search(r"nl_stages = op == OP_VEXP \? 4'd(\d+) : op == OP_VRECIP \? 4'd(\d+) : "
                  r"4'd(\d+);", UNIT)
    assert m, "rtl/vector_unit.v: nl_stages not found"
    assert tuple(int(v) for v in m.groups()) == (
        timing.EXP_EXTRA_STAGES, timing.RECIP_EXTRA_STAGES, timing.RSQRT_EXTRA_STAGES)
