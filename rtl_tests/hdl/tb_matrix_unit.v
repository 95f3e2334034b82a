// Testbench top: matrix_unit (gemm, cfg and conv: the engine with the conv sequencer, as
// npu_core instantiates it) + the four buffers, sized by HDL parameters from the Target;
// WB = the Target's -weight-buffers.
`default_nettype none
module tb_matrix_unit #(
    parameter integer R = 4,
    parameter integer C = 4,
    parameter integer WB = 1,
`include "tb_buffer_depths.vh"
) (
`include "tb_unit_ports.vh"
);
/* verilator lint_off UNUSEDPARAM */  // the generated header declares every ISA constant
`include "npu_isa.vh"
/* verilator lint_on UNUSEDPARAM */
    localparam integer NI = R;  // IBUF read lanes
    genvar g;
`include "tb_matrix_lanes.vh"

    matrix_unit #(.R(R), .C(C), .AW(AW), .WB(WB)) u_dut (
        .clk(clk), .rst(rst), .start(start), .instr(instr), .ready(ready), .busy(busy),
        .done(done), .illegal(illegal),
        .ibuf_addr(i_addr), .ibuf_data(i_bytes), .wbuf_addr(w_addr), .wbuf_data(w_bytes),
        .abuf_rd_addr(ar_addr), .abuf_rd_data(ar_data),
        .abuf_wr_en(aw_en), .abuf_wr_addr(aw_addr), .abuf_wr_data(aw_data));

`include "tb_probe_inst.vh"
endmodule
`default_nettype wire
