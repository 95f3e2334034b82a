"""`npusim scalesim` end to end: the config's Target, real programs per layer, SCALE-Sim's
report columns with exact numbers on small layers, and the CLI's outputs and error lines."""

import json
from dataclasses import replace
from math import ceil

import pytest

from npusim.cli.main import main
from npusim.scalesim import (ScaleSimError, config_target, read_config, read_topology,
                             report_json, run, write_reports)
from npusim.scalesim.metrics import BANDWIDTH_COLUMNS, COMPUTE_COLUMNS, OUR_COMPUTE
from npusim.scalesim.target import calc_note

COMPUTE_HEADER = ("LayerID, Total Cycles (incl. prefetch), Total Cycles, Stall Cycles, "
                  "Overall Util %, Mapping Efficiency %, Compute Util %,")
BANDWIDTH_HEADER = ("LayerID, Avg IFMAP SRAM BW, Avg FILTER SRAM BW, Avg OFMAP SRAM BW, "
                    "Avg IFMAP DRAM BW, Avg FILTER DRAM BW, Avg OFMAP DRAM BW,")


def scalesim_ws(m, n, k, rows, cols):
    """SCALE-Sim 3.0's weight-stationary compute cycles (its Total Cycles with ideal memory)."""
    return ceil(k / rows) * ceil(n / cols) * (2 * rows + cols + m - 2) - 1


def measured(shared, run_name):
    lines = (shared / "measured" / run_name / "COMPUTE_REPORT.csv").read_text().splitlines()
    return [[v.strip() for v in line.split(",")] for line in lines[1:]]


def test_the_target_comes_from_the_config(make_cfg):
    t = config_target(read_config(make_cfg(rows=8, cols=16)))
    assert (t.array_rows, t.array_cols) == (8, 16)
    assert (t.ibuf_kb, t.wbuf_kb, t.obuf_kb, t.abuf_kb) == (64, 64, 64, 256)
    assert (t.dram_bw, t.dram_latency) == (1024, 0)  # CALC: the memory never stalls
    assert t.vector_lanes == 512  # the npu kind's widest: SCALE-Sim has no epilogue
    u = config_target(read_config(make_cfg(mode="USER", bw=4)), "-dma-engines=1")
    assert (u.dram_bw, u.dma_engines) == (4, 1)


def test_calc_buffers_hold_one_scalesim_fold_of_the_largest_layer(shared, make_cfg):
    """SCALE-Sim's compute cycles never read its SRAM sizes: with CALC each buffer holds what
    one of its folds streams, double-buffered, rounded up to a power of two KiB (+16 KiB):
    ResNet-18's stem as a 12100 x 147 im2col matrix (3.4 MB: 4096 KiB), Conv5's 4608 x 32
    weights of one column block (288 KiB: 512), the stem's 12100 x 32 int32 partial sums (3.0
    MB: 4096) and int8 outputs (756 KiB: 1024). USER keeps the config's 64 KiB SRAMs."""
    cfg = read_config(shared / "configs" / "r18_ws_32x32.cfg")
    layers = read_topology(shared / "topologies" / "conv_nets" / "Resnet18.csv").layers
    t = config_target(cfg, "", layers)
    assert (t.ibuf_kb, t.wbuf_kb, t.abuf_kb, t.obuf_kb) == (4096, 512, 4096, 1024)
    u = config_target(read_config(make_cfg(mode="USER")), "", layers)
    assert (u.ibuf_kb, u.wbuf_kb, u.abuf_kb, u.obuf_kb) == (64, 64, 256, 64)
    # a layer needing no more than the config has keeps the config's sizes, and no note
    small = config_target(cfg, "", layers[-1:])  # FC: 512 inputs, 512 x 32 weights
    assert (small.ibuf_kb, small.wbuf_kb, small.abuf_kb, small.obuf_kb) == (64, 64, 256, 64)
    assert calc_note(cfg, small) is None
    note = calc_note(cfg, t)
    assert "ibuf 4096, wbuf 512, obuf 1024, abuf 4096 KiB" in note
    assert "-ibuf-kb=64 -wbuf-kb=64 -obuf-kb=64 -abuf-kb=256" in note
    mine = config_target(cfg, "-ibuf-kb=64 -wbuf-kb=64 -obuf-kb=64 -abuf-kb=256", layers)
    assert calc_note(cfg, mine) is None and mine.ibuf_kb == 64


def test_an_array_we_cannot_build_names_the_config_key(make_cfg):
    with pytest.raises(ScaleSimError) as e:
        config_target(read_config(make_cfg(rows=512, cols=512)))
    msg = str(e.value)
    assert "ArrayHeight x ArrayWidth = 512x512" in msg and "rows 1..256" in msg
    assert "\n" not in msg


