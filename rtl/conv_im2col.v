// Hardware im2col for one conv pass: the IBUF addresses of the input row the systolic array
// streams each cycle. A pass is a gemm whose input row i is output pixel (oy, ox) = (i / ow,
// i % ow) seen through one kernel tap and one block of R channels:
//   ibuf + ((oy*sh + ybase) * in_w + ox*sw + xbase) * cin + cbase + r,  zero outside the tile.
// The array loads weights for k cycles after the pass starts, then takes row i in cycle k + i
// (systolic_array.v), so the walker holds row 0 for k cycles and then steps once a cycle.
`default_nettype none
module conv_im2col #(
    parameter integer R  = 4,
    parameter integer AW = 20
) (
    input  wire              clk,
    input  wire              init,      // a pass starts at this edge
    input  wire [7:0]        k,         // its depth: cycles of weight loading before row 0
    input  wire signed [15:0] ybase,    // input row of output row 0 through this tap
    input  wire signed [15:0] xbase,    // input column of output column 0 through this tap
    // the conv's geometry, held for the whole instruction
    input  wire [AW-1:0]     ibuf,
    input  wire [9:0]        in_h,
    input  wire [9:0]        in_w,
    input  wire [11:0]       cin,
    input  wire [11:0]       cbase,     // first channel of this pass's block
    input  wire [9:0]        ow,
    input  wire [3:0]        sh,
    input  wire [3:0]        sw,
    output wire [R*AW-1:0]   addr,
    output wire              in_tile     // the row's position lies in the tile (else: zeros)
);
    reg [7:0]         lcnt;
    reg [9:0]         ox;
    reg signed [15:0] y, x, x0;

    always @(posedge clk) begin
        if (init) begin
            lcnt <= k;
            ox <= 10'd0;
            y <= ybase;
            x <= xbase;
            x0 <= xbase;
        end else if (lcnt != 8'd0) begin
            lcnt <= lcnt - 1'b1;
        end else if (ox + 1'b1 == ow) begin
            ox <= 10'd0;
            x <= x0;
            y <= y + $signed({12'd0, sh});
        end else begin
            ox <= ox + 1'b1;
            x <= x + $signed({12'd0, sw});
        end
    end

    assign in_tile = y >= 0 && x >= 0 && y < $signed({6'd0, in_h}) && x < $signed({6'd0, in_w});

    // the pixel's element offset; only meaningful (and only used) when in_tile
    // (addresses wrap at AW bits, as the buffers' address fields do)
    wire [AW-1:0] yu = {{(AW-16){1'b0}}, y};
    wire [AW-1:0] xu = {{(AW-16){1'b0}}, x};
    wire [AW-1:0] pixel = yu * {{(AW-10){1'b0}}, in_w} + xu;
    wire [AW-1:0] base  = ibuf + pixel * {{(AW-12){1'b0}}, cin} + {{(AW-12){1'b0}}, cbase};
    genvar r;
    generate
        for (r = 0; r < R; r = r + 1) begin : g_lane
            assign addr[AW*r +: AW] = base + r[AW-1:0];
        end
    endgenerate
endmodule
`default_nettype wire
