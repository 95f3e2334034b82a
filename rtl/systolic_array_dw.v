// The weight-stationary R x C array in its depthwise mode: the same PEs, weight load, partial
// sums and output de-skew as systolic_array.v, but each PE takes its input from its own lane
// (a_pe) instead of from its left neighbour, so column c can be channel c and row r tap r.
// start -> done takes exactly k + m + R + C - 1 cycles (npusim.timing.matrix_gemm, one pass of
// matrix_dwconv).
//
// In the cycle `s` cycles after the pass's first stream cycle, PE (r, c) works on output row
// i = s - r - c, as the broadcast array's PE does (its row skew r plus c hops right); the lane
// a_pe[r][c] must carry that row's input then, or zero (the driver, dwconv_unit.v, addresses
// each lane through the history of its im2col walker).
`default_nettype none
module systolic_array_dw #(
    parameter integer R  = 4,   // array rows (taps of a pass)
    parameter integer C  = 4,   // array columns (channels)
    parameter integer MW = 16,  // width of m
    parameter integer KW = 8    // width of k
) (
    input  wire            clk,
    input  wire            rst,
    input  wire            start,     // taken when ready
    input  wire [MW-1:0]   m,         // output pixels, >= 1
    input  wire [KW-1:0]   k,         // taps of the pass, 1..R
    output wire            ready,     // idle, or finishing this cycle (back-to-back issue)
    output wire            busy,
    output wire            w_req,     // wants weight row w_row on w_data this cycle
    input  wire [C*8-1:0]  w_data,
    input  wire [R*C*8-1:0] a_pe,     // PE (r, c)'s input at [8*(r*C + c) +: 8]
    output wire            out_valid, // out_data holds output row out_row, all C columns
    output wire [C*32-1:0] out_data,
    output wire            done       // this cycle's out row is the last
);
    localparam [1:0] IDLE = 2'd0, LOAD = 2'd1, STREAM = 2'd2, DRAIN = 2'd3;
    localparam integer DELAY = R + C - 1;  // row enters PE (0, 0) -> aligned output row

    reg [1:0]    state;
    reg [MW-1:0] cnt, ocnt, m_r;
    reg [KW-1:0] k_r;
    reg [DELAY-1:0] vpipe;    // row-valid travelling with the data wave
    wire a_req = state == STREAM;
    wire [DELAY-1:0] vnext;
    generate
        if (DELAY == 1) begin : g_v1
            assign vnext = a_req;
        end else begin : g_vn
            assign vnext = {vpipe[DELAY-2:0], a_req};
        end
    endgenerate

    assign busy      = state != IDLE;
    assign w_req     = state == LOAD;
    assign out_valid = vpipe[DELAY-1];
    assign done      = out_valid && ocnt == m_r - 1'b1;
    assign ready     = state == IDLE || done;

    always @(posedge clk) begin
        if (rst) begin
            state <= IDLE;
            vpipe <= {DELAY{1'b0}};
        end else begin
            vpipe <= vnext;
            if (start && ready) begin
                state <= LOAD;
                cnt   <= {MW{1'b0}};
                ocnt  <= {MW{1'b0}};
                m_r   <= m;
                k_r   <= k;
            end else begin
                if (out_valid) ocnt <= ocnt + 1'b1;
                case (state)
                    LOAD:   if (cnt[KW-1:0] == k_r - 1'b1) begin
                                state <= STREAM;
                                cnt   <= {MW{1'b0}};
                            end else cnt <= cnt + 1'b1;
                    STREAM: if (cnt == m_r - 1'b1) state <= DRAIN;
                            else cnt <= cnt + 1'b1;
                    DRAIN:  if (done) state <= IDLE;
                    default: ;
                endcase
            end
        end
    end

    // ---- the PE grid: each PE's input from its lane, partial sums down, weights shift down
    genvar r, c;
    generate
        for (r = 0; r < R; r = r + 1) begin : g_row
            for (c = 0; c < C; c = c + 1) begin : g_col
                wire [7:0]  w_in;
                wire [31:0] p_in;
                /* verilator lint_off UNUSEDSIGNAL */  // no neighbour reads a, bottom row's w
                wire [7:0]  a_out, w_out;
                /* verilator lint_on UNUSEDSIGNAL */
                wire [31:0] p_out;
                if (r == 0) begin : g_top
                    assign w_in = w_data[8*c +: 8];
                    assign p_in = 32'd0;
                end else begin : g_below
                    assign w_in = g_row[r-1].g_col[c].w_out;
                    assign p_in = g_row[r-1].g_col[c].p_out;
                end
                // one weight bank: the bank and load-wave pins are tied off, their outputs 0
                /* verilator lint_off PINCONNECTEMPTY */
                systolic_pe u_pe (
                    .clk(clk), .rst(rst), .w_shift(w_req), .w_first(1'b0), .w_bank(1'b0),
                    .sh_in(1'b0), .s_in(1'b0), .sh_out(), .s_out(), .w_in(w_in), .w(w_out),
                    .a_in(a_pe[8*(r*C + c) +: 8]), .a_out(a_out), .p_in(p_in), .p_out(p_out));
                /* verilator lint_on PINCONNECTEMPTY */
            end
        end
    endgenerate

    // ---- output de-skew: column c waits C-1-c cycles so a row leaves all at once
    generate
        for (c = 0; c < C; c = c + 1) begin : g_deskew
            wire [31:0] bottom = g_row[R-1].g_col[c].p_out;
            localparam integer D = C - 1 - c;
            if (D == 0) begin : g_direct
                assign out_data[32*c +: 32] = bottom;
            end else begin : g_delay
                reg [32*D-1:0] sr;
                if (D == 1) begin : g_one
                    always @(posedge clk) sr <= bottom;
                end else begin : g_many
                    always @(posedge clk) sr <= {sr[32*(D-1)-1:0], bottom};
                end
                assign out_data[32*c +: 32] = sr[32*D-1 -: 32];
            end
        end
    endgenerate
endmodule
`default_nettype wire
