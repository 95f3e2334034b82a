// One on-chip SRAM buffer as a simple memory: NRD combinational gather-read lanes and NWR
// byte-enable write lanes. Behavioural (no SRAM macro); the units, not this, carry the timing.
`default_nettype none
module buffer_mem #(
    parameter integer EW    = 8,     // element width in bits (a multiple of 8)
    parameter integer DEPTH = 4096,  // elements
    parameter integer AW    = 20,    // address width (the ISA's SRAM address fields)
    parameter integer NRD   = 1,     // read lanes (each with its own address)
    parameter integer NWR   = 1      // write lanes (each with its own address and byte enables)
) (
    input  wire                    clk,
    input  wire [NRD*AW-1:0]       rd_addr,
    output wire [NRD*EW-1:0]       rd_data,
    input  wire [NWR-1:0]          wr_en,
    input  wire [NWR*AW-1:0]       wr_addr,
    input  wire [NWR*EW-1:0]       wr_data,
    input  wire [NWR*(EW/8)-1:0]   wr_be
);
    localparam integer EB = EW / 8;
    localparam integer IW = (DEPTH > 1) ? $clog2(DEPTH) : 1;  // index bits
    localparam [AW:0]  LIMIT = DEPTH[AW:0];

    reg [EW-1:0] mem [0:DEPTH-1];

    // Start zeroed, as npusim's CoreState does (an init value to synthesis).
    integer z;
    initial for (z = 0; z < DEPTH; z = z + 1) mem[z] = {EW{1'b0}};

    genvar i;
    generate
        for (i = 0; i < NRD; i = i + 1) begin : g_rd
            wire [AW-1:0] a = rd_addr[i*AW +: AW];
            // An address past the end reads zero; npusim faults on it before it gets here.
            assign rd_data[i*EW +: EW] = ({1'b0, a} < LIMIT) ? mem[a[IW-1:0]] : {EW{1'b0}};
        end
    endgenerate

    // Lanes are applied in order, so a higher lane wins when two write the same byte.
    integer w, b;
    always @(posedge clk) begin
        for (w = 0; w < NWR; w = w + 1)
            if (wr_en[w] && {1'b0, wr_addr[w*AW +: AW]} < LIMIT)
                for (b = 0; b < EB; b = b + 1)
                    if (wr_be[w*EB + b])
                        mem[wr_addr[w*AW +: IW]][b*8 +: 8] <= wr_data[w*EW + b*8 +: 8];
    end
endmodule
`default_nettype wire
