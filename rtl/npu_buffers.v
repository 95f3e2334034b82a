// The four SRAM buffers of a core (ibuf, wbuf, abuf, obuf) behind generic lanes: every read
// and write lane names its buffer with the ISA's buf enum, values travel as 32-bit words.
`default_nettype none
module npu_buffers #(
    parameter integer IBUF_DEPTH = 4096,  // elements, from the Target (derived.buffer_elems)
    parameter integer WBUF_DEPTH = 4096,
    parameter integer ABUF_DEPTH = 4096,
    parameter integer OBUF_DEPTH = 4096,
    parameter integer AW  = 20,
    parameter integer NRD = 1,
    parameter integer NWR = 1
) (
    input  wire              clk,
    input  wire [NRD*2-1:0]  rd_sel,   // buf enum per read lane
    input  wire [NRD*AW-1:0] rd_addr,
    output wire [NRD*32-1:0] rd_data,  // int8 buffers read sign-extended
    input  wire [NWR*2-1:0]  wr_sel,
    input  wire [NWR-1:0]    wr_en,
    input  wire [NWR*AW-1:0] wr_addr,
    input  wire [NWR*32-1:0] wr_data,  // int8 buffers keep the low byte
    input  wire [NWR*4-1:0]  wr_be     // byte enables (int8 buffers use bit 0)
);
/* verilator lint_off UNUSEDPARAM */  // the generated header declares every ISA constant
`include "npu_isa.vh"
/* verilator lint_on UNUSEDPARAM */

    wire [NRD*8-1:0]  i_rd, w_rd, o_rd;
    wire [NRD*32-1:0] a_rd;
    wire [NWR-1:0]    i_we, w_we, a_we, o_we;
    wire [NWR*8-1:0]  wr_byte;
    wire [NWR-1:0]    wr_be0;

    genvar i;
    generate
        for (i = 0; i < NRD; i = i + 1) begin : g_rd
            wire [1:0] s = rd_sel[2*i +: 2];
            reg  [31:0] d;
            always @* begin
                case (s)
                    BUF_IBUF[1:0]: d = {{24{i_rd[8*i+7]}}, i_rd[8*i +: 8]};
                    BUF_WBUF[1:0]: d = {{24{w_rd[8*i+7]}}, w_rd[8*i +: 8]};
                    BUF_ABUF[1:0]: d = a_rd[32*i +: 32];
                    default:       d = {{24{o_rd[8*i+7]}}, o_rd[8*i +: 8]};
                endcase
            end
            assign rd_data[32*i +: 32] = d;
        end
        for (i = 0; i < NWR; i = i + 1) begin : g_wr
            wire [1:0] s = wr_sel[2*i +: 2];
            assign i_we[i] = wr_en[i] && s == BUF_IBUF[1:0];
            assign w_we[i] = wr_en[i] && s == BUF_WBUF[1:0];
            assign a_we[i] = wr_en[i] && s == BUF_ABUF[1:0];
            assign o_we[i] = wr_en[i] && s == BUF_OBUF[1:0];
            assign wr_byte[8*i +: 8] = wr_data[32*i +: 8];
            assign wr_be0[i] = wr_be[4*i];
        end
    endgenerate

    buffer_mem #(.EW(8), .DEPTH(IBUF_DEPTH), .AW(AW), .NRD(NRD), .NWR(NWR)) u_ibuf (
        .clk(clk), .rd_addr(rd_addr), .rd_data(i_rd),
        .wr_en(i_we), .wr_addr(wr_addr), .wr_data(wr_byte), .wr_be(wr_be0));
    buffer_mem #(.EW(8), .DEPTH(WBUF_DEPTH), .AW(AW), .NRD(NRD), .NWR(NWR)) u_wbuf (
        .clk(clk), .rd_addr(rd_addr), .rd_data(w_rd),
        .wr_en(w_we), .wr_addr(wr_addr), .wr_data(wr_byte), .wr_be(wr_be0));
    buffer_mem #(.EW(32), .DEPTH(ABUF_DEPTH), .AW(AW), .NRD(NRD), .NWR(NWR)) u_abuf (
        .clk(clk), .rd_addr(rd_addr), .rd_data(a_rd),
        .wr_en(a_we), .wr_addr(wr_addr), .wr_data(wr_data), .wr_be(wr_be));
    buffer_mem #(.EW(8), .DEPTH(OBUF_DEPTH), .AW(AW), .NRD(NRD), .NWR(NWR)) u_obuf (
        .clk(clk), .rd_addr(rd_addr), .rd_data(o_rd),
        .wr_en(o_we), .wr_addr(wr_addr), .wr_data(wr_byte), .wr_be(wr_be0));
endmodule
`default_nettype wire
