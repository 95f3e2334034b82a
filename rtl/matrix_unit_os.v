// The core's matrix unit on the output-stationary array (the Target's -dataflow=os): the
// conv_* registers (cfg), gemm, and conv as ONE pass of m = oh*ow output pixels with the whole
// kh*kw*cin window streamed per fold, through an im2col that gives each row lane its own pixel.
// Cycles: cfg 1; gemm matrix_gemm_os (wt = 1: weights stored n x k, as matrix_engine); conv matrix_conv_os = ceil(oh*ow / R) * (kh*kw*cin +
// R + C - 1). The same ports as matrix_unit (weight-stationary); npu_core's OS picks one.
//
// Stream step t of a fold is (ky, kx, ch), channel innermost: weight row t is wbuf + t*n
// (kh x kw x cin x cout row-major, as gemm's k x n), and lane r reads its pixel p = i0 + r,
// (oy, ox) = (p / ow, p % ow), through tap (ky, kx) at channel ch:
//   ibuf + ((oy*sh + ky*dh - pt) * in_w + ox*sw + kx*dw - pl) * cin + ch,  zero outside the tile.
`default_nettype none
module matrix_unit_os #(
    parameter integer R  = 4,
    parameter integer C  = 4,
    parameter integer AW = 20
) (
`define MU_IBUF_LANES R
`include "matrix_unit_ports.vh"
);
/* verilator lint_off UNUSEDPARAM */  // the generated header declares every ISA constant
`include "npu_isa.vh"
/* verilator lint_on UNUSEDPARAM */

    localparam integer MW = GEMM_M_W;  // m of a gemm, and oh*ow of a conv (checked to fit)
    localparam integer TW = 20;        // stream depth: gemm k (8 bits), conv kh*kw*cin (20)

    // ---------------------------------------------------------------- decode
    wire [9:0]  in_h_in = `F_CONV_IN_H(instr);
    wire [9:0]  in_w_in = `F_CONV_IN_W(instr);
    wire [11:0] cin_in  = `F_CONV_CIN(instr);
`include "conv_regs.vh"
    wire        is_conv = op_in == OP_CONV;
    wire        is_gemm = op_in == OP_GEMM;
    wire        conv_ok = window_ok;
    wire [TW-1:0] t_conv = {12'd0, kh} * {12'd0, kw} * {8'd0, cin_in};

    // ---------------------------------------------------------------- control
    localparam [1:0] IDLE = 2'd0, ONE = 2'd1, RUN = 2'd2;
    reg [1:0] state;
    reg       bad;
    wire      take    = start && ready;
    wire      own_one = take && !is_gemm && !(is_conv && conv_ok);
    wire      arr_go  = take && !own_one;
    wire      arr_done;

    assign done    = state == ONE || (state == RUN && arr_done);
    assign ready   = state == IDLE || done;
    assign busy    = state != IDLE;
    assign illegal = state == ONE && bad;

    // the instruction in flight
    reg          conv_mode, acc_r, wt_r;
    reg [AW-1:0] ibuf_r, w_base, w_ptr, o_ptr, a_ptr;
    reg [7:0]    n_r;
    reg [7:0]    k_r;       // a gemm's k (its input row stride)
    reg [9:0]    in_h_r, in_w_r, ow_r;
    reg [11:0]   cin_r;
    // conv stream counters: step (ky, kx, ch), tap offsets ty = ky*dh - pt, tx = kx*dw - pl
    reg [3:0]    ky, kx;
    reg [11:0]   ch;
    reg signed [15:0] ty, tx;
    // pixel of row lane 0 in this fold
    reg [9:0]    oy0, ox0;

    wire a_req, fold_end, out_step, out_valid;
    wire [C*32-1:0] out_data;
    wire [R*8-1:0]  a_bytes;
    wire [C*8-1:0]  w_bytes;

    wire [AW-1:0] n_step = {{(AW-8){1'b0}}, n_r};
    wire [AW-1:0] k_step = {{(AW-8){1'b0}}, k_r};

    // the pixel lane R (one past the last) would have: lane 0 of the next fold
    wire [9:0] oy_next, ox_next;

    always @(posedge clk) begin
        if (rst) begin
            state <= IDLE;
            bad <= 1'b0;
        end else if (take) begin
            state <= own_one ? ONE : RUN;
            bad   <= !is_cfg ? 1'b1 : !cfg_ok;  // a cfg of the conv_* registers is the only good one-cycle word
            conv_mode <= is_conv;
            if (is_gemm) begin
                a_ptr  <= `F_GEMM_IBUF(instr);
                w_base <= `F_GEMM_WBUF(instr);  w_ptr <= `F_GEMM_WBUF(instr);
                o_ptr  <= `F_GEMM_ABUF(instr);
                k_r    <= `F_GEMM_K(instr);
                n_r    <= `F_GEMM_N(instr);
                acc_r  <= `F_GEMM_ACC(instr);
                wt_r   <= `F_GEMM_WT(instr);
            end else begin
                ibuf_r <= `F_CONV_IBUF(instr);
                w_base <= `F_CONV_WBUF(instr);  w_ptr <= `F_CONV_WBUF(instr);
                o_ptr  <= `F_CONV_ABUF(instr);
                n_r    <= `F_CONV_COUT(instr);
                acc_r  <= `F_CONV_ACC(instr);
                wt_r   <= 1'b0;
                in_h_r <= in_h_in;  in_w_r <= in_w_in;  ow_r <= ow_in[9:0];  cin_r <= cin_in;
            end
            ky <= 4'd0;  kx <= 4'd0;  ch <= 12'd0;
            ty <= -$signed({12'd0, pt});  tx <= -$signed({12'd0, pl});
            oy0 <= 10'd0;  ox0 <= 10'd0;
        end else begin
            if (done) state <= IDLE;
            if (fold_end) begin
                // the next fold: its first input row (gemm), pixel (conv), weight row 0
                a_ptr <= a_ptr + (R[AW-1:0] - 1'b1) * k_step;
                oy0 <= oy_next;  ox0 <= ox_next;
                w_ptr <= w_base;
                ky <= 4'd0;  kx <= 4'd0;  ch <= 12'd0;
                ty <= -$signed({12'd0, pt});  tx <= -$signed({12'd0, pl});
            end else if (a_req) begin
                a_ptr <= a_ptr + 1'b1;
                w_ptr <= w_ptr + (wt_r ? {{(AW-1){1'b0}}, 1'b1} : n_step);
                if (ch + 1'b1 != cin_r) begin
                    ch <= ch + 1'b1;
                end else begin
                    ch <= 12'd0;
                    if (kx + 1'b1 != kw) begin
                        kx <= kx + 1'b1;
                        tx <= tx + $signed({12'd0, dw});
                    end else begin
                        kx <= 4'd0;
                        tx <= -$signed({12'd0, pl});
                        ky <= ky + 1'b1;
                        ty <= ty + $signed({12'd0, dh});
                    end
                end
            end
            if (out_step) o_ptr <= o_ptr + n_step;
        end
    end

    // ---------------------------------------------------------------- input lanes
    genvar i;
    generate
        for (i = 0; i < R; i = i + 1) begin : g_in
            // this lane's output pixel: lane 0's, advanced one pixel per lane
            wire [9:0] oy, ox;
            if (i == 0) begin : g_first
                assign oy = oy0;
                assign ox = ox0;
            end else begin : g_next
                wire last_col = g_in[i-1].ox + 1'b1 == ow_r;
                assign oy = last_col ? g_in[i-1].oy + 1'b1 : g_in[i-1].oy;
                assign ox = last_col ? 10'd0 : g_in[i-1].ox + 1'b1;
            end
            wire signed [15:0] iy = $signed({2'd0, {4'd0, oy} * {10'd0, sh}}) + ty;
            wire signed [15:0] ix = $signed({2'd0, {4'd0, ox} * {10'd0, sw}}) + tx;
            wire in_tile = iy >= 0 && ix >= 0 && iy < $signed({6'd0, in_h_r}) &&
                           ix < $signed({6'd0, in_w_r});
            // (addresses wrap at AW bits, as the buffers' address fields do; only used in_tile)
            wire [AW-1:0] iyu = {{(AW-16){1'b0}}, iy};
            wire [AW-1:0] ixu = {{(AW-16){1'b0}}, ix};
            wire [AW-1:0] pix = iyu * {{(AW-10){1'b0}}, in_w_r} + ixu;
            wire [AW-1:0] conv_addr = ibuf_r + pix * {{(AW-12){1'b0}}, cin_r} +
                                      {{(AW-12){1'b0}}, ch};
            assign ibuf_addr[AW*i +: AW] = conv_mode ? conv_addr : a_ptr + i * k_step;
            // im2col inserts literal zeros for positions in the padding (isa.semantics.conv2d)
            assign a_bytes[8*i +: 8] = (conv_mode && !in_tile) ? 8'd0 : ibuf_data[8*i +: 8];
        end
    endgenerate
    wire last_col_r = g_in[R-1].ox + 1'b1 == ow_r;
    assign oy_next = last_col_r ? g_in[R-1].oy + 1'b1 : g_in[R-1].oy;
    assign ox_next = last_col_r ? 10'd0 : g_in[R-1].ox + 1'b1;

    // ---------------------------------------------------------------- weights and outputs
    generate
        for (i = 0; i < C; i = i + 1) begin : g_col
            wire used = i < n_r;
            wire [31:0] sum = out_data[32*i +: 32];
            assign wbuf_addr[AW*i +: AW]    = w_ptr + (wt_r ? i * k_step : i);
            assign w_bytes[8*i +: 8]        = used ? wbuf_data[8*i +: 8] : 8'd0;
            assign abuf_rd_addr[AW*i +: AW] = o_ptr + i;
            assign abuf_wr_addr[AW*i +: AW] = o_ptr + i;
            assign abuf_wr_en[i]            = out_valid && used;
            assign abuf_wr_data[32*i +: 32] = acc_r ? abuf_rd_data[32*i +: 32] + sum : sum;
        end
    endgenerate

    wire [MW-1:0] arr_m = is_conv ? m_in[MW-1:0] : `F_GEMM_M(instr);
    wire [TW-1:0] t_in = is_conv ? t_conv : {{(TW-8){1'b0}}, `F_GEMM_K(instr)};

    /* verilator lint_off PINCONNECTEMPTY */
    systolic_array_os #(.R(R), .C(C), .MW(MW), .KW(TW)) u_array (
        .clk(clk), .rst(rst), .start(arr_go), .m(arr_m), .k(t_in), .ready(), .busy(),
        .a_req(a_req), .a_data(a_bytes), .w_data(w_bytes), .fold_end(fold_end),
        .out_step(out_step), .out_valid(out_valid), .out_data(out_data), .done(arr_done));
    /* verilator lint_on PINCONNECTEMPTY */
endmodule
`default_nettype wire
