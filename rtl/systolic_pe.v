// One processing element of the weight-stationary array: holds an int8 weight, passes its
// int8 input right and its int32 partial sum down, one MAC per cycle (wrapping, as npusim).
`default_nettype none
module systolic_pe (
    input  wire        clk,
    input  wire        rst,      // clears the weight: rows beyond k multiply zeros by it
    input  wire        w_shift,  // weight-load phase: take the weight from the PE above
    input  wire [7:0]  w_in,
    output reg  [7:0]  w,
    input  wire [7:0]  a_in,
    output reg  [7:0]  a_out,
    input  wire [31:0] p_in,
    output reg  [31:0] p_out
);
    wire signed [15:0] prod = $signed(a_in) * $signed(w);

    always @(posedge clk) begin
        if (rst) w <= 8'd0;
        else if (w_shift) w <= w_in;
        a_out <= a_in;
        p_out <= p_in + {{16{prod[15]}}, prod};
    end
endmodule
`default_nettype wire
