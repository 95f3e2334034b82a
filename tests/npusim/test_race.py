"""The race detector (npusim.race): racy hand-written programs stop with a RaceError naming both
instructions, the range and the missing ordering; correct programs and their timing are untouched."""

import warnings
from pathlib import Path

import numpy as np
import pytest

from isa import instruction as I
from isa.asm import assemble_file
from npusim.faults import InputError, RaceError, RaceWarning
from npusim.memory import Dram
from npusim.simulate import simulate

EXAMPLES = Path(__file__).parents[2] / "examples"
CORRECT = sorted(EXAMPLES.glob("*.s"))
RACY = sorted((EXAMPLES / "racy").glob("*.s"))


def race(path, **kw) -> RaceError:
    with pytest.raises(RaceError) as info:
        simulate(assemble_file(path), None, **kw)
    return info.value


def where(acc):
    return acc.core, acc.unit, acc.index, acc.instr.mnemonic, acc.cycle


# ---- the hand-written racy examples ---------------------------------------------------------

def test_a_gemm_without_a_wait_for_its_load_is_a_raw_race():
    e = race(EXAMPLES / "racy" / "missing_wait_raw.s")
    assert (e.kind, e.buffer, e.lo, e.hi) == ("RAW", "core0 ibuf", 0, 16)
    assert where(e.first) == (0, "dma0", 0, "load", 1)
    assert where(e.second) == (0, "matrix", 2, "gemm", 3)
    assert (e.core, e.unit, e.index, e.cycle) == (0, "matrix", 2, 3)  # located at the second
    assert e.missing == "no signal/wait from dma0 to matrix (nor a barrier) orders them"
    assert str(e) == (
        "core0.matrix [2] gemm ibuf[0x0], wbuf[0x0], abuf[0x0], m=4, k=4, n=4 (cycle 3): "
        "RAW race on core0 ibuf[0x0:0x10] (elements): it reads what core0.dma0 [0] load "
        "chan=0, sram=ibuf[0x0], dram=0x0, rows=4, cols=4, stride=4 (cycle 1) writes, and no "
        "signal/wait from dma0 to matrix (nor a barrier) orders them; hint: signal a semaphore "
        "on dma0 after [0] and wait on it on matrix before [2], or put a barrier between them")


def test_the_vector_unit_overwriting_what_a_store_reads_is_a_war_race():
    e = race(EXAMPLES / "racy" / "store_vs_vector_war.s")
    assert (e.kind, e.buffer, e.lo, e.hi) == ("WAR", "core0 obuf", 0, 16)
    assert where(e.first) == (0, "dma0", 6, "store", 27)
    assert where(e.second) == (0, "vector", 8, "vrelu", 44)
    assert e.missing == "no signal/wait from dma0 to vector (nor a barrier) orders them"
    assert "it writes what core0.dma0 [6] store chan=0, sram=obuf[0x0]" in str(e)


def test_two_dma_channels_loading_into_one_range_is_a_waw_race():
    e = race(EXAMPLES / "racy" / "two_loads_waw.s")
    assert (e.kind, e.buffer, e.lo, e.hi) == ("WAW", "core0 ibuf", 8, 16)
    assert where(e.first) == (0, "dma0", 0, "load", 1)
    assert where(e.second) == (0, "dma1", 1, "load", 2)
    assert e.missing == "no signal/wait from dma0 to dma1 (nor a barrier) orders them"


def test_a_cross_core_dram_hand_off_without_a_gbarrier_races():
    e = race(EXAMPLES / "racy" / "cross_core_no_gbarrier.s")
    # core 0's load reads P1 at cycle 52, before core 1's store writes it at 56
    assert (e.kind, e.buffer, e.lo, e.hi) == ("WAR", "DRAM", 0x40, 0x80)
    assert where(e.first) == (0, "dma0", 7, "load", 52)
    assert where(e.second) == (1, "dma0", 7, "store", 56)
    assert e.missing == "no gbarrier between core0 and core1 orders them"
    assert e.hint == "put a gbarrier after core0's [7] and before core1's [7]"
    assert "(bytes)" in str(e)


@pytest.mark.parametrize("path", RACY, ids=lambda p: p.name)
def test_warn_mode_lists_the_race_and_runs_on_with_the_same_timing(path):
    prog = assemble_file(path)
    first = race(path)
    with pytest.warns(RaceWarning) as caught:
        warned = simulate(prog, None, races="warn")
    quiet = simulate(prog, None, races="off")
    assert warned.races and str(warned.races[0]) == str(first)
    assert str(first) in [str(w.message) for w in caught]
    assert quiet.races == [] and quiet.cycles == warned.cycles
    assert warned.trace.equals(quiet.trace)


def test_timing_only_checks_only_when_asked():
    path = EXAMPLES / "racy" / "missing_wait_raw.s"
    simulate(assemble_file(path), None, timing_only=True)  # default: off (no data)
    e = race(path, timing_only=True, races="error")
    assert (e.kind, e.lo, e.hi) == ("RAW", 0, 16)


def test_an_unknown_mode_is_refused():
    with pytest.raises(InputError, match="races='on' is not a race-check mode; use one of "
                                         "'error', 'warn', 'off'"):
        simulate([I("halt")], "npu-tiny", races="on")


# ---- correct programs -----------------------------------------------------------------------

