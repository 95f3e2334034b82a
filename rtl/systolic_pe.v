// One processing element of the weight-stationary array: holds an int8 weight (WB = 2: two,
// one per bank), passes its int8 input right and its int32 partial sum down, one MAC per cycle
// (wrapping, as npusim).
//
// WB = 2 (Target -weight-buffers=2): each input beat carries the bank it multiplies by
// (s_in, travelling right with a_in), so a pass's weights load into the other bank while the
// previous pass streams. A load shifts its bank down the column as at WB = 1, but row r joins
// only from the load's step r on (sh: the top row shifts every step of it, a row below one
// step after the row above first did), so a load that starts the cycle the bank's previous
// pass feeds its last row never overwrites a weight that pass still has to meet.
`default_nettype none
module systolic_pe #(
    parameter integer WB  = 1,  // weight banks (1 or 2)
    parameter integer TOP = 0   // WB = 2: 1 for the top row (it shifts on every load step)
) (
    input  wire        clk,
    input  wire        rst,      // clears the weights: rows beyond k multiply zeros by them
    input  wire        w_shift,  // weight-load step (WB = 2: this column loads bank w_bank)
    /* verilator lint_off UNUSEDSIGNAL */  // the bank and wave inputs: WB = 2 only
    input  wire        w_first,  // WB = 2: the first step of this column's load
    input  wire        w_bank,   // WB = 2: the bank this column loads
    input  wire        sh_in,    // WB = 2: the PE above shifted last cycle
    input  wire        s_in,     // WB = 2: the bank the input beat a_in multiplies by
    /* verilator lint_on UNUSEDSIGNAL */
    output wire        sh_out,
    output wire        s_out,
    input  wire [7:0]  w_in,
    output wire [7:0]  w,        // the weight the PE below shifts in (the loading bank's)
    input  wire [7:0]  a_in,
    output reg  [7:0]  a_out,
    input  wire [31:0] p_in,
    output reg  [31:0] p_out
);
    wire [7:0] w_mul;  // the weight this cycle's beat meets
    wire signed [15:0] prod = $signed(a_in) * $signed(w_mul);

    always @(posedge clk) begin
        a_out <= a_in;
        p_out <= p_in + {{16{prod[15]}}, prod};
    end

    generate
        if (WB == 1) begin : g_one
            reg [7:0] w0;
            always @(posedge clk) begin
                if (rst) w0 <= 8'd0;
                else if (w_shift) w0 <= w_in;
            end
            assign w      = w0;
            assign w_mul  = w0;
            assign sh_out = 1'b0;
            assign s_out  = 1'b0;
        end else begin : g_two
            reg [7:0] w0, w1;
            reg       sh_q, s_q;
            wire sh = w_shift && (TOP != 0 || (!w_first && sh_in));
            always @(posedge clk) begin
                if (rst) begin
                    w0 <= 8'd0;
                    w1 <= 8'd0;
                    sh_q <= 1'b0;
                end else begin
                    sh_q <= sh;
                    if (sh && w_bank) w1 <= w_in;
                    if (sh && !w_bank) w0 <= w_in;
                end
            end
            assign w      = w_bank ? w1 : w0;
            assign w_mul  = s_in ? w1 : w0;
            assign sh_out = sh_q;
            assign s_out  = s_q;
            always @(posedge clk) s_q <= s_in;
        end
    endgenerate
endmodule
`default_nettype wire
