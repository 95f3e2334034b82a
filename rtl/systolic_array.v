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
//
// WB = 2 (two weight banks per PE, Target -weight-buffers=2): `start` takes one pass of an
// instruction whenever pass_ready, and a pass's load (LOAD, into the bank the pass before
// did not use) overlaps the stream of the pass before it. Three sequencers run apart: the
// load, one pass waiting loaded, and the stream. Column c loads c cycles after column 0 (the
// weight lanes are skewed like the input rows), and the bank bit travels with each input
// beat, so the switch from bank to bank is a diagonal wavefront, never a stall. A pass may
// be taken once the load before it ends (or is in its last step) and its bank's previous
// pass feeds its last row no later than the load's first step; it streams once it is loaded
// and the pass before fed its last row. With pass i loading from cycle L[i] and streaming
// from T[i] (edge 0 = the first pass's start, L[0] = 0, every pass the instruction's m rows):
//   L[i] = max(L[i-1] + k[i-1], T[i-2] + m - 1),  T[i] = max(L[i] + k[i], T[i-1] + m),
// and done is T[last] + m + R + C - 1 (npusim.timing.matrix_conv_wb2). Output rows carry
// their pass's acc bit and a row-0 mark (the engine restarts the pass's output rows there);
// `done` is the last row of the pass taken with pass_last. ready (the instruction's) is
// busy-free or done, as at WB = 1; the passes of one instruction share its m, n and abuf.
`default_nettype none
module systolic_array #(
    parameter integer R  = 4,   // array rows (reduction depth)
    parameter integer C  = 4,   // array columns (output columns)
    parameter integer MW = 16,  // width of m (the gemm m field)
    parameter integer KW = 8,   // width of k (the gemm k field)
    parameter integer WB = 1    // weight banks per PE: 1, or 2 (Target -weight-buffers)
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          start,     // taken when ready (WB = 2: when pass_ready)
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
    output wire          done,      // this cycle's out row is the last
    // WB = 2 only (WB = 1: pass_ready = ready, the rest unused or 0)
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire          pass_acc,  // the pass taken now accumulates (tags its output rows)
    input  wire          pass_last, // the pass taken now is its instruction's last
    /* verilator lint_on UNUSEDSIGNAL */
    output wire          pass_ready, // a pass may be taken now
    output wire          st_start,  // a pass's row 0 streams in the next cycle
    output wire          out_acc,   // out_data's row is of an accumulating pass
    output wire          out_first  // out_data's row is row 0 of its pass
);
    localparam [1:0] IDLE = 2'd0, LOAD = 2'd1, STREAM = 2'd2, DRAIN = 2'd3;
    localparam integer DELAY = R + C - 1;  // input row in -> aligned output row

    wire [KW-1:0] in_k;      // the streaming pass's depth: rows >= in_k take zeros
    wire          in_bank;   // the streaming pass's bank (WB = 2)
    wire [C-1:0]  col_ld, col_first, col_bank;  // each column's load step (skewed, WB = 2)
    wire [C*8-1:0] col_w;    // each column's weight lane (skewed at WB = 2)

    genvar r, c;
    generate
        if (WB == 1) begin : g_seq1
            reg [1:0]    state;
            reg [MW-1:0] cnt, ocnt, m_r;
            reg [KW-1:0] k_r;
            reg [DELAY-1:0] vpipe;    // row-valid travelling with the data wave
            wire [DELAY-1:0] vnext;
            if (DELAY == 1) begin : g_v1
                assign vnext = a_req;
            end else begin : g_vn
                assign vnext = {vpipe[DELAY-2:0], a_req};
            end

            assign busy      = state != IDLE;
            assign w_req     = state == LOAD;
            assign w_row     = k_r - 1'b1 - cnt[KW-1:0];
            assign a_req     = state == STREAM;
            assign a_row     = cnt;
            assign out_valid = vpipe[DELAY-1];
            assign out_row   = ocnt;
            assign done      = out_valid && ocnt == m_r - 1'b1;
            assign ready     = state == IDLE || done;
            assign pass_ready = ready;
            assign st_start  = 1'b0;
            assign out_acc   = 1'b0;
            assign out_first = 1'b0;
            assign in_k      = k_r;
            assign in_bank   = 1'b0;
            assign col_ld    = {C{w_req}};
            assign col_first = {C{1'b0}};
            assign col_bank  = {C{1'b0}};
            assign col_w     = w_data;

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
        end else begin : g_seq2
            // the load in progress, the pass waiting loaded (q_), the pass streaming (st_)
            reg          ld_busy, ld_bank, ld_acc, ld_last;
            reg [KW-1:0] ld_cnt, ld_k;
            reg          q_valid, q_bank, q_acc, q_last;
            reg [KW-1:0] q_k;
            reg          st_busy, st_bank, st_acc, st_last;
            reg [KW-1:0] st_k;
            reg [MW-1:0] st_cnt, m_r;
            reg          nb;      // the bank the next pass loads
            // per input beat, travelling with the data wave: valid, row 0, acc, last row
            reg [DELAY-1:0] vpipe, fpipe, cpipe, lpipe;

            wire ld_fin = ld_busy && ld_cnt == ld_k - 1'b1;
            wire st_fin = st_busy && st_cnt == m_r - 1'b1;
            wire st_go  = (!st_busy || st_fin) && (q_valid || ld_fin);
            // the row fed next cycle, plus one: at least m once the last row is at most a cycle away
            wire [MW:0] rows_after = {1'b0, st_cnt} + {{(MW-1){1'b0}}, 2'd2};
            // bank nb is free once nothing waits on it and its pass (if streaming) feeds its
            // last row by the next cycle: the load's first step may be that row's cycle
            wire nb_free = !(q_valid && q_bank == nb) &&
                           !(st_busy && st_bank == nb && rows_after < {1'b0, m_r});
            wire take = start && pass_ready;
            wire beat = st_busy;
            wire [3:0] tags = {beat, beat && st_cnt == {MW{1'b0}}, st_acc, st_fin && st_last};

            assign pass_ready = (!ld_busy || ld_fin) && nb_free;
            assign busy      = ld_busy || q_valid || st_busy || (|vpipe);
            assign w_req     = ld_busy;
            assign w_row     = ld_k - 1'b1 - ld_cnt;
            assign a_req     = st_busy;
            assign a_row     = st_cnt;
            assign out_valid = vpipe[DELAY-1];
            assign out_row   = {MW{1'b0}};
            assign out_first = fpipe[DELAY-1];
            assign out_acc   = cpipe[DELAY-1];
            assign done      = lpipe[DELAY-1];
            assign ready     = !busy || done;
            assign st_start  = st_go;
            assign in_k      = st_k;
            assign in_bank   = st_bank;

            if (DELAY == 1) begin : g_p1
                always @(posedge clk) {vpipe, fpipe, cpipe, lpipe} <= rst ? 4'd0 : tags;
            end else begin : g_pn
                always @(posedge clk)
                    if (rst) {vpipe, fpipe, cpipe, lpipe} <= {4*DELAY{1'b0}};
                    else begin
                        vpipe <= {vpipe[DELAY-2:0], tags[3]};
                        fpipe <= {fpipe[DELAY-2:0], tags[2]};
                        cpipe <= {cpipe[DELAY-2:0], tags[1]};
                        lpipe <= {lpipe[DELAY-2:0], tags[0]};
                    end
            end

            always @(posedge clk) begin
                if (rst) begin
                    ld_busy <= 1'b0;
                    q_valid <= 1'b0;
                    st_busy <= 1'b0;
                    nb      <= 1'b0;
                end else begin
                    if (take) begin
                        ld_busy <= 1'b1;
                        ld_cnt  <= {KW{1'b0}};
                        ld_k    <= k;
                        ld_bank <= nb;
                        ld_acc  <= pass_acc;
                        ld_last <= pass_last;
                        m_r     <= m;      // one instruction's passes share m
                        nb      <= !nb;
                    end else if (ld_fin) ld_busy <= 1'b0;
                    else if (ld_busy) ld_cnt <= ld_cnt + 1'b1;
                    // a finished load waits unless the stream takes it at once
                    if (ld_fin && !(st_go && !q_valid)) begin
                        q_valid <= 1'b1;
                        {q_k, q_bank, q_acc, q_last} <= {ld_k, ld_bank, ld_acc, ld_last};
                    end else if (st_go) q_valid <= 1'b0;
                    if (st_go) begin
                        st_busy <= 1'b1;
                        st_cnt  <= {MW{1'b0}};
                        {st_k, st_bank, st_acc, st_last} <= q_valid ?
                            {q_k, q_bank, q_acc, q_last} : {ld_k, ld_bank, ld_acc, ld_last};
                    end else if (st_fin) st_busy <= 1'b0;
                    else if (st_busy) st_cnt <= st_cnt + 1'b1;
                end
            end

            // each column's load step, bank and weight lane, c cycles late in column c
            for (c = 0; c < C; c = c + 1) begin : g_wskew
                wire [10:0] lane = {ld_busy, ld_busy && ld_cnt == {KW{1'b0}}, ld_bank,
                                    w_data[8*c +: 8]};
                if (c == 0) begin : g_direct
                    assign {col_ld[0], col_first[0], col_bank[0], col_w[7:0]} = lane;
                end else begin : g_delay
                    reg [11*c-1:0] sr;  // c stages of 11 bits
                    if (c == 1) begin : g_one
                        always @(posedge clk) sr <= rst ? 11'd0 : lane;
                    end else begin : g_many
                        always @(posedge clk)
                            sr <= rst ? {11*c{1'b0}} : {sr[11*(c-1)-1:0], lane};
                    end
                    assign {col_ld[c], col_first[c], col_bank[c], col_w[8*c +: 8]} =
                        sr[11*c-1 -: 11];
                end
            end
        end
    endgenerate

    // ---- input skew: array row r sees its element r cycles late; rows >= k see zero, so
    // whatever weights rows >= k still hold contribute nothing. (WB = 2: the bank bit too.)
    wire [R*8-1:0] a_skew;
    wire [R-1:0]   s_skew;
    generate
        for (r = 0; r < R; r = r + 1) begin : g_skew
            wire [7:0] a_lane = (a_req && r < in_k) ? a_data[8*r +: 8] : 8'd0;
            if (r == 0) begin : g_direct
                assign a_skew[7:0] = a_lane;
                assign s_skew[0] = in_bank;
            end else begin : g_delay
                reg [8*r-1:0] sr;  // r one-byte stages
                if (r == 1) begin : g_one
                    always @(posedge clk) sr <= a_lane;
                end else begin : g_many
                    always @(posedge clk) sr <= {sr[8*(r-1)-1:0], a_lane};
                end
                assign a_skew[8*r +: 8] = sr[8*r-1 -: 8];
                if (WB == 1) begin : g_s1
                    assign s_skew[r] = 1'b0;
                end else begin : g_s2
                    reg [r-1:0] ss;  // the bank bit's r stages
                    if (r == 1) begin : g_one
                        always @(posedge clk) ss <= in_bank;
                    end else begin : g_many
                        always @(posedge clk) ss <= {ss[r-2:0], in_bank};
                    end
                    assign s_skew[r] = ss[r-1];
                end
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
                wire        s_in, sh_in;
                /* verilator lint_off UNUSEDSIGNAL */  // last column's a, bottom row's w: no reader
                wire [7:0]  a_out, w_out;
                wire        s_out, sh_out;
                /* verilator lint_on UNUSEDSIGNAL */
                wire [31:0] p_out;
                if (c == 0) begin : g_left
                    assign a_in = a_skew[8*r +: 8];
                    assign s_in = s_skew[r];
                end else begin : g_inner
                    assign a_in = g_row[r].g_col[c-1].a_out;
                    assign s_in = g_row[r].g_col[c-1].s_out;
                end
                if (r == 0) begin : g_top
                    assign w_in  = col_w[8*c +: 8];
                    assign p_in  = 32'd0;
                    assign sh_in = 1'b1;
                end else begin : g_below
                    assign w_in  = g_row[r-1].g_col[c].w_out;
                    assign p_in  = g_row[r-1].g_col[c].p_out;
                    assign sh_in = g_row[r-1].g_col[c].sh_out;
                end
                systolic_pe #(.WB(WB), .TOP((r == 0) ? 1 : 0)) u_pe (
                    .clk(clk), .rst(rst), .w_shift(col_ld[c]), .w_first(col_first[c]),
                    .w_bank(col_bank[c]), .sh_in(sh_in), .s_in(s_in), .sh_out(sh_out),
                    .s_out(s_out), .w_in(w_in), .w(w_out),
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