@pytest.mark.parametrize("path", CORRECT, ids=lambda p: p.name)
def test_every_correct_example_has_no_race_and_the_same_timing(path):
    prog = assemble_file(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checked = simulate(prog, None, races="warn")
    unchecked = simulate(prog, None, races="off")
    assert checked.races == []
    assert checked.cycles == unchecked.cycles and checked.units == unchecked.units
    assert checked.trace.equals(unchecked.trace)


def gemm_program(sync):
    return [I("load", chan=0, buf="ibuf", sram=0, dram=0, rows=4, cols=4, stride=4), *sync,
            I("gemm", ibuf=0, wbuf=0, abuf=0, m=4, k=4, n=4), I("halt")]


def test_a_barrier_orders_a_load_before_the_gemm():
    simulate(gemm_program([I("barrier")]), "npu-tiny")
    simulate(gemm_program([I("signal", unit="dma0", sem=0), I("wait", unit="matrix", sem=0)]),
             "npu-tiny")
    with pytest.raises(RaceError, match="RAW race on core0 ibuf"):
        simulate(gemm_program([I("nop")]), "npu-tiny")


def test_a_wait_is_ordered_after_the_signal_its_count_matches():
    # two signals from dma0 after two loads; matrix waits once: it is ordered after the
    # first load only, so a gemm reading the second load's wbuf races
    prog = [I("load", chan=0, buf="ibuf", sram=0, dram=0, rows=4, cols=4, stride=4),
            I("signal", unit="dma0", sem=0),
            I("load", chan=0, buf="wbuf", sram=0, dram=16, rows=4, cols=4, stride=4),
            I("signal", unit="dma0", sem=0),
            I("wait", unit="matrix", sem=0),
            I("gemm", ibuf=0, wbuf=0, abuf=0, m=4, k=4, n=4), I("halt")]
    with pytest.raises(RaceError) as info:
        simulate(prog, "npu-tiny")
    e = info.value
    assert (e.kind, e.buffer, e.first.index, e.second.index) == ("RAW", "core0 wbuf", 2, 5)
    simulate(prog[:5] + [I("wait", unit="matrix", sem=0)] + prog[5:], "npu-tiny")


def store(dram, cols=4, stride=8):
    return I("store", chan=0, buf="obuf", sram=0, dram=dram, rows=4, cols=cols, stride=stride)


def test_interleaved_dram_rows_of_two_cores_do_not_meet_but_overlapping_ones_race():
    # core 0 writes bytes 0..3 of each 8-byte row, core 1 bytes 4..7: the bounding ranges
    # overlap, the rows do not
    simulate([[store(0x100)], [store(0x104)]], "npu-tiny -num-cores=2")
    with pytest.raises(RaceError) as info:
        simulate([[store(0x100)], [store(0x102)]], "npu-tiny -num-cores=2")
    e = info.value
    assert (e.kind, e.buffer, e.lo, e.hi) == ("WAW", "DRAM", 0x102, 0x104)
    assert (e.first.core, e.second.core) == (0, 1)


def test_stores_of_the_same_bytes_to_one_span_count_as_one_write():
    target = "npu-tiny -num-cores=2"
    same = [[store(0x100), I("barrier"), I("load", chan=0, buf="ibuf", sram=0, dram=0x100,
                                              rows=4, cols=4, stride=8)], [store(0x100)]]
    simulate(same, target)  # both cores store the zeros of their obuf
    with pytest.raises(RaceError, match="WAW race on DRAM"):  # without data: addresses only
        simulate(same, target, timing_only=True, races="error")
    dram = Dram(1 << 16)
    dram.write(0, np.arange(16, dtype=np.int8))
    other = [[store(0x100)],
             [I("load", chan=0, buf="obuf", sram=0, dram=0, rows=4, cols=4, stride=4),
              I("barrier"), store(0x100)]]
    with pytest.raises(RaceError) as info:
        simulate(other, target, dram=dram)
    assert (info.value.kind, info.value.first.core, info.value.second.core) == ("WAW", 0, 1)


def test_warn_mode_issues_ten_warnings_and_lists_every_race():
    # twelve gemms, each reading ibuf while the one load may still be writing it
    prog = [I("load", chan=0, buf="ibuf", sram=0, dram=0, rows=4, cols=4, stride=4)]
    prog += [I("gemm", ibuf=0, wbuf=0, abuf=16 * i, m=4, k=4, n=4) for i in range(12)]
    with pytest.warns(RaceWarning) as caught:
        res = simulate(prog, "npu-tiny", races="warn")
    assert [e.second.index for e in res.races] == list(range(1, 13))
    assert {e.kind for e in res.races} == {"RAW"}
    assert len(caught) == 11
    assert str(caught[-1].message) == ("2 more races not shown (12 in all); SimResult.races "
                                       "lists every one")


def test_a_race_checked_run_takes_the_timing_only_cycles():
    """A wait served by a signal is seen by the detector in the put (Semaphore.on_grant), so
    the waiting unit wakes in the one event timing-only runs use: MobileNetV2 on npu-server
    took 288,194 cycles race-checked against 287,903 timing-only, when race-checked waits
    woke at the put and then slept their own cycle (another order of the cycle's events)."""
    from npusim import flow
    c = flow.compile("mobilenetv2", "npu-server", evaluate=None)
    checked = flow.simulate(c)  # functional, race check on (the default)
    assert not checked.sim.races
    assert checked.cycles == flow.simulate(c, timing_only=True).cycles == \
        flow.simulate(c, races="off").cycles
