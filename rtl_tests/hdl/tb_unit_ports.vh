// The port list of every unit testbench top (tb_matrix, tb_matrix_unit, tb_dwconv, tb_vector,
// tb_dma): the unit's instruction port, which the cocotb driver (rtl_tests/tb/driver.py) and
// monitor drive and watch.
    input  wire         clk,
    input  wire         rst,
    input  wire         start,
    input  wire [127:0] instr,
    output wire         ready,
    output wire         busy,
    output wire         done,
    output wire         illegal
