// The core's matrix unit: matrix_engine (gemm) plus the conv_* registers (cfg) and conv, run
// as a sequence of back-to-back gemm passes on the same engine with im2col input addressing.
// Cycles: cfg 1; gemm matrix_gemm; conv = the sum over passes of matrix_gemm(oh*ow, depth,
// cout), passes in npusim.timing.conv_passes order (tap-major, blocks of R channels inside),
// since the engine takes the next pass at the edge the previous one writes its last row.
//
// WB = 2 (Target -weight-buffers=2): the engine has two weight banks, and the conv hands it
// the next pass whenever it may take one (pass_ready), so each pass's weights load while the
// pass before streams: cycles npusim.timing.matrix_conv_wb2. Two walks over the passes run
// apart: the load walk (l_*: which weights, which depth, is it the last) steps when a pass is
// handed over, the stream walk (the registers WB = 1 has) when the engine starts streaming a
// pass (st_start), and the im2col starts each pass's rows then, with no load to wait out.
`default_nettype none
module matrix_unit #(
    parameter integer R  = 4,
    parameter integer C  = 4,
    parameter integer AW = 20,
    parameter integer WB = 1     // weight banks per PE (Target -weight-buffers)
) (
`define MU_IBUF_LANES R
`include "matrix_unit_ports.vh"
);
/* verilator lint_off UNUSEDPARAM */  // the generated header declares every ISA constant
`include "npu_isa.vh"
/* verilator lint_on UNUSEDPARAM */

    // ---------------------------------------------------------------- decode
    wire [9:0]  in_h_in = `F_CONV_IN_H(instr);
    wire [9:0]  in_w_in = `F_CONV_IN_W(instr);
    wire [11:0] cin_in  = `F_CONV_CIN(instr);
    wire [7:0]  cout_in = `F_CONV_COUT(instr);
