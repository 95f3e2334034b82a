"""isa.checks: every target_max limit, buffer bounds and extents, cfg ownership and range."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import compiler.backends  # noqa: F401 - the cpu and gpu Target kinds come with it
from isa.checks import (TARGET_LIMITS, TargetCheckError, check_instruction, executing_unit,
                        target_name, target_units)
from isa.codec import instruction
from isa.errors import IsaError
from isa.spec import load_spec
from isa.target import Target

EDGE, TINY = Target.from_string("npu-edge"), Target.from_string("npu-tiny")


def fails(instr, target=EDGE, regs=None) -> TargetCheckError:
    with pytest.raises(TargetCheckError) as e:
        check_instruction(instr, target, regs)
    assert isinstance(e.value, IsaError)
    return e.value


def gemm(**kw):
    return instruction("gemm", **{"m": 1, "k": 1, "n": 1, **kw})


def test_every_target_max_in_the_spec_has_a_rule():
    names = {f.target_max for i in load_spec().instructions for f in i.fields if f.target_max}
    assert names <= set(TARGET_LIMITS) | {"unit"}


def test_target_names():
    assert target_name(EDGE) == "npu-edge"
    assert target_name(Target.from_string("npu-edge -num-cores=2")) == "npu-edge -num-cores=2"
    assert target_name(Target.from_string("npu -vector-lanes=8")) == "npu -vector-lanes=8"
    assert target_units(TINY) == ["matrix", "vector", "dma0"]


# google.cfg's TPU: ISA 1.1's 9-bit k, n, cout and 23-bit addresses reach it
GOOGLE = Target.from_string("npu -array=256x256 -ibuf-kb=6144 -wbuf-kb=6144 -abuf-kb=8192 "
                            "-obuf-kb=2048 -dataflow=os")


@pytest.mark.parametrize("target,k_max,n_max", [(TINY, 4, 4), (EDGE, 16, 16),
                                                (Target.from_string("npu -array=8x32"), 8, 32),
                                                (Target.from_string("npu -array=256x256"), 256,
                                                 256)])
def test_array_limits(target, k_max, n_max):
    check_instruction(gemm(k=k_max, n=n_max), target)
    e = fails(gemm(k=k_max + 1), target)
    assert (e.field, e.value) == ("k", k_max + 1)
    assert f"value {k_max + 1} out of range 1..{k_max} (array_rows of" in str(e)
    e = fails(instruction("conv", in_h=1, in_w=1, cin=1, cout=n_max + 1), target)
    assert e.field == "cout" and f"out of range 1..{n_max} (array_cols of" in str(e)


def test_dma_channel_unit_and_semaphore_limits():
    check_instruction(instruction("load", chan=1, rows=1, cols=1), EDGE)
    assert fails(instruction("load", chan=2, rows=1, cols=1)).field == "chan"
    check_instruction(instruction("signal", unit="dma1", sem=31), EDGE)
    e = fails(instruction("signal", unit="dma2", sem=0))
    assert str(e) == ("signal: field 'unit' value dma2 is not a unit of npu-edge "
                      "(units: matrix, vector, dma0, dma1; dma_engines=2)")
    assert fails(instruction("cfg", unit="dma1", reg="dma_planes", value=1), TINY).field == "unit"
    e = fails(instruction("wait", unit="vector", sem=8), TINY)
    assert str(e) == "wait: field 'sem' value 8 out of range 0..7 (semaphore of npu-tiny)"


def test_dram_address_limit():
    last = TINY.derived.dram_bytes - 1
    check_instruction(instruction("store", dram=last, rows=1, cols=1), TINY)
    e = fails(instruction("store", dram=last + 1, rows=1, cols=1), TINY)
    assert "value 0x100000 out of range 0x0..0xfffff (dram_addr of npu-tiny)" in str(e)


def test_dram_extent_of_a_transfer():
    size = TINY.derived.dram_bytes
    # 4 rows 256 bytes apart, 16 int8 elements each: the last byte is dram + 3*256 + 16
    check_instruction(instruction("store", dram=size - 784, rows=4, cols=16, stride=256), TINY)
    e = fails(instruction("store", dram=size - 783, rows=4, cols=16, stride=256), TINY)
    assert e.field == "dram" and "end past the 1048576 bytes of DRAM of npu-tiny" in str(e)
    # abuf elements are 4 bytes: 16 of them from the last 63 bytes do not fit
    e = fails(instruction("load", buf="abuf", dram=size - 63, rows=1, cols=16), TINY)
    assert "cols=16 x 4 B" in str(e)
    e = fails(instruction("load", dram=0, rows=1, cols=1), TINY,
              {"dma_planes": 2, "dma_plane_stride": size})
    assert "dma_planes=2" in str(e)


def test_buffer_start_address():
    e = fails(gemm(abuf=70000))
    assert str(e) == ("gemm: abuf address 70000 out of range 0..65535 for npu-edge "
                      "(field 'abuf')")
    # the buffer of a buf-selected field comes from its selector: obuf is 64 KiB on npu-edge
    e = fails(instruction("vcopy", dst_buf="obuf", dst=65536, len=1))
    assert (e.field, e.value) == ("dst", 65536) and "obuf address 65536" in str(e)
    check_instruction(instruction("vcopy", dst_buf="ibuf", dst=65536, len=1))


@pytest.mark.parametrize("instr,field,count", [
    (gemm(ibuf=4096 - 12, m=4, k=4), "ibuf", 16),
    (gemm(wbuf=4096 - 12, k=4, n=4), "wbuf", 16),
    (gemm(abuf=4096 - 12, m=4, n=4), "abuf", 16),
    (instruction("vadd", dst_buf="obuf", dst=4090, len=7), "dst", 7),
    (instruction("vadd", src0_buf="obuf", src0=4090, len=7), "src0", 7),
    (instruction("vmul", src1_buf="obuf", src1=4090, len=7), "src1", 7),
    (instruction("vrequant", src1_buf="abuf", src1=4090, len=1, channels=4), "src1", 8),
    (instruction("vbias", src1_buf="abuf", src1=4090, len=1, channels=7), "src1", 7),
    (instruction("vlut", src1_buf="wbuf", src1=4000, len=1), "src1", 256),
    (instruction("load", buf="ibuf", sram=4090, rows=1, cols=2, pad_top=1, pad_left=2),
     "sram", 8),
    (instruction("store", buf="obuf", sram=4090, rows=2, cols=4), "sram", 8),
    (instruction("vmaxpool", src0_buf="ibuf", src0=4090, in_h=2, in_w=2, channels=2),
     "src0", 8),
    (instruction("conv", ibuf=4090, in_h=2, in_w=2, cin=2, cout=1), "ibuf", 8),
])
def test_extent_past_the_buffer_end(instr, field, count):
    e = fails(instr, TINY)  # every npu-tiny buffer holds 4096 elements
    assert e.field == field and f"region of {count} elements" in str(e)
    assert "past" in str(e) and "npu-tiny" in str(e)


def test_a_256x256_target_with_6_mib_buffers_addresses_all_of_them():
    last = 6 * 1024 * 1024 - 1  # the last int8 element of a 6144 KiB ibuf
    check_instruction(gemm(ibuf=last, wbuf=last - 255, k=1, n=256), GOOGLE)
    check_instruction(instruction("load", buf="wbuf", sram=last, rows=1, cols=1), GOOGLE)
    check_instruction(instruction("conv", abuf=2 * 1024 * 1024 - 256, in_h=1, in_w=1, cin=1,
                                  cout=256), GOOGLE)
    e = fails(gemm(ibuf=last + 1), GOOGLE)
    assert (e.field, e.value) == ("ibuf", last + 1) and "out of range 0..6291455" in str(e)
    e = fails(instruction("conv", in_h=1, in_w=1, cin=1, cout=257), GOOGLE)
    assert e.field == "cout" and "out of range 1..256 (array_cols of" in str(e)


def test_extent_that_ends_exactly_at_the_buffer_end_fits():
    check_instruction(gemm(abuf=4096 - 16, m=4, n=4), TINY)
    check_instruction(instruction("vrequant", src1=4096 - 8, len=1, channels=4), TINY)
    check_instruction(instruction("load", sram=4096 - 12, rows=2, cols=4, pad_top=1), TINY)


def test_extents_follow_the_unit_registers():
    conv = instruction("conv", abuf=4096 - 36, in_h=8, in_w=8, cin=1, cout=1)
    check_instruction(conv, TINY, {"conv_kh": 3, "conv_kw": 3})  # 6x6 output
    e = fails(conv, TINY, {"conv_kh": 3, "conv_kw": 3, "conv_stride_h": 1,
                           "conv_pad_top": 1, "conv_pad_bottom": 1})
    assert e.field == "abuf" and "oh*ow*cout, oh=8 ow=6" in str(e)
    e = fails(instruction("conv", wbuf=4096 - 8, in_h=3, in_w=3, cin=1, cout=1), TINY,
              {"conv_kh": 3, "conv_kw": 3})
    assert e.field == "wbuf" and "kh*kw*cin*cout, kh=3 kw=3" in str(e)
    pool = instruction("vmaxpool", dst_buf="obuf", dst=4096 - 4, in_h=4, in_w=4, channels=1)
    check_instruction(pool, TINY, {"pool_kh": 2, "pool_kw": 2, "pool_stride_h": 2,
                                   "pool_stride_w": 2})
    assert "oh*ow*channels, oh=3 ow=3" in str(fails(pool, TINY, {"pool_kh": 2, "pool_kw": 2}))
    load = instruction("load", sram=4096 - 8, rows=2, cols=2)
    check_instruction(load, TINY)
    assert "dma_planes=3 * (rows+pads)*(cols+pads)" in str(fails(load, TINY, {"dma_planes": 3}))


def test_empty_conv_output():
    e = fails(instruction("conv", in_h=2, in_w=2, cin=1, cout=1), EDGE, {"conv_kh": 5})
    assert e.field == "in_h" and "output would be empty (-2x2)" in str(e)


def test_cfg_owner_and_range_without_a_target():
    check_instruction(instruction("cfg", unit="dma7", reg="dma_planes", value=4095))
    e = fails(instruction("cfg", unit="vector", reg="conv_kh", value=1), None)
    assert (e.field, e.value) == ("reg", "conv_kh")
    assert "belongs to the matrix unit, not vector; write it with unit=matrix" in str(e)
    e = fails(instruction("cfg", unit="matrix", reg="pool_kw", value=1), None)
    assert "write it with unit=vector" in str(e)
    e = fails(instruction("cfg", unit="dma0", reg="dma_planes", value=0), None)
    assert (e.field, e.value) == ("value", 0)
    assert str(e) == ("cfg: dma_planes value 0 out of range 1..4095 "
                      "(planes of a 3-D transfer (1 = 2-D))")
    # without a target the target limits are not applied
    check_instruction(gemm(k=511, abuf=(1 << 23) - 1))


def test_non_npu_target():
    assert "is a cpu target" in str(fails(gemm(), Target.from_string("cpu-host")))


def test_executing_unit():
    assert executing_unit(instruction("load", chan=3, rows=1, cols=1)) == "dma3"
    assert executing_unit(instruction("wait", unit="vector")) == "vector"
    assert executing_unit(gemm()) == "matrix"
    assert executing_unit(instruction("halt")) == "dispatch"


# check_instruction's fast path (per-entry tuples, isa.checks._passes) must pass exactly
# what the rules checked one by one pass: random instructions, registers and Targets
_SMALL = {"in_h": 12, "in_w": 12, "rows": 12, "cols": 40, "planes": 4, "len": 5000, "m": 40,
          "channels": 40, "cin": 40}
_TARGETS = [EDGE, TINY, GOOGLE, Target.from_string("npu-edge -dataflow=os"),
            Target.from_string("npu-edge -depthwise-mode=1")]


@st.composite
def _case(draw):
    spec = load_spec()
    target = draw(st.sampled_from(_TARGETS))
    entries = [i for i in spec.instructions if i.mnemonic != "cfg"]
    dma = [i for i in entries if i.cls == "dma"]
    entry = draw(st.one_of(st.sampled_from(entries), st.sampled_from(dma)))
    end = target.derived.dram_bytes
    fields = {}
    for f in entry.fields:
        if f.enum:
            fields[f.name] = draw(st.sampled_from(sorted(spec.enums[f.enum].names)))
            continue
        lo, hi = f.legal
        # mostly small values (so that some fit a Target), sometimes anything legal, and
        # DRAM addresses about the Target's DRAM end
        small = st.integers(lo, min(hi, max(lo, _SMALL.get(f.name, 70000))))
        near = [st.integers(max(lo, end - 4096), min(hi, end))] * 3 if f.name == "dram" else []
        fields[f.name] = draw(st.one_of(small, small, st.integers(lo, hi), *near))
    regs = draw(st.fixed_dictionaries({}, optional={
        "conv_kh": st.integers(1, 7), "conv_kw": st.integers(1, 7),
        "conv_stride_h": st.integers(1, 3), "conv_pad_top": st.integers(0, 3),
        "pool_kh": st.integers(1, 5), "pool_stride_w": st.integers(1, 3),
        "dma_planes": st.integers(1, 300), "dma_plane_stride": st.integers(0, 1 << 12)}))
    return instruction(entry.mnemonic, **fields), target, regs


@settings(max_examples=600, deadline=None)
@given(case=_case())
def test_the_fast_path_passes_exactly_what_the_rules_pass(case):
    from isa.checks import _check_each_rule, _passes
    instr, target, regs = case
    try:
        _check_each_rule(instr, target, regs)
        ok = True
    except TargetCheckError:
        ok = False
    assert _passes(instr, target, regs) == ok
