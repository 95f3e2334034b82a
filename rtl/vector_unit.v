// Vector unit: every VECTOR instruction on L lanes over the buffer memories, and the pool_*
// config registers (written by cfg). Cycle-exact to npusim.timing:
//   elementwise  P + ceil(len / L)     vrequant  P + 2 + bias + ceil(len / L)
//   pooling      P + oh*ow*kh*kw*ceil(c / L)     cfg  1
//   row-wise     P + rows*ceil(cols / L)         vrmul  P + 2 + rows*ceil(cols / L)
//   vexp / vrecip / vrsqrt   P + 5 / 7 / 10 + ceil(len / L)
//
// Row-wise instructions (vrmax, vrsum, vrsub, vrmul) walk a rows x cols tile one row at a
// time, L elements of the row per token (a row's last token masks its idle lanes); src1[r]
// is one address all lanes read; a reduction folds its row across the lanes and tokens and
// writes dst[r] from lane 0 with the row's last token. vrmul takes vrequant's two stages;
// vexp/vrecip/vrsqrt compute in the lane and then cross a delay line of their extra stages.
//
// An issue stage emits one token per cycle (L elements, or for pooling L channels of one
// window element); tokens cross a P-stage pipeline, then read their operands (combinational
// simple-memory lanes), compute and write in one cycle; vrequant adds its multiply and
// rounding stages before the write; with its bias field, a bias-add stage before those
// (src1 then holds (bias, mult, shift) triples, read on ports d, b, c).
// `done` marks the edge that writes the last result.
// Sources are read when their token reaches the read stage, so a destination that partly
// overlaps a source (other than exactly in place) sees its earlier chunks' results.
`default_nettype none
module vector_unit #(
    parameter integer L  = 4,   // lanes
    parameter integer P  = 2,   // pipeline latency (Target vector_pipeline)
    parameter integer AW = 20
) (
    input  wire            clk,
    input  wire            rst,
    input  wire            start,
    /* verilator lint_off UNUSEDSIGNAL */  // the unit decodes only its instructions' fields
    input  wire [127:0]    instr,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire            ready,
    output wire            busy,
    output wire            done,
    output wire            illegal,    // with done: an opcode or register this unit lacks
    // src0 lanes, src1 lanes (elementwise operand, bias, table, multiplier), shift lanes
    output wire [1:0]      rd_a_sel,
    output wire [L*AW-1:0] rd_a_addr,
    input  wire [L*32-1:0] rd_a_data,
    output wire [1:0]      rd_b_sel,
    output wire [L*AW-1:0] rd_b_addr,
    input  wire [L*32-1:0] rd_b_data,
    output wire [1:0]      rd_c_sel,
    output wire [L*AW-1:0] rd_c_addr,
    input  wire [L*32-1:0] rd_c_data,
    output wire [1:0]      rd_d_sel,   // vrequant bias=1: the bias lanes
    output wire [L*AW-1:0] rd_d_addr,
    input  wire [L*32-1:0] rd_d_data,
    output wire [1:0]      wr_sel,
    output wire [L-1:0]    wr_en,
    output wire [L*AW-1:0] wr_addr,
    output wire [L*32-1:0] wr_data
);
/* verilator lint_off UNUSEDPARAM */  // the generated header declares every ISA constant
`include "npu_isa.vh"
/* verilator lint_on UNUSEDPARAM */

    localparam integer CW = 12;  // channel counts (the channels fields)
    localparam integer SW = 14;  // signed pooling coordinates: -15 .. 1023 + 255
    localparam [AW-1:0] L_A = L[AW-1:0];  // the lane count at the widths it is added to
    localparam [16:0]   L_R = L[16:0];
    localparam [CW:0]   L_C = L[CW:0];

    // ---------------------------------------------------------------- decode
    wire [7:0] op_in   = `F_OPCODE(instr);
    wire in_pool   = op_in == OP_VMAXPOOL || op_in == OP_VSUMPOOL;
    // rowbcast shares binary's operand layout (rows where len is), rowreduce unary's
    // (rtl_tests/test_decode.py); cols sits where vrequant's channels does
    wire in_binary = op_in == OP_VADD || op_in == OP_VSUB || op_in == OP_VMUL ||
                     op_in == OP_VMAX || op_in == OP_VMIN || op_in == OP_VREQUANT ||
                     op_in == OP_VBIAS || op_in == OP_VLUT || op_in == OP_VRSUB ||
                     op_in == OP_VRMUL;
    wire in_unary  = op_in == OP_VRELU || op_in == OP_VCLIP || op_in == OP_VSHR ||
                     op_in == OP_VCOPY || op_in == OP_VRMAX || op_in == OP_VRSUM ||
                     op_in == OP_VEXP || op_in == OP_VRECIP || op_in == OP_VRSQRT;
    wire in_cfg    = op_in == OP_CFG;
    wire [7:0] cfg_reg = `F_CFG_REG(instr);
    /* verilator lint_off UNUSEDSIGNAL */  // pool_* registers hold at most 8 bits of it
    wire [31:0] cfg_value = `F_CFG_VALUE(instr);
    /* verilator lint_on UNUSEDSIGNAL */

    // operands by format (formats.binary / unary / pool of the spec), each by its own macro
    wire [1:0]    dst_buf_in  = in_pool ? `F_VMAXPOOL_DST_BUF(instr)
                              : in_unary ? `F_VRELU_DST_BUF(instr) : `F_VADD_DST_BUF(instr);
    wire [AW-1:0] dst_in      = in_pool ? `F_VMAXPOOL_DST(instr)
                              : in_unary ? `F_VRELU_DST(instr) : `F_VADD_DST(instr);
    wire [1:0]    src0_buf_in = in_pool ? `F_VMAXPOOL_SRC0_BUF(instr)
                              : in_unary ? `F_VRELU_SRC0_BUF(instr) : `F_VADD_SRC0_BUF(instr);
    wire [AW-1:0] src0_in     = in_pool ? `F_VMAXPOOL_SRC0(instr)
                              : in_unary ? `F_VRELU_SRC0(instr) : `F_VADD_SRC0(instr);
    wire [15:0]   len_in      = in_pool ? 16'd0
                              : in_unary ? `F_VRELU_LEN(instr) : `F_VADD_LEN(instr);
    wire in_pool_reg = cfg_reg >= REG_POOL_KH[7:0] && cfg_reg <= REG_POOL_PAD_RIGHT[7:0];

    localparam [1:0] IDLE = 2'd0, ONE = 2'd1, RUN = 2'd2;
    reg [1:0] state;
    reg       bad;
    wire      take = start && ready;
    wire      final_write;
    assign done    = (state == ONE) || (state == RUN && final_write);
    assign ready   = state == IDLE || done;
    assign busy    = state != IDLE;
    assign illegal = state == ONE && bad;

    // instruction fields, held while it runs (formats.binary/unary/pool share their layout)
    reg [7:0]    op;
    reg [1:0]    dst_buf, src0_buf, src1_buf;
    reg [AW-1:0] src0, src1;
    reg [15:0]   lo, hi;
    reg [4:0]    shamt;
    reg [CW-1:0] channels;
    reg [7:0]    zp;
    reg          relu;
    reg          rq_bias;               // vrequant's bias field
    reg [9:0]    in_h, in_w;
    reg [4:0]    in_frac, out_frac, rm_shift;
    reg [AW-1:0] dst0;                  // row-wise: dst, where a reduction's dst[r] starts

    // pool_* registers (cfg unit=vector), at their spec reset values
    reg [7:0] pool_kh, pool_kw, pool_sh, pool_sw;
    reg [3:0] pool_pt, pool_pl, pool_pb, pool_pr;

    always @(posedge clk) begin
        if (rst) begin
            state <= IDLE;
            bad   <= 1'b0;
            pool_kh <= REG_POOL_KH_RESET[7:0];         pool_kw <= REG_POOL_KW_RESET[7:0];
            pool_sh <= REG_POOL_STRIDE_H_RESET[7:0];   pool_sw <= REG_POOL_STRIDE_W_RESET[7:0];
            pool_pt <= REG_POOL_PAD_TOP_RESET[3:0];    pool_pl <= REG_POOL_PAD_LEFT_RESET[3:0];
            pool_pb <= REG_POOL_PAD_BOTTOM_RESET[3:0]; pool_pr <= REG_POOL_PAD_RIGHT_RESET[3:0];
        end else if (take) begin
            op  <= op_in;
            bad <= !(in_pool || in_binary || in_unary || (in_cfg && in_pool_reg));
            state <= (in_pool || in_binary || in_unary) ? RUN : ONE;
            if (in_cfg && in_pool_reg)
                case (cfg_reg)
                    REG_POOL_KH[7:0]:         pool_kh <= cfg_value[7:0];
                    REG_POOL_KW[7:0]:         pool_kw <= cfg_value[7:0];
                    REG_POOL_STRIDE_H[7:0]:   pool_sh <= cfg_value[7:0];
                    REG_POOL_STRIDE_W[7:0]:   pool_sw <= cfg_value[7:0];
                    REG_POOL_PAD_TOP[7:0]:    pool_pt <= cfg_value[3:0];
                    REG_POOL_PAD_LEFT[7:0]:   pool_pl <= cfg_value[3:0];
                    REG_POOL_PAD_BOTTOM[7:0]: pool_pb <= cfg_value[3:0];
                    default:                  pool_pr <= cfg_value[3:0];
                endcase
            dst_buf  <= dst_buf_in;
            src0_buf <= src0_buf_in;
            src0     <= src0_in;
            dst0     <= dst_in;
            if (in_pool) begin
                in_h <= `F_VMAXPOOL_IN_H(instr);         in_w <= `F_VMAXPOOL_IN_W(instr);
                channels <= `F_VMAXPOOL_CHANNELS(instr);
            end else if (in_unary) begin
                lo <= `F_VCLIP_LO(instr);                hi <= `F_VCLIP_HI(instr);
                shamt <= `F_VSHR_SHIFT(instr);
                in_frac <= `F_VEXP_IN_FRAC(instr);       out_frac <= `F_VEXP_OUT_FRAC(instr);
                channels <= `F_VRMAX_COLS(instr);
            end else begin
                src1_buf <= `F_VADD_SRC1_BUF(instr);     src1 <= `F_VADD_SRC1(instr);
                // vbias and vrequant place channels identically (rtl_tests/test_decode.py)
                channels <= `F_VREQUANT_CHANNELS(instr);
                zp <= `F_VREQUANT_ZP(instr);             relu <= `F_VREQUANT_RELU(instr);
                rq_bias <= `F_VREQUANT_BIAS(instr);
                rm_shift <= `F_VRMUL_SHIFT(instr);
            end
        end else if (done) begin
            state <= IDLE;
        end
    end

    wire is_pool    = op == OP_VMAXPOOL || op == OP_VSUMPOOL;
    wire is_requant = op == OP_VREQUANT;
    wire is_two     = is_requant || op == OP_VRMUL;  // the multiply + rounding stages
    wire is_fused   = is_requant && rq_bias;         // and the bias-add stage before them
    wire is_reduce  = op == OP_VRMAX || op == OP_VRSUM;
    wire is_row     = is_reduce || op == OP_VRSUB || op == OP_VRMUL;
    wire is_nl      = op == OP_VEXP || op == OP_VRECIP || op == OP_VRSQRT;
    // extra stages of vexp / vrecip / vrsqrt (isa.timing EXP/RECIP/RSQRT_EXTRA_STAGES)
    localparam integer NL_MAX = 10;
    wire [3:0] nl_stages = op == OP_VEXP ? 4'd5 : op == OP_VRECIP ? 4'd7 : 4'd10;

    // channel c of lane l of a chunk whose lane 0 is channel c0: (c0 + l) mod channels,
    // stepped lane by lane so channels < L wraps correctly
    function [CW-1:0] ch_next;
        input [CW-1:0] c;
        input [CW-1:0] n;
        ch_next = (c + 1'b1 == n) ? {CW{1'b0}} : c + 1'b1;
    endfunction

    // ---------------------------------------------------------------- issue stage
    reg           iss;                 // emitting tokens
    reg  [16:0]   rem;                 // elementwise: elements not yet issued
    reg  [AW-1:0] a_ptr, b_ptr, d_ptr;
    reg  [CW-1:0] c0;
    // pooling loop: kx, ky innermost, then the channel chunk cb, then ox, oy
    reg  [7:0]    kx, ky;
    reg  [CW-1:0] cb;
    reg  signed [SW-1:0] x0, y0;       // window origin in input coordinates (may be < 0)
    reg  [AW-1:0] d_pix;               // dst address of the current output pixel

    wire [CW-1:0] iss_ch [0:L] /*verilator split_var*/;  // a chain across lanes, not a loop
    assign iss_ch[0] = c0;
    genvar l;
    generate
        for (l = 0; l < L; l = l + 1) begin : g_issch
            assign iss_ch[l+1] = ch_next(iss_ch[l], channels);
        end
    endgenerate

    wire kx_last = kx == pool_kw - 1'b1;
    wire ky_last = ky == pool_kh - 1'b1;
    wire cb_last = {1'b0, cb} + L_C >= {1'b0, channels};
    wire signed [SW-1:0] x_next = x0 + $signed({6'd0, pool_sw});
    wire signed [SW-1:0] y_next = y0 + $signed({6'd0, pool_sh});
    wire ox_last = x_next + $signed({6'd0, pool_kw}) > $signed({4'd0, in_w}) + $signed({10'd0, pool_pr});
    wire oy_last = y_next + $signed({6'd0, pool_kh}) > $signed({4'd0, in_h}) + $signed({10'd0, pool_pb});
    wire signed [SW-1:0] iy = y0 + $signed({6'd0, ky});
    wire signed [SW-1:0] ix = x0 + $signed({6'd0, kx});
    wire pool_inb = iy >= 0 && iy < $signed({4'd0, in_h}) && ix >= 0 && ix < $signed({4'd0, in_w});
    // pixel index of (iy, ix), meaningful only when pool_inb (both then >= 0)
    wire [AW-1:0] pix = {{(AW-SW){1'b0}}, iy} * in_w + {{(AW-SW){1'b0}}, ix};

    // row-wise walk: rrem rows left, crem elements left of the current row (of `channels`
    // = cols), row r of the tile
    reg  [16:0]   rrem;
    reg  [CW:0]   crem;
    reg  [AW-1:0] row;
    wire          row_end = crem <= L_C;
    wire [AW-1:0] row_step = row_end ? {{(AW-CW-1){1'b0}}, crem} : L_A;
    wire          t_last = is_pool ? (kx_last && ky_last && cb_last && ox_last && oy_last)
                         : is_row  ? (rrem == 17'd1 && row_end)
                                   : rem <= L_R;
    wire [L-1:0]  t_mask;
    generate
        for (l = 0; l < L; l = l + 1) begin : g_mask
            localparam [CW:0] LC = l;
            localparam [16:0] LR = l;
            assign t_mask[l] = is_pool ? ({1'b0, cb} + LC < {1'b0, channels})
                             : is_row  ? (crem > LC) : (rem > LR);
        end
    endgenerate

    wire [AW-1:0] cb_a = {{(AW-CW){1'b0}}, cb};
    wire [AW-1:0] ch_a = {{(AW-CW){1'b0}}, channels};

    // token: {last, wr, first, inb, a_addr, b_addr, d_addr, c0, mask}
    localparam integer TW = 4 + 3 * AW + CW + L;
    // row-wise: wr marks a reduction's row end, first a row's first token; b = src1 + r
    wire          row_first = crem == {1'b0, channels};
    wire [TW-1:0] tok_in = is_pool
        ? {t_last, kx_last && ky_last, kx == 8'd0 && ky == 8'd0, pool_inb,
           src0 + pix * channels + cb_a, {AW{1'b0}}, d_pix + cb_a, {CW{1'b0}}, t_mask}
        : is_row
        ? {t_last, !is_reduce || row_end, row_first, 1'b1, a_ptr, src1 + row,
           is_reduce ? dst0 + row : d_ptr, {CW{1'b0}}, t_mask}
        : {t_last, 1'b1, 1'b1, 1'b1, a_ptr, b_ptr, d_ptr, c0, t_mask};

    always @(posedge clk) begin
        if (rst) begin
            iss <= 1'b0;
        end else if (take) begin
            iss   <= in_pool || in_binary || in_unary;
            rem   <= {1'b0, len_in};
            a_ptr <= src0_in;
            b_ptr <= `F_VADD_SRC1(instr);
            d_ptr <= dst_in;
            d_pix <= dst_in;
            c0 <= {CW{1'b0}};
            kx <= 8'd0; ky <= 8'd0; cb <= {CW{1'b0}};
            x0 <= -$signed({10'd0, pool_pl});
            y0 <= -$signed({10'd0, pool_pt});
            rrem <= {1'b0, `F_VRMAX_ROWS(instr)};
            crem <= {1'b0, `F_VRMAX_COLS(instr)};
            row  <= {AW{1'b0}};
        end else if (iss) begin
            if (t_last) iss <= 1'b0;
            rem   <= rem - L_R;
            a_ptr <= a_ptr + (is_row ? row_step : L_A);
            b_ptr <= b_ptr + L_A;
            d_ptr <= d_ptr + (is_row ? row_step : L_A);
            if (row_end) begin
                crem <= {1'b0, channels};
                rrem <= rrem - 17'd1;
                row  <= row + 1'b1;
            end else begin
                crem <= crem - L_C;
            end
            c0    <= iss_ch[L];
            if (!kx_last) kx <= kx + 1'b1;
            else begin
                kx <= 8'd0;
                if (!ky_last) ky <= ky + 1'b1;
                else begin
                    ky <= 8'd0;
                    if (!cb_last) cb <= cb + L_C[CW-1:0];
                    else begin
                        cb <= {CW{1'b0}};
                        d_pix <= d_pix + ch_a;
                        if (!ox_last) x0 <= x_next;
                        else begin
                            x0 <= -$signed({10'd0, pool_pl});
                            y0 <= y_next;
                        end
                    end
                end
            end
        end
    end

    // ---------------------------------------------------------------- P-stage pipeline
    wire [TW-1:0] tok;
    wire          tok_v;
    generate
        if (P == 0) begin : g_nopipe
            assign tok   = tok_in;
            assign tok_v = iss;
        end else begin : g_pipe
            reg [TW-1:0] stage [0:P-1];
            reg [P-1:0]  valid;
            wire [P-1:0] vnext;
            if (P == 1) begin : g_v1
                assign vnext = iss;
            end else begin : g_vn
                assign vnext = {valid[P-2:0], iss};
            end
            integer s;
            always @(posedge clk) begin
                valid <= rst ? {P{1'b0}} : vnext;
                stage[0] <= tok_in;
                for (s = 1; s < P; s = s + 1) stage[s] <= stage[s-1];
            end
            assign tok   = stage[P-1];
            assign tok_v = valid[P-1];
        end
    endgenerate

    wire          r_last  = tok[TW-1];
    wire          r_wr    = tok[TW-2];
    wire          r_first = tok[TW-3];
    wire          r_inb   = tok[TW-4];
    wire [AW-1:0] r_a     = tok[L + CW + 3*AW - 1 -: AW];
    wire [AW-1:0] r_b     = tok[L + CW + 2*AW - 1 -: AW];
    wire [AW-1:0] r_d     = tok[L + CW + AW - 1 -: AW];
    wire [CW-1:0] r_c0    = tok[L + CW - 1 -: CW];
    wire [L-1:0]  r_mask  = tok[L-1:0];

    // ---------------------------------------------------------------- read / compute / write
    wire dst_wide = dst_buf == BUF_ABUF[1:0];
    wire [CW-1:0] rd_ch [0:L] /*verilator split_var*/;
    assign rd_ch[0] = r_c0;
    assign rd_a_sel = src0_buf;
    assign rd_b_sel = src1_buf;
    assign rd_c_sel = src1_buf;
    assign rd_d_sel = src1_buf;

    reg  [47:0]   pool_acc [0:L-1];
    wire [L*32-1:0]  res, rq_res, nl_res;
    wire [L*64-1:0]  rq_prod;
    reg  [L*64-1:0]  s1_prod;
    reg  [L*6-1:0]   s1_shift;
    reg  [L*32-1:0]  s2_res;
    reg  [1:0]       rq_v, rq_last;
    reg  [AW-1:0]    s1_d, s2_d;
    reg  [L-1:0]     s1_mask, s2_mask;
    // the bias-add stage (vrequant bias=1): sums, multipliers, shifts and the token's place
    wire [L*32-1:0]  rq_sum;
    reg  [L*32-1:0]  s0_sum, s0_mult;
    reg  [L*6-1:0]   s0_shift;
    reg              s0_v, s0_last;
    reg  [AW-1:0]    s0_d;
    reg  [L-1:0]     s0_mask;

    generate
        for (l = 0; l < L; l = l + 1) begin : g_lane
            localparam [AW-1:0] LA = l;
            wire [31:0] a = rd_a_data[32*l +: 32];
            wire [47:0] acc_d;
            wire [AW-1:0] ch    = {{(AW-CW){1'b0}}, rd_ch[l]};
            wire [AW-1:0] pair  = {{(AW-CW-1){1'b0}}, rd_ch[l], 1'b0};  // (mult, shift) of ch
            wire [AW-1:0] triple = pair + ch;                           // (bias, mult, shift)
            wire [AW-1:0] entry = {{(AW-8){1'b0}}, a[7] ^ 1'b1, a[6:0]};  // table index a + 128
            assign rd_ch[l+1] = ch_next(rd_ch[l], channels);
            assign rd_a_addr[AW*l +: AW] = r_a + LA;
            assign rd_b_addr[AW*l +: AW] =
                op == OP_VBIAS    ? src1 + ch :
                is_fused          ? src1 + triple + 1'b1 :
                op == OP_VREQUANT ? src1 + pair :
                op == OP_VLUT     ? src1 + entry :
                is_row            ? r_b :
                                    r_b + LA;
            assign rd_c_addr[AW*l +: AW] = is_fused ? src1 + triple + {{(AW-2){1'b0}}, 2'd2}
                                                    : src1 + pair + 1'b1;
            assign rd_d_addr[AW*l +: AW] = src1 + triple;

            vector_lane u_lane (
                .op(op), .dst_wide(dst_wide), .a(a), .b(rd_b_data[32*l +: 32]),
                .lo(lo), .hi(hi), .shamt(shamt),
                .first(r_first), .inb(r_inb), .acc_q(pool_acc[l]), .acc_d(acc_d),
                .res(res[32*l +: 32]),
                .rq_bias(rd_d_data[32*l +: 32]), .rq_sum(rq_sum[32*l +: 32]),
                .rq_fused(is_fused), .rq_sum_q(s0_sum[32*l +: 32]),
                .rq_mult_q(s0_mult[32*l +: 32]),
                .rq_prod(rq_prod[64*l +: 64]), .rq_prod_q(s1_prod[64*l +: 64]),
                .rq_shift_q(s1_shift[6*l +: 6]), .rq_zp(zp), .rq_relu(relu),
                .rq_res(rq_res[32*l +: 32]),
                .in_frac(in_frac), .out_frac(out_frac), .nl_res(nl_res[32*l +: 32]));

            always @(posedge clk) if (tok_v && is_pool) pool_acc[l] <= acc_d;
        end
    endgenerate

    // vrequant: stage 1 registers the products and shifts, stage 2 the rounded results;
    // with bias=1 stage 0 first registers the biased sums, multipliers and shifts, and
    // stage 1 takes its token from there instead of the read stage
    integer i;
    always @(posedge clk) begin
        s0_v    <= rst ? 1'b0 : tok_v && is_fused;
        s0_last <= r_last;
        s0_sum  <= rq_sum;
        s0_mult <= rd_b_data;
        s0_d    <= r_d;
        s0_mask <= r_mask;
        for (i = 0; i < L; i = i + 1)
            s0_shift[6*i +: 6] <= rd_c_data[32*i +: 6];
        rq_v    <= rst ? 2'b00 : {rq_v[0], is_fused ? s0_v : tok_v && is_two};
        rq_last <= {rq_last[0], is_fused ? s0_last : r_last};
        s1_prod <= rq_prod;
        s1_d    <= is_fused ? s0_d : r_d;
        s1_mask <= is_fused ? s0_mask : r_mask;
        s2_res  <= rq_res;
        s2_d    <= s1_d;
        s2_mask <= s1_mask;
        for (i = 0; i < L; i = i + 1)
            s1_shift[6*i +: 6] <= is_fused ? s0_shift[6*i +: 6]
                                : is_requant ? rd_c_data[32*i +: 6] : {1'b0, rm_shift};
    end

    // vrmax / vrsum: the token's unmasked lanes folded (a chain across lanes), onto the row's
    // running value unless the token starts a row; 48 bits hold a sum of 4095 int32 values
    wire signed [47:0] red_id = op == OP_VRMAX ? {1'b1, 47'd0} : 48'sd0;
    reg  signed [47:0] red_q;
    wire signed [47:0] red [0:L] /*verilator split_var*/;
    assign red[0] = r_first ? red_id : red_q;
    generate
        for (l = 0; l < L; l = l + 1) begin : g_red
            wire signed [47:0] v = {{16{rd_a_data[32*l+31]}}, rd_a_data[32*l +: 32]};
            assign red[l+1] = !r_mask[l] ? red[l]
                            : op == OP_VRMAX ? ((v > red[l]) ? v : red[l]) : red[l] + v;
        end
    endgenerate
    always @(posedge clk) if (tok_v && is_reduce) red_q <= red[L];
    wire signed [63:0] red_wide = {{16{red[L][47]}}, red[L]};
    wire [31:0] red_res = (dst_buf == BUF_ABUF[1:0])
        ? ((red_wide > 64'sd2147483647) ? 32'h7FFF_FFFF :
           (red_wide < -64'sd2147483648) ? 32'h8000_0000 : red_wide[31:0])
        : ((red_wide > 64'sd127) ? 32'h0000_007F :
           (red_wide < -64'sd128) ? 32'hFFFF_FF80 : red_wide[31:0]);

    // vexp / vrecip / vrsqrt: the lanes' results cross nl_stages registers before the write
    reg [L*32-1:0] nl_data [0:NL_MAX-1];
    reg [AW-1:0]   nl_d    [0:NL_MAX-1];
    reg [L-1:0]    nl_m    [0:NL_MAX-1];
    reg [NL_MAX-1:0] nl_v, nl_last;
    integer j;
    always @(posedge clk) begin
        // cleared when an instruction starts: the previous one's results left through its
        // own tap, and what shifted past it must not look valid at a deeper tap
        nl_v    <= (rst || take) ? {NL_MAX{1'b0}} : {nl_v[NL_MAX-2:0], tok_v && is_nl};
        nl_last <= {nl_last[NL_MAX-2:0], r_last};
        nl_data[0] <= nl_res;
        nl_d[0]    <= r_d;
        nl_m[0]    <= r_mask;
        for (j = 1; j < NL_MAX; j = j + 1) begin
            nl_data[j] <= nl_data[j-1];
            nl_d[j]    <= nl_d[j-1];
            nl_m[j]    <= nl_m[j-1];
        end
    end
    wire [3:0]       nl_tap   = nl_stages - 4'd1;
    wire             nl_out_v = nl_v[nl_tap];

    assign final_write = is_two ? (rq_v[1] && rq_last[1])
                       : is_nl  ? (nl_out_v && nl_last[nl_tap]) : (tok_v && r_last);
    assign wr_sel  = dst_buf;
    assign wr_en   = is_two    ? (rq_v[1] ? s2_mask : {L{1'b0}})
                   : is_nl     ? (nl_out_v ? nl_m[nl_tap] : {L{1'b0}})
                   : is_reduce ? {{(L-1){1'b0}}, tok_v && r_wr}
                               : ((tok_v && r_wr) ? r_mask : {L{1'b0}});
    generate
        for (l = 0; l < L; l = l + 1) begin : g_wr
            assign wr_addr[AW*l +: AW] = (is_two ? s2_d : is_nl ? nl_d[nl_tap] : r_d) + l;
        end
    endgenerate
    assign wr_data = is_two ? s2_res : is_nl ? nl_data[nl_tap]
                   : is_reduce ? {{(L*32-32){1'b0}}, red_res} : res;
endmodule
`default_nettype wire
