// Testbench top: vector_unit + the four buffers, sized by HDL parameters from the Target.
`default_nettype none
module tb_vector #(
    parameter integer L = 4,
    parameter integer P = 2,
`include "tb_buffer_depths.vh"
) (
`include "tb_unit_ports.vh"
);
    localparam integer AW = 20;

    wire [1:0]      a_sel, b_sel, c_sel, d_sel, w_sel;
    wire [L*AW-1:0] a_addr, b_addr, c_addr, d_addr, w_addr;
    wire [L*32-1:0] a_data, b_data, c_data, d_data, w_data;
    wire [L-1:0]    w_en;

    vector_unit #(.L(L), .P(P), .AW(AW)) u_dut (
        .clk(clk), .rst(rst), .start(start), .instr(instr), .ready(ready), .busy(busy),
        .done(done), .illegal(illegal),
        .rd_a_sel(a_sel), .rd_a_addr(a_addr), .rd_a_data(a_data),
        .rd_b_sel(b_sel), .rd_b_addr(b_addr), .rd_b_data(b_data),
        .rd_c_sel(c_sel), .rd_c_addr(c_addr), .rd_c_data(c_data),
        .rd_d_sel(d_sel), .rd_d_addr(d_addr), .rd_d_data(d_data),
        .wr_sel(w_sel), .wr_en(w_en), .wr_addr(w_addr), .wr_data(w_data));

    npu_buffers #(.IBUF_DEPTH(IBUF_DEPTH), .WBUF_DEPTH(WBUF_DEPTH), .ABUF_DEPTH(ABUF_DEPTH),
                  .OBUF_DEPTH(OBUF_DEPTH), .AW(AW), .NRD(4 * L), .NWR(L)) u_bufs (
        .clk(clk),
        .rd_sel({{L{d_sel}}, {L{c_sel}}, {L{b_sel}}, {L{a_sel}}}),
        .rd_addr({d_addr, c_addr, b_addr, a_addr}), .rd_data({d_data, c_data, b_data, a_data}),
        .wr_sel({L{w_sel}}), .wr_en(w_en), .wr_addr(w_addr), .wr_data(w_data),
        .wr_be({L{4'hF}}));

`include "tb_probe_inst.vh"
endmodule
`default_nettype wire
