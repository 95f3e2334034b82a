// Testbench probe: counts cycles and timestamps every instruction taken (start && ready) and
// finished (done), so the Python monitor wakes once per event instead of once per cycle.
`default_nettype none
module tb_probe (
    input  wire        clk,
    input  wire        rst,
    input  wire        take,
    input  wire        done,
    output reg  [31:0] cycle,       // rising edges since reset
    output reg  [31:0] n_take,      // changes at every take ...
    output reg  [31:0] take_cycle,  // ... and records its edge
    output reg  [31:0] n_done,
    output reg  [31:0] done_cycle
);
    always @(posedge clk) begin
        if (rst) begin
            cycle <= 32'd0;  n_take <= 32'd0;  n_done <= 32'd0;
        end else begin
            cycle <= cycle + 32'd1;
            if (take) begin n_take <= n_take + 32'd1; take_cycle <= cycle; end
            if (done) begin n_done <= n_done + 32'd1; done_cycle <= cycle; end
        end
    end
endmodule
`default_nettype wire
