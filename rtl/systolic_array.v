// Weight-stationary R x C int8 systolic array with its GEMM sequencer; start -> done takes
// exactly npusim.timing.matrix_gemm = k + m + R + C - 1 cycles (k <= R, n <= C).
//
// Phases after `start` is sampled (edge 0):
//   LOAD   k cycles: weight rows k-1 .. 0 shift down the columns (row j ends in PE row j)
//   STREAM m cycles: input row i enters; the skew delays array row r by r cycles
//   DRAIN  partial sums leave the bottom row; the de-skew delays column c by C-1-c cycles,
//          so row i appears whole on out_data R+C-1 cycles after it entered; the consumer
//          writes it at the next edge, and `done` marks the last row's write edge.
// Operands are requested by row index and must arrive combinationally (simple memories).
`default_nettype none
module systolic_array #(
    parameter integer R  = 4,   // array rows (reduction depth)
    parameter integer C  = 4,   // array columns (output columns)
    parameter integer MW = 16,  // width of m (the gemm m field)
    parameter integer KW = 8    // width of k (the gemm k field)
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          start,     // taken when ready
    input  wire [MW-1:0] m,         // input rows, >= 1
    input  wire [KW-1:0] k,         // reduction depth, 1..R
    output wire          ready,     // idle, or finishing this cycle (back-to-back issue)
    output wire          busy,
    output wire          w_req,     // wants weight row w_row on w_data this cycle
    output wire [KW-1:0] w_row,
    input  wire [C*8-1:0] w_data,
    output wire          a_req,     // wants input row a_row on a_data this cycle
    output wire [MW-1:0] a_row,
    input  wire [R*8-1:0] a_data,
    output wire          out_valid, // out_data holds output row out_row, all C columns
    output wire [MW-1:0] out_row,
    output wire [C*32-1:0] out_data,
    output wire          done       // this cycle's out row is the last
);
    localparam [1:0] IDLE = 2'd0, LOAD = 2'd1, STREAM = 2'd2, DRAIN = 2'd3;
    localparam integer DELAY = R + C - 1;  // input row in -> aligned output row

    reg [1:0]    state;
    reg [MW-1:0] cnt, ocnt, m_r;
    reg [KW-1:0] k_r;
    reg [DELAY-1:0] vpipe;    // row-valid travelling with the data wave
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
    assign w_row     = k_r - 1'b1 - cnt[KW-1:0];
    assign a_req     = state == STREAM;
    assign a_row     = cnt;
    assign out_valid = vpipe[DELAY-1];
    assign out_row   = ocnt;
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

    // ---- input skew: array row r sees its element r cycles late; rows >= k see zero, so
    // whatever weights rows >= k still hold contribute nothing.
    wire [R*8-1:0] a_skew;
    genvar r, c;
    generate
        for (r = 0; r < R; r = r + 1) begin : g_skew
            wire [7:0] a_lane = (a_req && r < k_r) ? a_data[8*r +: 8] : 8'd0;
            if (r == 0) begin : g_direct
                assign a_skew[7:0] = a_lane;
            end else begin : g_delay
                reg [8*r-1:0] sr;  // r one-byte stages
                if (r == 1) begin : g_one
                    always @(posedge clk) sr <= a_lane;
                end else begin : g_many
                    always @(posedge clk) sr <= {sr[8*(r-1)-1:0], a_lane};
                end
                assign a_skew[8*r +: 8] = sr[8*r-1 -: 8];
            end
        end
    endgenerate

    // ---- the PE grid: a flows right, partial sums flow down, weights shift down when loading.
    // Each PE's outputs are nets of its own generate block (not a wide bus or a net array),
    // so an event simulator wakes only the PE's two neighbours when they change.
    generate
        for (r = 0; r < R; r = r + 1) begin : g_row
            for (c = 0; c < C; c = c + 1) begin : g_col
                wire [7:0]  a_in, w_in;
                wire [31:0] p_in;
                /* verilator lint_off UNUSEDSIGNAL */  // last column's a, bottom row's w: no reader
                wire [7:0]  a_out, w_out;
                /* verilator lint_on UNUSEDSIGNAL */
                wire [31:0] p_out;
                if (c == 0) begin : g_left
                    assign a_in = a_skew[8*r +: 8];
                end else begin : g_inner
                    assign a_in = g_row[r].g_col[c-1].a_out;
                end
                if (r == 0) begin : g_top
                    assign w_in = w_data[8*c +: 8];
                    assign p_in = 32'd0;
                end else begin : g_below
                    assign w_in = g_row[r-1].g_col[c].w_out;
                    assign p_in = g_row[r-1].g_col[c].p_out;
                end
                systolic_pe u_pe (
                    .clk(clk), .rst(rst), .w_shift(w_req), .w_in(w_in), .w(w_out),
                    .a_in(a_in), .a_out(a_out), .p_in(p_in), .p_out(p_out));
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
