// One processing element of the output-stationary array: accumulates one int32 output while
// its int8 input passes right and its int8 weight passes down, one MAC per cycle (wrapping, as
// npusim); `first_in` travels with the input and restarts the sum for a new fold.
`default_nettype none
module systolic_pe_os (
    input  wire        clk,
    input  wire [7:0]  a_in,
    output reg  [7:0]  a_out,
    input  wire [7:0]  w_in,
    output reg  [7:0]  w_out,
    input  wire        first_in,   // a_in, w_in are this fold's first pair
    output reg         first_out,
    output reg  [31:0] acc
);
    wire signed [15:0] prod = $signed(a_in) * $signed(w_in);
    wire        [31:0] base = first_in ? 32'd0 : acc;

    always @(posedge clk) begin
        a_out     <= a_in;
        w_out     <= w_in;
        first_out <= first_in;
        acc       <= base + {{16{prod[15]}}, prod};
    end
endmodule
`default_nettype wire
