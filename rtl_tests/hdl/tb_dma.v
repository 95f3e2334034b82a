// Testbench top: dma_engine + dram_model + the four buffers, sized by HDL parameters from the Target.
`default_nettype none
module tb_dma #(
    parameter integer BW = 4,
    parameter integer SETUP = 2,
    parameter integer PAD_LANES = 16,
    parameter integer LAT = 10,
    parameter integer DRAM_BYTES = 65536,
`include "tb_buffer_depths.vh"
) (
`include "tb_unit_ports.vh"
);
    localparam integer AW = 20, DAW = 32, NWR = BW + PAD_LANES;

    wire            q_valid, q_we, q_last, p_valid, p_last;
    wire [BW-1:0]   q_en;
    wire [BW*DAW-1:0] q_addr;
    wire [BW*8-1:0] q_wdata, p_rdata;
    wire [1:0]      sel;
    wire [BW*AW-1:0] r_addr;
    wire [BW*32-1:0] r_data;
    wire [NWR-1:0]   w_en;
    wire [NWR*AW-1:0] w_addr;
    wire [NWR*32-1:0] w_data;
    wire [NWR*4-1:0]  w_be;

    dma_engine #(.BW(BW), .SETUP(SETUP), .PAD_LANES(PAD_LANES), .AW(AW), .DAW(DAW)) u_dut (
        .clk(clk), .rst(rst), .start(start), .instr(instr), .ready(ready), .busy(busy),
        .done(done), .illegal(illegal),
        .req_valid(q_valid), .req_we(q_we), .req_last(q_last), .req_en(q_en), .req_addr(q_addr),
        .req_wdata(q_wdata), .rsp_valid(p_valid), .rsp_last(p_last), .rsp_rdata(p_rdata),
        .sram_sel(sel), .rd_addr(r_addr), .rd_data(r_data),
        .wr_en(w_en), .wr_addr(w_addr), .wr_data(w_data), .wr_be(w_be));

    dram_model #(.BW(BW), .LAT(LAT), .DRAM_BYTES(DRAM_BYTES), .DAW(DAW)) u_dram (
        .clk(clk), .rst(rst), .req_valid(q_valid), .req_we(q_we), .req_last(q_last),
        .req_en(q_en), .req_addr(q_addr), .req_wdata(q_wdata),
        .rsp_valid(p_valid), .rsp_last(p_last), .rsp_rdata(p_rdata));

    npu_buffers #(.IBUF_DEPTH(IBUF_DEPTH), .WBUF_DEPTH(WBUF_DEPTH), .ABUF_DEPTH(ABUF_DEPTH),
                  .OBUF_DEPTH(OBUF_DEPTH), .AW(AW), .NRD(BW), .NWR(NWR)) u_bufs (
        .clk(clk), .rd_sel({BW{sel}}), .rd_addr(r_addr), .rd_data(r_data),
        .wr_sel({NWR{sel}}), .wr_en(w_en), .wr_addr(w_addr), .wr_data(w_data), .wr_be(w_be));

`include "tb_probe_inst.vh"
endmodule
`default_nettype wire
