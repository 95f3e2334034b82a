// DRAM memory model for the DMA: a byte array behind one BW-byte port with a per-byte address
// (a beat may span rows of a strided transfer). A beat reads or writes the array when it is
// requested; its response (read data, or the write's acknowledgement) returns LAT cycles later.
`default_nettype none
module dram_model #(
    parameter integer BW  = 4,          // bytes per beat (Target dram_bw)
    parameter integer LAT = 10,         // cycles from request to response (Target dram_latency)
    parameter integer DRAM_BYTES = 65536,
    parameter integer DAW = 32          // byte address width (the ISA's dram fields)
) (
    input  wire            clk,
    /* verilator lint_off UNUSEDSIGNAL */  // with LAT = 0 there is no state to reset
    input  wire            rst,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire            req_valid,
    input  wire            req_we,
    input  wire            req_last,    // travels with the beat, for the requester
    input  wire [BW-1:0]   req_en,      // byte lanes taking part
    input  wire [BW*DAW-1:0] req_addr,
    input  wire [BW*8-1:0] req_wdata,
    output wire            rsp_valid,
    output wire            rsp_last,
    output wire [BW*8-1:0] rsp_rdata
);
    reg [7:0] mem [0:DRAM_BYTES-1];
    integer z;
    initial for (z = 0; z < DRAM_BYTES; z = z + 1) mem[z] = 8'd0;  // as npusim's Dram

    wire [BW*8-1:0] rdata;
    genvar j;
    generate
        for (j = 0; j < BW; j = j + 1) begin : g_lane
            wire [DAW-1:0] a = req_addr[DAW*j +: DAW];
            assign rdata[8*j +: 8] = (req_en[j] && a < DRAM_BYTES) ? mem[a] : 8'd0;
        end
    endgenerate

    integer w;
    always @(posedge clk)
        if (req_valid && req_we)
            for (w = 0; w < BW; w = w + 1)
                if (req_en[w] && req_addr[DAW*w +: DAW] < DRAM_BYTES)
                    mem[req_addr[DAW*w +: DAW]] <= req_wdata[8*w +: 8];

    generate
        if (LAT == 0) begin : g_comb
            assign rsp_valid = req_valid;
            assign rsp_last  = req_last;
            assign rsp_rdata = rdata;
        end else begin : g_pipe
            reg [LAT-1:0]  v, last;
            reg [BW*8-1:0] data [0:LAT-1];
            wire [LAT-1:0] v_in, l_in;
            if (LAT == 1) begin : g_one
                assign v_in = req_valid;
                assign l_in = req_last;
            end else begin : g_many
                assign v_in = {v[LAT-2:0], req_valid};
                assign l_in = {last[LAT-2:0], req_last};
            end
            integer s;
            always @(posedge clk) begin
                v    <= rst ? {LAT{1'b0}} : v_in;
                last <= l_in;
                data[0] <= rdata;
                for (s = 1; s < LAT; s = s + 1) data[s] <= data[s-1];
            end
            assign rsp_valid = v[LAT-1];
            assign rsp_last  = last[LAT-1];
            assign rsp_rdata = data[LAT-1];
        end
    endgenerate
endmodule
`default_nettype wire