def test_google_cfg_is_a_256x256_target_with_its_sram_sizes(shared):
    """SCALE-Sim's TPU: ISA 1.1's 9-bit array counts and 23-bit SRAM addresses hold it."""
    t = config_target(read_config(shared / "configs" / "google.cfg"))
    assert (t.array_rows, t.array_cols, t.dataflow) == (256, 256, "os")
    assert (t.ibuf_kb, t.wbuf_kb, t.obuf_kb, t.abuf_kb) == (6144, 6144, 2048, 4 * 2048)
    assert (t.dram_bw, t.derived.buffer_elems["ibuf"]) == (10, 6 * 1024 * 1024)


def scalesim_os(m, n, k, rows, cols):
    """SCALE-Sim 3.0's output-stationary compute cycles (its Total minus Stall Cycles)."""
    return ceil(m / rows) * ceil(n / cols) * (k + rows + cols - 2) - 1


def test_google_cfg_layer_exact_cycles_and_scalesim_closed_form(shared):
    """Inc5b_3x3 (7x7x192 -> 384, 3x3: M = 25, K = 1728) on the 256x256 os array with ideal
    memory: 2 column folds of 25 rows streaming the whole window, K + R + C - 1 each."""
    cfg = replace(read_config(shared / "configs" / "google.cfg"), bandwidth_mode="CALC")
    (layer,) = run(cfg, read_topology(shared / "topologies" / "conv_nets" / "test.csv")).layers
    c = {**layer.rows["compute"], **layer.rows["ours_compute"]}
    assert c["Compute Cycles"] == 2 * (1728 + 256 + 256 - 1) == 4478
    assert scalesim_os(25, 384, 1728, 256, 256) == 4475  # ours: the write-back cycle per fold
    assert c["Matrix Instructions"] == 2 and c["MACs"] == 25 * 384 * 1728
    assert c["Mapping Efficiency %"] == pytest.approx(100 * 25 * 384 / (2 * 256 * 256))


def test_google_cfg_folds_of_256_rows_take_a_65536_word_accumulator_tile(shared, make_csv):
    """1024 rows on the 256x256 os array with ideal memory: 4 folds of K + R + C - 1, as
    SCALE-Sim's 4 (plus our write-back cycle each). A fold's 256 x 256 accumulator tile is
    65,536 words, one past what ISA 1.0's 16-bit vector len reached (5 tiles of 255 rows
    then); the 512-lane vector unit keeps its epilogue from splitting the folds further."""
    cfg = replace(read_config(shared / "configs" / "google.cfg"), bandwidth_mode="CALC")
    topo = read_topology(make_csv("Layer,M,N,K,\nG,1024,256,64,\n"), "gemm")
    result = run(cfg, topo)
    c = result.layers[0].rows["ours_compute"]
    assert result.target.vector_lanes == 512
    assert (c["Compute Cycles"], c["Matrix Instructions"]) == (4 * (64 + 511), 4)
    assert scalesim_os(1024, 256, 64, 256, 256) == 4 * (64 + 510) - 1


def test_small_conv_exact_cycles_and_scalesim_within_2pct(shared, tmp_path):
    cfg = read_config(shared / "configs" / "scale.cfg")
    topo = read_topology(shared / "topologies" / "conv_nets" / "test.csv")
    result = run(cfg, topo)
    (layer,) = result.layers
    c = {**layer.rows["compute"], **layer.rows["ours_compute"]}
    # Inc5b_3x3: 7x7x192 -> 384, 3x3: M = 25 pixels in one tile; per kernel tap 6 passes of
    # depth 32, 12 column blocks: 648 passes of k + m + R + C - 1 = 32 + 25 + 63 cycles
    assert c["Compute Cycles"] == 648 * (32 + 25 + 63) == 77760
    ref = scalesim_ws(25, 384, 1728, 32, 32)
    assert ref == 77111 and abs(c["Compute Cycles"] / ref - 1) < 0.02
    # the array's span: its compute plus the cycles it waited in between (a few per conv)
    assert c["Total Cycles"] == 77760 + c["Stall Cycles"] and 0 < c["Stall Cycles"] < 1000
    assert c["Mapping Efficiency %"] == 100.0
    span = c["Total Cycles"]
    assert c["Overall Util %"] == pytest.approx(100 * 25 * 384 * 1728 / (span * 1024))
    assert c["Compute Util %"] == pytest.approx(100 * 25 / 120)
    assert c["Total Cycles (incl. prefetch)"] > c["Total Cycles"]  # + first loads, last stores
    ours = layer.rows["ours_compute"]
    assert ours["Layer"] == "Inc5b_3x3" and ours["MACs"] == 25 * 384 * 1728
    assert ours["Matrix Instructions"] >= 12 and ours["Energy uJ"] > 0
    bw = layer.rows["bandwidth"]
    # the array reads each streamed input element once per pass: m x k per pass
    assert bw["Avg IFMAP SRAM BW"] == pytest.approx(648 * 25 * 32 / span)
    assert bw["Avg FILTER SRAM BW"] == pytest.approx(648 * 32 * 32 / span)


