"""Facts other modules once restated by hand are derived from the spec: register resets, the
unit list and unit classes, buffer names and element types; each keeps the value it had."""

import numpy as np
import pytest

from compiler.backends.npu import schedule
from isa.checks import UNIT_CLASS, core_units, reset_registers, target_units
from isa.errors import SpecError
from isa.spec import SPEC_PATH, load_spec
from isa.target import Target
from npusim.exec.state import BUFFERS, CoreState

SPEC = load_spec()


def test_register_resets_are_the_values_the_compiler_always_assumed():
    expected = {"conv_kh": 1, "conv_kw": 1, "conv_stride_h": 1, "conv_stride_w": 1,
                "conv_pad_top": 0, "conv_pad_left": 0, "conv_pad_bottom": 0,
                "conv_pad_right": 0, "conv_dilation_h": 1, "conv_dilation_w": 1,
                "pool_kh": 1, "pool_kw": 1, "pool_stride_h": 1, "pool_stride_w": 1,
                "pool_pad_top": 0, "pool_pad_left": 0, "pool_pad_bottom": 0,
                "pool_pad_right": 0, "dma_planes": 1, "dma_plane_stride": 0}
    assert reset_registers() == expected
    assert schedule.RESET == expected


def test_units_and_their_classes():
    assert UNIT_CLASS == {"matrix": "matrix", "vector": "vector",
                          **{f"dma{i}": "dma" for i in range(8)}}
    assert core_units(1) == ["matrix", "vector", "dma0"]
    assert core_units(3) == ["matrix", "vector", "dma0", "dma1", "dma2"]
    assert target_units(Target.create("npu-edge")) == core_units(2)


def test_buffers_and_their_element_types():
    assert BUFFERS == SPEC.buffer_names == ("ibuf", "wbuf", "abuf", "obuf")
    assert SPEC.dtypes == ("int8", "fp16")
    assert SPEC.elem_types("int8") == {"ibuf": "int8", "wbuf": "int8", "abuf": "int32",
                                       "obuf": "int8"}
    assert SPEC.elem_types("fp16") == {"ibuf": "float16", "wbuf": "float16",
                                       "abuf": "float32", "obuf": "float16"}
    for tag in ("npu-edge", "npu -dtype=fp16"):
        target = Target.create(tag)
        state = CoreState(target)
        assert {b: np.dtype(t) for b, t in SPEC.elem_types(target.dtype).items()} == state.dtypes
        assert {b: d.itemsize for b, d in state.dtypes.items()} == dict(
            target.derived.elem_bytes)
    with pytest.raises(SpecError, match="no datapath dtype 'bf16'.*known: int8, fp16"):
        SPEC.elem_types("bf16")


def test_a_spec_whose_buffers_table_misses_a_buffer_is_rejected(tmp_path):
    text = SPEC_PATH.read_text()
    line = next(s for s in text.splitlines() if s.startswith("obuf = { int8"))
    path = tmp_path / "npu_isa.toml"
    path.write_text(text.replace(line + "\n", ""))
    with pytest.raises(SpecError, match=r"\[buffers\] lists ibuf, wbuf, abuf; it must list"):
        load_spec(path)


def test_instruction_lookup_names_the_closest_mnemonic():
    assert SPEC.instruction("vrequant").timing == "vector_requant"
    with pytest.raises(SpecError, match="no instruction 'vreqant'.*did you mean 'vrequant'"):
        SPEC.instruction("vreqant")
