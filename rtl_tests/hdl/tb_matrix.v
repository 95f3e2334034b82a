// Testbench top: matrix_engine (or matrix_engine_os where OS=1, -dataflow=os) + the four
// buffers, sized by HDL parameters from the Target.
`default_nettype none
module tb_matrix #(
    parameter integer R = 4,
    parameter integer C = 4,
    parameter integer OS = 0,
    parameter integer WB = 1,    // weight banks per PE (-weight-buffers; ws engine only)
    parameter integer IBUF_DEPTH = 4096,
    parameter integer WBUF_DEPTH = 4096,
    parameter integer ABUF_DEPTH = 4096,
    parameter integer OBUF_DEPTH = 4096
) (
    input  wire         clk,
    input  wire         rst,
    input  wire         start,
    input  wire [127:0] instr,
    output wire         ready,
    output wire         busy,
    output wire         done,
    output wire         illegal
);
/* verilator lint_off UNUSEDPARAM */  // the generated header declares every ISA constant
`include "npu_isa.vh"
/* verilator lint_on UNUSEDPARAM */
    localparam integer AW = 20;
    localparam integer NRD = R + 2 * C;

    wire [R*AW-1:0] i_addr;
    wire [C*AW-1:0] w_addr, ar_addr, aw_addr;
    /* verilator lint_off UNUSEDSIGNAL */  // int8 lanes: the upper 24 bits are the sign
    wire [R*32-1:0] i_data;
    wire [C*32-1:0] w_data;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [C*32-1:0] ar_data, aw_data;
    wire [R*8-1:0]  i_bytes;
    wire [C*8-1:0]  w_bytes;
    genvar g;
    generate  // int8 buffers read sign-extended: the engine takes the low bytes
        for (g = 0; g < R; g = g + 1) begin : g_i
            assign i_bytes[8*g +: 8] = i_data[32*g +: 8];
        end
        for (g = 0; g < C; g = g + 1) begin : g_w
            assign w_bytes[8*g +: 8] = w_data[32*g +: 8];
        end
    endgenerate
    wire [C-1:0]    aw_en;
    wire [NRD*32-1:0] rd_data;

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

    assign {ar_data, w_data, i_data} = rd_data;

    npu_buffers #(.IBUF_DEPTH(IBUF_DEPTH), .WBUF_DEPTH(WBUF_DEPTH), .ABUF_DEPTH(ABUF_DEPTH),
                  .OBUF_DEPTH(OBUF_DEPTH), .AW(AW), .NRD(NRD), .NWR(C)) u_bufs (
        .clk(clk),
        .rd_sel({{C{BUF_ABUF[1:0]}}, {C{BUF_WBUF[1:0]}}, {R{BUF_IBUF[1:0]}}}),
        .rd_addr({ar_addr, w_addr, i_addr}), .rd_data(rd_data),
        .wr_sel({C{BUF_ABUF[1:0]}}), .wr_en(aw_en), .wr_addr(aw_addr), .wr_data(aw_data),
        .wr_be({C{4'hF}}));

    /* verilator lint_off PINCONNECTEMPTY */  // the cocotb monitor reads the probe's registers
    tb_probe u_probe (.clk(clk), .rst(rst), .take(start && ready), .done(done),
                      .cycle(), .n_take(), .take_cycle(), .n_done(), .done_cycle());
    /* verilator lint_on PINCONNECTEMPTY */
endmodule
`default_nettype wire
