"""Random legal instruction streams either run (the same cycles with and without data) or stop
with a SimulationFault: never another exception, never a hang."""

import warnings

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from isa import encode_fields
from isa.spec import load_spec
from npusim.faults import SimulationFault
from npusim.simulate import simulate

SPEC = load_spec()
TARGETS = ["npu-tiny -num-cores=2", "npu-tiny -num-cores=2 -dtype=fp16", "npu-edge -num-cores=2"]


def small_values(f) -> st.SearchStrategy[int]:
    """Mostly small operands (so some programs run to the end), with the range ends mixed in."""
    if f.enum:
        return st.sampled_from(sorted(SPEC.enums[f.enum].values.values()))
    lo, hi = f.legal
    return st.one_of(st.sampled_from([lo, hi]), st.integers(lo, min(hi, max(lo, 64))))


@st.composite
def words(draw) -> int:
    ins = draw(st.sampled_from(SPEC.instructions))
    return encode_fields(ins.mnemonic, **{f.name: draw(small_values(f)) for f in ins.fields})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(words(), max_size=10), min_size=1, max_size=2),
       st.sampled_from(TARGETS))
def test_random_programs_run_or_fault(cores, target):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a numpy overflow or cast warning is a model bug too
        try:
            # the race check on addresses alone (stricter than with data): a program it
            # passes must run functionally too
            fast = simulate(cores, target, timing_only=True, max_cycles=200_000,
                            races="error")
        except SimulationFault as e:
            assert str(e)
            return
        try:
            full = simulate(cores, target, max_cycles=200_000)
        except SimulationFault as e:  # only data can fault where timing-only ran: vrequant
            assert "vrequant shift" in str(e), str(e)
            return
    assert full.cycles == fast.cycles and full.units == fast.units
