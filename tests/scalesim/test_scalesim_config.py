"""The SCALE-Sim config reader: every shipped config, its keys, and one line per mistake."""

import pytest

from npusim.scalesim import ScaleSimError, read_config


def test_shipped_configs_read_with_their_values(shared):
    c = read_config(shared / "configs" / "scale.cfg")
    assert (c.run_name, c.array_rows, c.array_cols) == ("scale_example_run_32x32_ws", 32, 32)
    assert (c.ifmap_sram_kb, c.filter_sram_kb, c.ofmap_sram_kb) == (64, 64, 64)
    assert (c.dataflow, c.bandwidth_mode, c.user_bandwidth) == ("ws", "CALC", None)
    assert c.offsets == (0, 10000000, 20000000)
    e = read_config(shared / "configs" / "eyeriss.cfg")
    assert (e.array_rows, e.array_cols, e.ifmap_sram_kb) == (12, 14, 36)
    g = read_config(shared / "configs" / "google.cfg")
    assert (g.dataflow, g.bandwidth_mode, g.user_bandwidth) == ("os", "USER", 10)
    for cfg in (shared / "configs").glob("*.cfg"):  # every key they use is a known one
        assert read_config(cfg).notes == ()


def test_unknown_keys_and_sections_get_one_note_each(make_cfg):
    c = read_config(make_cfg(extra="Frobnicate: 3\n\n[extras]\nfoo = 1\n"))
    assert len(c.notes) == 2
    assert "[run_presets] frobnicate is not a SCALE-Sim 3.0 key; ignored" in c.notes[0]
    assert "section [extras] is not a SCALE-Sim 3.0 section; ignored" in c.notes[1]


def test_settings_read_but_not_modelled_say_so(make_cfg):
    c = read_config(make_cfg(extra="\n[sparsity]\nSparsitySupport : true\n"))
    assert c.notes == (f"{c.source}: [sparsity] sparsitysupport = true is not modelled; run "
                       "as if false",)


def test_user_bandwidth_takes_the_first_value_like_scalesim(make_cfg):
    c = read_config(make_cfg(mode="USER", bw="8, 16"))
    assert c.user_bandwidth == 8 and c.bandwidths == (8, 16)
    assert "SCALE-Sim uses the first value, 8" in c.notes[0]


@pytest.mark.parametrize("kwargs, words", [
    ({"df": "is"}, "Dataflow = is (input stationary) is not modelled; use one of ws, os"),
    ({"df": "xs"}, "Dataflow = 'xs' is not a SCALE-Sim dataflow"),
    ({"mode": "MAX"}, "InterfaceBandwidth = 'MAX'; use CALC"),
    ({"rows": "big"}, "ArrayHeight = 'big' is not an integer"),
    ({"cols": 0}, "ArrayWidth = 0 must be >= 1"),
    ({"mode": "USER", "bw": "x"}, "Bandwidth = 'x' is not an integer"),
])
def test_bad_values_are_one_line_naming_key_and_value(make_cfg, kwargs, words):
    with pytest.raises(ScaleSimError) as e:
        read_config(make_cfg(**kwargs))
    assert words in str(e.value) and "\n" not in str(e.value)


def test_missing_file_and_missing_key(make_cfg, tmp_path):
    with pytest.raises(ScaleSimError, match="no such file"):
        read_config(tmp_path / "none.cfg")
    p = make_cfg()
    p.write_text(p.read_text().replace("ArrayHeight:    32\n", ""))
    with pytest.raises(ScaleSimError, match=r"\[architecture_presets\] has no arrayheight"):
        read_config(p)