`include "conv_regs.vh"
    wire        is_conv = op_in == OP_CONV;
    wire        conv_ok = window_ok;

    function [7:0] min_depth(input [11:0] left);
        min_depth = (left > R[11:0]) ? R[7:0] : left[7:0];
    endfunction

    function [127:0] gemm_word(input [AW-1:0] wb, input [AW-1:0] ab, input [15:0] m,
                               input [7:0] k, input [7:0] n, input acc);
        begin
            gemm_word = 128'd0;
            gemm_word[OPCODE_LSB +: OPCODE_W]       = OP_GEMM;
            gemm_word[GEMM_WBUF_LSB +: GEMM_WBUF_W] = wb;
            gemm_word[GEMM_ABUF_LSB +: GEMM_ABUF_W] = ab;
            gemm_word[GEMM_M_LSB +: GEMM_M_W]       = m;
            gemm_word[GEMM_K_LSB +: GEMM_K_W]       = k;
            gemm_word[GEMM_N_LSB +: GEMM_N_W]       = n;
            gemm_word[GEMM_ACC_LSB]                 = acc;
        end
    endfunction

    // ---------------------------------------------------------------- control
    localparam [1:0] IDLE = 2'd0, ONE = 2'd1, FWD = 2'd2, CONV = 2'd3;
    reg [1:0] state;
    reg       bad;
    wire      take = start && ready;
    wire      eng_done, eng_illegal;

    // the conv in flight: geometry, and the pass now on the engine
    reg [AW-1:0] ibuf_r, abuf_r, wbase;
    reg [9:0]    in_h_r, in_w_r, ow_r;
    reg [11:0]   cin_r, cbase;
    reg [7:0]    cout_r, depth;
    reg [15:0]   m_r;
    reg [3:0]    ky, kx;
    reg signed [15:0] ybase, xbase;

    // the pass after this one (tap-major; blocks of R channels inside a tap)
    wire [11:0] cb_next  = cbase + R[11:0];
    wire        blk_wrap = cb_next >= cin_r;
    wire        kx_wrap  = kx + 1'b1 == kw;
    wire        last     = blk_wrap && kx_wrap && ky + 1'b1 == kh;
    wire [11:0] n_cbase  = blk_wrap ? 12'd0 : cb_next;
    wire [3:0]  n_kx     = !blk_wrap ? kx : kx_wrap ? 4'd0 : kx + 1'b1;
    wire [3:0]  n_ky     = (blk_wrap && kx_wrap) ? ky + 1'b1 : ky;
    wire signed [15:0] n_xbase = !blk_wrap ? xbase :
                                 kx_wrap ? -$signed({12'd0, pl}) : xbase + $signed({12'd0, dw});
    wire signed [15:0] n_ybase = (blk_wrap && kx_wrap) ? ybase + $signed({12'd0, dh}) : ybase;
    // weights are kh x kw x cin x cout: consecutive passes' rows are contiguous
    wire [AW-1:0] n_wbase = wbase + depth * cout_r;
    wire [7:0]    n_depth = min_depth(cin_r - n_cbase);

    wire conv_first = take && is_conv && conv_ok;
    wire own_one    = take && (is_cfg || (is_conv && !conv_ok));
    // WB = 2: the next pass goes to the engine as soon as it takes one; the engine's done is
    // the last pass's last row
    wire eng_pass_ready, eng_st_start;
    wire l_more, l_n_last, l_first_last;
    wire [AW-1:0] l_n_wbase;
    wire [7:0]    l_n_depth;
    wire conv_next  = (WB != 1) ? (state == CONV && eng_pass_ready && l_more) :
                                  (state == CONV && eng_done && !last);
    // the stream walk steps (WB = 2: when the engine streams a pass after the first)
    reg  s_first;
    wire s_step = (WB != 1) ? (eng_st_start && !s_first) : conv_next;

    assign done    = state == ONE || (state == FWD && eng_done) ||
                     (state == CONV && eng_done && (WB != 1 || last));
    assign ready   = state == IDLE || done;
    assign busy    = state != IDLE;
    assign illegal = (state == ONE && bad) || (state == FWD && eng_illegal);

    wire         eng_start = (take && !own_one) || conv_next;
    wire [127:0] eng_instr =
        conv_first ? gemm_word(`F_CONV_WBUF(instr), `F_CONV_ABUF(instr), m_in[15:0],
                               min_depth(cin_in), cout_in, `F_CONV_ACC(instr)) :
        conv_next  ? ((WB != 1) ? gemm_word(l_n_wbase, abuf_r, m_r, l_n_depth, cout_r, 1'b1) :
                                  gemm_word(n_wbase, abuf_r, m_r, n_depth, cout_r, 1'b1)) :
        instr;
    // the pass handed over is the instruction's last: a gemm's one, a conv's by the load walk
    wire eng_last = conv_first ? l_first_last : conv_next ? l_n_last : 1'b1;

    always @(posedge clk) begin
        if (rst) begin
            state <= IDLE;
            bad <= 1'b0;
        end else if (take) begin
            state <= own_one ? ONE : is_conv ? CONV : FWD;
            bad   <= (is_cfg && !cfg_ok) || (is_conv && !conv_ok);
            if (conv_first) begin
                ibuf_r <= `F_CONV_IBUF(instr);  abuf_r <= `F_CONV_ABUF(instr);
                wbase  <= `F_CONV_WBUF(instr);
                in_h_r <= in_h_in;  in_w_r <= in_w_in;  ow_r <= ow_in[9:0];
                cin_r  <= cin_in;   cout_r <= cout_in;  m_r <= m_in[15:0];
                depth  <= min_depth(cin_in);
                cbase  <= 12'd0;  ky <= 4'd0;  kx <= 4'd0;
                ybase  <= -$signed({12'd0, pt});
                xbase  <= -$signed({12'd0, pl});
            end
        end else begin
            if (s_step) begin
                wbase <= n_wbase;  depth <= n_depth;  cbase <= n_cbase;
                ky <= n_ky;  kx <= n_kx;  ybase <= n_ybase;  xbase <= n_xbase;
            end
            if (done) state <= IDLE;
        end
        // WB = 2: the first pass's stream starts from the walk's first position
        if (rst || (eng_st_start && !conv_first)) s_first <= 1'b0;
        else if (conv_first) s_first <= 1'b1;
    end

    // ---------------------------------------------------------------- the load walk (WB = 2)
    generate
        if (WB != 1) begin : g_load_walk
            reg [AW-1:0] l_wbase;
            reg [11:0]   l_cbase;
            reg [7:0]    l_depth;
            reg [3:0]    l_ky, l_kx;
            reg          l_done;   // the last pass has been handed over
            wire [11:0] l_cb_next  = l_cbase + R[11:0];
            wire        l_blk_wrap = l_cb_next >= cin_r;
            wire        l_kx_wrap  = l_kx + 1'b1 == kw;
            wire [11:0] l_n_cbase  = l_blk_wrap ? 12'd0 : l_cb_next;
            wire [3:0]  l_n_kx     = !l_blk_wrap ? l_kx : l_kx_wrap ? 4'd0 : l_kx + 1'b1;
            wire [3:0]  l_n_ky     = (l_blk_wrap && l_kx_wrap) ? l_ky + 1'b1 : l_ky;
            assign l_n_wbase    = l_wbase + l_depth * cout_r;
            assign l_n_depth    = min_depth(cin_r - l_n_cbase);
            assign l_n_last     = l_n_cbase + R[11:0] >= cin_r && l_n_kx + 1'b1 == kw &&
                                  l_n_ky + 1'b1 == kh;
            assign l_first_last = R[11:0] >= cin_in && kw == 4'd1 && kh == 4'd1;
            assign l_more       = !l_done;
            always @(posedge clk) begin
                if (conv_first) begin
                    l_wbase <= `F_CONV_WBUF(instr);
                    l_depth <= min_depth(cin_in);
                    l_cbase <= 12'd0;  l_ky <= 4'd0;  l_kx <= 4'd0;
                    l_done  <= l_first_last;
                end else if (conv_next) begin
                    l_wbase <= l_n_wbase;  l_depth <= l_n_depth;  l_cbase <= l_n_cbase;
                    l_ky <= l_n_ky;  l_kx <= l_n_kx;
                    l_done <= l_n_last;
                end
            end
        end else begin : g_no_load_walk
            assign l_n_wbase = {AW{1'b0}};
            assign l_n_depth = 8'd0;
            assign l_n_last = 1'b1;
            assign l_first_last = 1'b1;
            assign l_more = 1'b0;
        end
    endgenerate

    // ---------------------------------------------------------------- datapath
    wire [R*AW-1:0] eng_ibuf_addr, col_addr;
    wire            in_tile;
    wire            conv_mode = state == CONV;

    // WB = 1: a pass starts with its load, which the walker waits out; WB = 2: when it streams
    wire               im_init  = (WB != 1) ? (eng_st_start && conv_mode) :
                                              (conv_first || conv_next);
    wire [7:0]         im_k     = (WB != 1) ? 8'd0 : conv_first ? min_depth(cin_in) : n_depth;
    wire signed [15:0] im_ybase = (WB != 1) ? (s_first ? ybase : n_ybase) :
                                  (conv_first ? -$signed({12'd0, pt}) : n_ybase);
    wire signed [15:0] im_xbase = (WB != 1) ? (s_first ? xbase : n_xbase) :
                                  (conv_first ? -$signed({12'd0, pl}) : n_xbase);
    conv_im2col #(.R(R), .AW(AW)) u_im2col (
        .clk(clk), .init(im_init), .k(im_k), .ybase(im_ybase), .xbase(im_xbase),
        .ibuf(ibuf_r), .in_h(in_h_r), .in_w(in_w_r), .cin(cin_r), .cbase(cbase), .ow(ow_r),
        .sh(sh), .sw(sw), .addr(col_addr), .in_tile(in_tile));

    assign ibuf_addr = conv_mode ? col_addr : eng_ibuf_addr;
    // im2col inserts literal zeros for positions in the padding (isa.semantics.conv2d)
    wire [R*8-1:0] eng_ibuf_data = (conv_mode && !in_tile) ? {R*8{1'b0}} : ibuf_data;

    // The engine's ready and busy follow from this unit's own state (FWD, CONV passes).
    /* verilator lint_off PINCONNECTEMPTY */
    matrix_engine #(.R(R), .C(C), .AW(AW), .WB(WB)) u_engine (
        .clk(clk), .rst(rst), .start(eng_start), .instr(eng_instr),
        .pass_next(conv_next), .pass_last(eng_last), .pass_ready(eng_pass_ready),
        .st_start(eng_st_start),
        .ready(), .busy(), .done(eng_done), .illegal(eng_illegal),
        .ibuf_addr(eng_ibuf_addr), .ibuf_data(eng_ibuf_data),
        .wbuf_addr(wbuf_addr), .wbuf_data(wbuf_data),
        .abuf_rd_addr(abuf_rd_addr), .abuf_rd_data(abuf_rd_data),
        .abuf_wr_en(abuf_wr_en), .abuf_wr_addr(abuf_wr_addr), .abuf_wr_data(abuf_wr_data));
    /* verilator lint_on PINCONNECTEMPTY */
endmodule
`default_nettype wire
