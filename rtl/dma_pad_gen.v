// DMA zero-fill walker: visits the padded SRAM tile of a load (planes x prow x pcol elements,
// contiguous) LANES positions per cycle and writes zero wherever a position is padding.
// It runs from the instruction's first cycle, beside the data beats (docs/rtl.md).
`default_nettype none
module dma_pad_gen #(
    parameter integer LANES = 16,
    parameter integer AW    = 20
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          init,       // start walking (only when the load has padding)
    input  wire [AW-1:0] base,       // first element of the padded tile
    input  wire [31:0]   extent,     // elements in the padded tile, all planes
    input  wire [12:0]   prow,       // rows of one padded plane
    input  wire [12:0]   pcol,       // elements of one padded row
    input  wire [2:0]    pt,         // data rows start at row pt ...
    input  wire [11:0]   rows,       // ... and there are `rows` of them
    input  wire [2:0]    pl,         // data elements start at column pl ...
    input  wire [11:0]   cols,       // ... and there are `cols` of them
    output reg           active,
    output wire [LANES-1:0]    wr_en,
    output wire [LANES*AW-1:0] wr_addr,
    output wire          last        // this cycle writes the tile's last positions
);
    reg [12:0]   prow_r, pcol_r, top_r, bot_r, left_r, right_r;
    reg [31:0]   rem;
    reg [AW-1:0] ptr;
    reg [12:0]   tr, tc;  // position of lane 0 in its plane

    wire [12:0] c_tr [0:LANES] /*verilator split_var*/;  // chains across lanes, not loops
    wire [12:0] c_tc [0:LANES] /*verilator split_var*/;
    localparam [AW-1:0] STEP = LANES[AW-1:0];
    localparam [31:0]   LANES32 = LANES[31:0];
    assign c_tr[0] = tr;
    assign c_tc[0] = tc;

    genvar j;
    generate
        for (j = 0; j < LANES; j = j + 1) begin : g_lane
            wire row_end = c_tc[j] + 1'b1 == pcol_r;
            wire is_pad  = c_tr[j] < top_r || c_tr[j] >= bot_r ||
                           c_tc[j] < left_r || c_tc[j] >= right_r;
            assign c_tc[j+1] = row_end ? 13'd0 : c_tc[j] + 1'b1;
            assign c_tr[j+1] = !row_end ? c_tr[j] : (c_tr[j] + 1'b1 == prow_r) ? 13'd0
                                                                             : c_tr[j] + 1'b1;
            localparam [31:0]   J  = j;
            localparam [AW-1:0] JA = j;
            assign wr_en[j]  = active && rem > J && is_pad;
            assign wr_addr[AW*j +: AW] = ptr + JA;
        end
    endgenerate
    assign last = active && rem <= LANES32;

    always @(posedge clk) begin
        if (rst) active <= 1'b0;
        else if (init) begin
            active <= 1'b1;
            rem <= extent;  ptr <= base;  tr <= 13'd0;  tc <= 13'd0;
            prow_r <= prow;  pcol_r <= pcol;
            top_r  <= {10'd0, pt};  bot_r   <= {10'd0, pt} + {1'b0, rows};
            left_r <= {10'd0, pl};  right_r <= {10'd0, pl} + {1'b0, cols};
        end else if (active) begin
            if (last) active <= 1'b0;
            rem <= rem - LANES32;  ptr <= ptr + STEP;
            tr <= c_tr[LANES];  tc <= c_tc[LANES];
        end
    end
endmodule
`default_nettype wire
