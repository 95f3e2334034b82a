"""The topology reader: SCALE-Sim's conv and GEMM formats with their quirks."""

import pytest

from npusim.scalesim import ScaleSimError, read_topology

HEADER = "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, " \
         "Num Filter, Strides,\n"


def test_resnet18_as_scalesim_reads_it(shared):
    t = read_topology(shared / "topologies" / "conv_nets" / "Resnet18.csv")
    assert len(t.layers) == 21 and t.name == "Resnet18"
    conv1, fc = t.layers[0], t.layers[-1]
    # no padding, ofmap = ceil((H - R + S) / S): 110, one more than a valid 7x7/2 conv's 109
    assert (conv1.ofmap_h, conv1.ofmap_w, conv1.m, conv1.k, conv1.n) == (110, 110, 12100, 147, 64)
    assert (fc.m, fc.k, fc.n) == (1, 512, 1000)  # FC as a 1x1 conv of a 1x1 ifmap


def test_spaces_blank_lines_and_missing_trailing_comma(make_csv):
    t = read_topology(make_csv(HEADER + "\n  a ,  8 , 8 , 3, 3, 4, 5, 1 ,\n\nb,8,8,1,1,4,5,2"))
    assert [(x.name, x.ifmap_h, x.channels, x.filters, x.stride_h) for x in t.layers] == \
        [("a", 8, 4, 5, 1), ("b", 8, 4, 5, 2)]
    assert t.notes == ()


def test_sparsity_column_and_extra_columns(make_csv):
    # SCALE-Sim 3.0: one stride for both directions; the next column is a sparsity ratio
    t = read_topology(make_csv(HEADER + "a,8,9,3,3,4,5,2,1:1,\nb,8,8,3,3,4,5,1,2:4,\n"
                                         "c,8,8,3,3,4,5,1,1:1,x,\n"))
    a, b, c = t.layers
    assert (a.stride_h, a.stride_w, a.ofmap_h, a.ofmap_w) == (2, 2, 4, 4)
    assert len(t.notes) == 2
    assert "sparsity ratios" in t.notes[0] and "not modelled, run dense, on line(s) 3" in t.notes[0]
    assert "ignored on line(s) 4" in t.notes[1]


def test_dp_in_a_name_is_one_layer_per_channel(make_csv):
    t = read_topology(make_csv(HEADER + "Conv_DP,8,8,3,3,3,1,1,\n"))
    assert [(x.name, x.channels, x.filters) for x in t.layers] == \
        [(f"Conv_DPChannel_{i}", 1, 1) for i in range(3)]


def test_gemm_format(shared):
    t = read_topology(shared / "topologies" / "GEMM_mnk" / "test_mnk_input.csv", "gemm")
    (g,) = t.layers
    assert (g.name, g.kind, g.m, g.n, g.k, g.macs) == ("Test 1", "gemm", 256, 128, 256,
                                                      256 * 128 * 256)


@pytest.mark.parametrize("text, fmt, words", [
    ("Layer, M, N, K,\nx, 4, 4, 4,\n", "conv", "4 fields; the conv format needs 8 "),
    ("Layer, M, N, K,\nx, 4, 4, 4,\n", "conv", "a M,N,K file needs -i gemm"),
    (HEADER + "a,8,8,3,3,4,five,1,\n", "conv", ":2: Num Filter = 'five' is not an integer"),
    (HEADER + "a,2,8,3,3,4,5,1,\n", "conv", "filter 3x3 is larger than the IFMAP 2x8"),
    (HEADER + "a,8,8,3,3,4,0,1,\n", "conv", "Num Filter = 0 must be >= 1"),
    ("Layer, M, N, K,\nx, 4, 4,\n", "gemm", "the gemm format needs 4 (Layer name, M, N, K)"),
    (HEADER, "conv", "no layers after the header line"),
])
def test_bad_rows_are_one_line_naming_file_line_and_column(make_csv, text, fmt, words):
    with pytest.raises(ScaleSimError) as e:
        read_topology(make_csv(text), fmt)
    assert words in str(e.value) and "\n" not in str(e.value)


def test_unknown_format_and_missing_file(make_csv, tmp_path):
    with pytest.raises(ScaleSimError, match="use one of conv, gemm"):
        read_topology(make_csv(HEADER), "is")
    with pytest.raises(ScaleSimError, match="no such file"):
        read_topology(tmp_path / "none.csv")
