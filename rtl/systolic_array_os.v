// Output-stationary R x C int8 systolic array with its GEMM sequencer; start -> done takes
// exactly npusim.timing.matrix_gemm_os = ceil(m / R) * (k + R + C - 1) cycles (n <= C).
//
// The m output rows go through in folds of R, one output per PE. A fold's cycles, counted
// from its first (the cycle after `start` is sampled, or after the last fold's end):
//   0 .. k-1      STREAM: column t of the fold's inputs enters the rows and row t of the
//                 weights the columns; the skew delays array row r by r cycles and column c
//                 by c, so PE (r, c) takes pair t at cycle t + r + c
//   k+C-1+r       row r's last PE (column C-1) took its last pair the cycle before: the row
//                 is read out across all columns on out_data (r = 0 .. R-1, one a cycle) and
//                 the consumer writes it at the next edge
//   k+R+C-2       the fold's last cycle (its last row out); `done` on the last fold's
// Unused rows (past m) stream zeros and are not written; the sequencer runs the whole
// array's skew whatever m and n use, as the cycle rule says.
// Operands are requested by fold and stream index and must arrive combinationally.
`default_nettype none
module systolic_array_os #(
    parameter integer R  = 4,   // array rows (output rows of a fold)
    parameter integer C  = 4,   // array columns (output columns)
    parameter integer MW = 16,  // width of m (the gemm m field)
    parameter integer KW = 8    // width of k (the gemm k field; a conv's kh*kw*cin is wider)
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          start,     // taken when ready
    input  wire [MW-1:0] m,         // output rows, >= 1
    input  wire [KW-1:0] k,         // reduction depth, >= 1
    output wire          ready,     // idle, or finishing this cycle (back-to-back issue)
    output wire          busy,
    output wire          a_req,     // wants input column t (lane r: row r of the fold) and
                                    // weight row t (lane c: column c) this cycle
    input  wire [R*8-1:0] a_data,
    input  wire [C*8-1:0] w_data,
    output wire          fold_end,  // the fold's last cycle: the next fold starts after it
    output wire          out_step,  // out_data holds row out_row of the fold, all C columns
    output wire          out_valid, // ... and that row is one of the m (write it)
    output wire [C*32-1:0] out_data,
    output wire          done       // this cycle's out row is the instruction's last
);
    localparam integer FW = KW + 2;  // fold cycle counter: k + R + C - 1 < 4 * 2^KW (R, C <= 2^KW)

    reg          run;
    reg [FW-1:0] fc;
    reg [MW-1:0] m_left;  // rows from this fold on
    reg [KW-1:0] k_r;

    wire [FW-1:0] k_w       = {{(FW-KW){1'b0}}, k_r};
    wire [FW-1:0] out_first = k_w + C[FW-1:0] - {{(FW-1){1'b0}}, 1'b1};           // k + C - 1
    wire [FW-1:0] fold_last = k_w + R[FW-1:0] + C[FW-1:0] - {{(FW-2){1'b0}}, 2'd2};  // + R - 1
    wire [FW-1:0] out_row   = fc - out_first;
    wire          last_fold = m_left <= R[MW-1:0];

    assign busy      = run;
    assign a_req     = run && fc < k_w;
    assign fold_end  = run && fc == fold_last;
    assign out_step  = run && fc >= out_first;
    assign out_valid = out_step && {{(32-FW){1'b0}}, out_row} < {{(32-MW){1'b0}}, m_left};
    assign done      = fold_end && last_fold;
    assign ready     = !run || done;

    always @(posedge clk) begin
        if (rst) begin
            run <= 1'b0;
        end else if (start && ready) begin
            run    <= 1'b1;
            fc     <= {FW{1'b0}};
            m_left <= m;
            k_r    <= k;
        end else if (fold_end) begin
            run    <= !last_fold;
            fc     <= {FW{1'b0}};
            m_left <= m_left - R[MW-1:0];
        end else if (run) begin
            fc <= fc + 1'b1;
        end
    end

    // ---- skew: array row r sees its input r cycles late, column c its weight c cycles late;
    // rows past the fold's m stream zeros (the consumer zeroes columns past n). `first` marks
    // pair 0 and travels with the inputs.
    wire [R*8-1:0] a_skew;
    wire [C*8-1:0] w_skew;
    wire [R-1:0]   f_skew;
    genvar r, c;
    generate
        for (r = 0; r < R; r = r + 1) begin : g_askew
            wire       live   = a_req && r < m_left;
            wire [8:0] a_lane = {a_req && fc == {FW{1'b0}}, live ? a_data[8*r +: 8] : 8'd0};
            if (r == 0) begin : g_direct
                assign {f_skew[0], a_skew[7:0]} = a_lane;
            end else begin : g_delay
                reg [9*r-1:0] sr;  // r stages of {first, byte}
                if (r == 1) begin : g_one
                    always @(posedge clk) sr <= a_lane;
                end else begin : g_many
                    always @(posedge clk) sr <= {sr[9*(r-1)-1:0], a_lane};
                end
                assign {f_skew[r], a_skew[8*r +: 8]} = sr[9*r-1 -: 9];
            end
        end
        for (c = 0; c < C; c = c + 1) begin : g_wskew
            wire [7:0] w_lane = a_req ? w_data[8*c +: 8] : 8'd0;
            if (c == 0) begin : g_direct
                assign w_skew[7:0] = w_lane;
            end else begin : g_delay
                reg [8*c-1:0] sr;
                if (c == 1) begin : g_one
                    always @(posedge clk) sr <= w_lane;
                end else begin : g_many
                    always @(posedge clk) sr <= {sr[8*(c-1)-1:0], w_lane};
                end
                assign w_skew[8*c +: 8] = sr[8*c-1 -: 8];
            end
        end
    endgenerate

    // ---- the PE grid: inputs (and `first`) flow right, weights flow down; each PE's nets
    // live in its own generate block, so an event simulator wakes only its neighbours. The
    // read-out is a column bus: row out_row's sums, OR-ed down each column.
    generate
        for (r = 0; r < R; r = r + 1) begin : g_row
            for (c = 0; c < C; c = c + 1) begin : g_col
                wire [7:0]  a_in, w_in;
                wire        f_in;
                /* verilator lint_off UNUSEDSIGNAL */  // last column's a and first, bottom row's w
                wire [7:0]  a_out, w_out;
                wire        f_out;
                /* verilator lint_on UNUSEDSIGNAL */
                wire [31:0] acc, bus;
                if (c == 0) begin : g_left
                    assign a_in = a_skew[8*r +: 8];
                    assign f_in = f_skew[r];
                end else begin : g_inner
                    assign a_in = g_row[r].g_col[c-1].a_out;
                    assign f_in = g_row[r].g_col[c-1].f_out;
                end
                if (r == 0) begin : g_top
                    assign w_in = w_skew[8*c +: 8];
                    assign bus  = (out_row == r) ? acc : 32'd0;
                end else begin : g_below
                    assign w_in = g_row[r-1].g_col[c].w_out;
                    assign bus  = g_row[r-1].g_col[c].bus | ((out_row == r) ? acc : 32'd0);
                end
                systolic_pe_os u_pe (
                    .clk(clk), .a_in(a_in), .a_out(a_out), .w_in(w_in), .w_out(w_out),
                    .first_in(f_in), .first_out(f_out), .acc(acc));
            end
        end
        for (c = 0; c < C; c = c + 1) begin : g_out
            assign out_data[32*c +: 32] = g_row[R-1].g_col[c].bus;
        end
    endgenerate
endmodule
`default_nettype wire