def test_gemm_matches_scalesims_measured_cycles(shared):
    cfg = read_config(shared / "configs" / "gemm_ws_32x32.cfg")
    topo = read_topology(shared / "topologies" / "GEMM_mnk" / "test_mnk_input.csv", "gemm")
    c = run(cfg, topo).layers[0].rows["ours_compute"]
    theirs = int(measured(shared, "gemm_ws_32x32")[0][2])
    assert theirs == scalesim_ws(256, 128, 256, 32, 32) == 11199
    # 4 tiles of m = 256 rows, k = n = 32: (32 + 256 + 63) cycles for 8 x 4 passes
    assert c["Compute Cycles"] == 32 * (32 + 256 + 63) == 11232
    assert abs(c["Compute Cycles"] / theirs - 1) < 0.02


def test_google_cfg_runs_resnet18_whole(shared):
    """Every ResNet-18 layer at full size on the 256x256 TPU as google.cfg says (os, 10
    B/cycle), the stride-2 1x1 convs too (SCALE-Sim's extra output row, all padding, once
    made a tile with no input rows to load): no layer's array cycles beat SCALE-Sim's os
    closed form (a fold costs us its K + R + C - 1 or more), and none of its totals beats its
    DRAM bytes at 10 B/cycle."""
    config = read_config(shared / "configs" / "google.cfg")
    topo = read_topology(shared / "topologies" / "conv_nets" / "Resnet18.csv")
    result = run(config, topo)
    assert len(result.layers) == 21
    for r in result.layers:
        x, c = r.layer, {**r.rows["compute"], **r.rows["ours_compute"]}
        assert c["Compute Cycles"] >= scalesim_os(x.m, x.n, x.k, 256, 256), x.name
        assert c["Total Cycles (incl. prefetch)"] >= c["DRAM Bytes"] / 10, x.name
        assert c["MACs"] == x.m * x.n * x.k


def test_finite_bandwidth_stalls_follow_the_bandwidth(make_cfg, make_csv):
    topo = read_topology(make_csv("Layer, M, N, K,\ng, 64, 64, 256,\n"), "gemm")
    def rows(result):
        return {**result.layers[0].rows["compute"], **result.layers[0].rows["ours_compute"]}
    ideal = rows(run(read_config(make_cfg(name="calc")), topo))
    rows = [rows(run(read_config(make_cfg(name=f"b{bw}", mode="USER", bw=bw)), topo))
            for bw in (64, 16, 4, 1)]
    # each Target gets its own program (the compiler tiles for its bandwidth): the array's
    # cycles never beat the ideal memory's, and the stalls and the total grow as it narrows
    assert all(c["Compute Cycles"] >= ideal["Compute Cycles"] for c in rows)
    stalls = [c["Stall Cycles"] for c in rows]
    totals = [c["Total Cycles (incl. prefetch)"] for c in rows]
    assert ideal["Stall Cycles"] <= stalls[0] and stalls == sorted(stalls)
    assert ideal["Total Cycles (incl. prefetch)"] < totals[0] and totals == sorted(totals)
    # at 1 B/cycle the layer cannot beat its DRAM bytes (64x256 + 256x64 + 64x64 at least)
    assert totals[-1] >= 64 * 256 + 256 * 64 + 64 * 64


def test_reports_have_scalesims_columns_then_ours(shared, tmp_path):
    cfg = read_config(shared / "configs" / "gemm_ws_32x32.cfg")
    topo = read_topology(shared / "topologies" / "GEMM_mnk" / "test_mnk_input.csv", "gemm")
    result = run(cfg, topo)
    folder = write_reports(result, tmp_path)
    assert folder == tmp_path / "gemm_ws_32x32"
    assert sorted(p.name for p in folder.iterdir()) == ["BANDWIDTH_REPORT.csv",
                                                        "COMPUTE_REPORT.csv"]
    compute = (folder / "COMPUTE_REPORT.csv").read_text().splitlines()
    assert compute[0].startswith(COMPUTE_HEADER) and compute[0].endswith(",")
    first = compute[1].split(", ")
    # with the prefetch: the first loads and the last epilogue and store (the npu kind's widest
    # vector unit, 512 lanes: npusim/scalesim/target.py; 11,625 with 64, 12,393 with 16,
    # measured before vrequant added the bias: 11,401 then)
    assert first[:2] == ["0", "11379"] and first[7:9] == ["Test 1", "11232"]
    assert int(first[2]) == 11232 + int(first[3])  # Total = compute + stall, as 3.0 has it
    band = (folder / "BANDWIDTH_REPORT.csv").read_text().splitlines()
    assert band[0].startswith(BANDWIDTH_HEADER)
    # SCALE-Sim's own header, split as its readers split it, is a prefix of ours
    theirs = (shared / "measured" / "gemm_ws_32x32" / "COMPUTE_REPORT.csv").read_text()
    assert compute[0].startswith(theirs.splitlines()[0].rstrip(", "))
    j = report_json(result)
    assert j["compute_report"][0]["Compute Cycles"] == 11232
    assert list(j["compute_report"][0]) == list(COMPUTE_COLUMNS + OUR_COMPUTE)
    assert list(j["bandwidth_report"][0])[:7] == list(BANDWIDTH_COLUMNS)
    assert j["total_cycles"] == 11379 and j["compute_cycles"] == 11232


