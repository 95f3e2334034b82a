// Testbench top: matrix_engine (or matrix_engine_os where OS=1, -dataflow=os) + the four
// buffers, sized by HDL parameters from the Target.
`default_nettype none
module tb_matrix #(
    parameter integer R = 4,
    parameter integer C = 4,
    parameter integer OS = 0,
    parameter integer WB = 1,    // weight banks per PE (-weight-buffers; ws engine only)
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

    generate
        if (OS != 0) begin : g_os
            matrix_engine_os #(.R(R), .C(C), .AW(AW)) u_dut (
                .clk(clk), .rst(rst), .start(start), .instr(instr), .ready(ready), .busy(busy),
                .done(done), .illegal(illegal),
                .ibuf_addr(i_addr), .ibuf_data(i_bytes), .wbuf_addr(w_addr), .wbuf_data(w_bytes),
                .abuf_rd_addr(ar_addr), .abuf_rd_data(ar_data),
                .abuf_wr_en(aw_en), .abuf_wr_addr(aw_addr), .abuf_wr_data(aw_data));
        end else begin : g_ws
            /* verilator lint_off PINCONNECTEMPTY */  // a lone gemm: one pass, the last
            matrix_engine #(.R(R), .C(C), .AW(AW), .WB(WB)) u_dut (
                .clk(clk), .rst(rst), .start(start), .instr(instr), .ready(ready), .busy(busy),
                .done(done), .illegal(illegal),
                .pass_next(1'b0), .pass_last(1'b1), .pass_ready(), .st_start(),
                .ibuf_addr(i_addr), .ibuf_data(i_bytes), .wbuf_addr(w_addr), .wbuf_data(w_bytes),
                .abuf_rd_addr(ar_addr), .abuf_rd_data(ar_data),
                .abuf_wr_en(aw_en), .abuf_wr_addr(aw_addr), .abuf_wr_data(aw_data));
            /* verilator lint_on PINCONNECTEMPTY */
        end
    endgenerate

`include "tb_probe_inst.vh"
endmodule
`default_nettype wire