def test_cli_writes_reports_and_json(shared, tmp_path, capsys):
    args = ["scalesim", "-c", str(shared / "configs" / "gemm_ws_32x32.cfg"), "-t",
            str(shared / "topologies" / "GEMM_mnk" / "test_mnk_input.csv"), "-i", "gemm",
            "-p", str(tmp_path)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Test 1" in out and "11232" in out and "COMPUTE_REPORT.csv" in out
    assert main(args + ["--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert j["compute_report"][0]["Compute Cycles"] == 11232
    assert j["reports"] == str(tmp_path / "gemm_ws_32x32")


@pytest.mark.parametrize("change, words", [
    (("-c", "missing.cfg"), "no such file"),
    (("-i", "conv"), "a M,N,K file needs -i gemm"),
])
def test_cli_errors_are_one_line(shared, tmp_path, capsys, change, words):
    args = {"-c": str(shared / "configs" / "gemm_ws_32x32.cfg"),
            "-t": str(shared / "topologies" / "GEMM_mnk" / "test_mnk_input.csv"),
            "-i": "gemm", "-p": str(tmp_path)}
    args[change[0]] = str(tmp_path / change[1]) if change[0] == "-c" else change[1]
    assert main(["scalesim", *[x for kv in args.items() for x in kv]]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("npusim: error: ") and words in err[0]


def scalesim_os(m, n, k, rows, cols):
    """SCALE-Sim 3.0's output-stationary compute cycles."""
    return ceil(m / rows) * ceil(n / cols) * (k + rows + cols - 2) - 1


def test_output_stationary_gemm_and_conv_exact_and_within_2pct(shared):
    cfg = read_config(shared / "configs" / "gemm_os_32x32.cfg")
    assert config_target(cfg).dataflow == "os"
    topo = read_topology(shared / "topologies" / "GEMM_mnk" / "test_mnk_input.csv", "gemm")
    c = run(cfg, topo).layers[0].rows["ours_compute"]
    theirs = int(measured(shared, "gemm_os_32x32")[0][2])
    assert theirs == scalesim_os(256, 128, 256, 32, 32) == 10175
    # 8 x 4 folds of 32 output rows x 32 columns, each k + R + C - 1 = 256 + 63 cycles
    assert c["Compute Cycles"] == 32 * (256 + 63) == 10208
    assert abs(c["Compute Cycles"] / theirs - 1) < 0.02
    conv = read_config(shared / "configs" / "r18_os_32x32.cfg")
    topo = read_topology(shared / "topologies" / "conv_nets" / "test.csv")
    r = run(conv, topo).layers[0].rows
    # Inc5b_3x3: 25 pixels = 1 fold of R rows per 32 filters; the window 3*3*192 streams whole
    assert r["ours_compute"]["Compute Cycles"] == 12 * (1728 + 63) == 21492
    assert abs(21492 / scalesim_os(25, 384, 1728, 32, 32) - 1) < 0.002
    assert r["compute"]["Mapping Efficiency %"] == pytest.approx(100 * 25 / 32)


def test_gemm_lowering_runs_scalesims_operand_matrices(shared):
    cfg = read_config(shared / "configs" / "scale.cfg")
    topo = read_topology(shared / "topologies" / "conv_nets" / "test.csv")
    r = run(cfg, topo, lowering="gemm").layers[0].rows["ours_compute"]
    # the M x K = 25 x 1728 operand matrix: ceil(1728 / 32) = 54 passes per column block,
    # as SCALE-Sim folds it (the conv lowering makes 9 taps x 6 channel blocks: also 54)
    assert r["Compute Cycles"] == 54 * 12 * (32 + 25 + 63)
    with pytest.raises(ScaleSimError, match="lowering 'im2col': use one of conv, gemm"):
        run(cfg, topo, lowering="im2col")
