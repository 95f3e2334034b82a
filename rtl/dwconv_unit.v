// The matrix unit's depthwise mode (-depthwise-mode=1): the conv_* registers (cfg) and dwconv,
// run as back-to-back passes of up to R taps on systolic_array_dw. Column c is channel c, PE
// row r tap t0 + r of the pass; each PE reads its own input lane. Cycles: cfg 1; dwconv =
// npusim.timing.matrix_dwconv = sum over passes of (k + oh*ow + R + C - 1).
//
// Addressing (docs/codegen.md, "Depthwise mode"): one im2col walker steps through the output
// pixels once per pass, giving each pixel's input row and column (y, x = oy*sh - pt, ox*sw - pl)
// and element address; an (R + C - 1)-deep history of it gives PE (r, c) the pixel it works on,
// i = s - r - c (entry r + c); row r adds its tap's (dy, dx) and address offset, column c its
// channel. A tap outside the tile reads a literal zero (isa.semantics.dwconv2d's padding).
`default_nettype none
module dwconv_unit #(
    parameter integer R  = 4,
    parameter integer C  = 4,
    parameter integer AW = 20
) (
`define MU_IBUF_LANES (R*C) // lane r*C + c: PE (r, c)'s input
`include "matrix_unit_ports.vh"
);
/* verilator lint_off UNUSEDPARAM */  // the generated header declares every ISA constant
`include "npu_isa.vh"
/* verilator lint_on UNUSEDPARAM */
    localparam integer H = R + C - 1;  // history entries: entry d = the pixel of d cycles ago

    // ---------------------------------------------------------------- decode
    wire [9:0] in_h_in = `F_DWCONV_IN_H(instr);
    wire [9:0] in_w_in = `F_DWCONV_IN_W(instr);
    wire [7:0] ch_in   = `F_DWCONV_CHANNELS(instr);
`include "conv_regs.vh"
    wire       is_dw   = op_in == OP_DWCONV;
    wire       dw_ok   = window_ok && ch_in != 8'd0 && {24'd0, ch_in} <= C;
    wire [7:0]  taps_in = kh * kw;

    function [7:0] depth(input [7:0] left);
        depth = (left > R[7:0]) ? R[7:0] : left;
    endfunction

    // ---------------------------------------------------------------- control
    localparam [1:0] IDLE = 2'd0, ONE = 2'd1, RUN = 2'd2;
    reg [1:0] state;
    reg       bad;
    wire      take = start && ready;
    wire      arr_done;

    reg [AW-1:0] wbuf_r, abuf_r;
    reg [9:0]    in_h_r, in_w_r;
    reg [15:0]   ow_r, m_r;
    reg [7:0]    ch_r, taps_r, t0;
    reg          acc_r;
    reg [AW-1:0] dx_step, wrap_step, pa0, row_step;  // address steps of a tap and a pixel row
    // the pass's first tap: its kernel position, its (dy, dx) and its address offset
    reg [3:0]    ky0, kx0;
    reg signed [15:0] dy0, dx0;
    reg [AW-1:0] off0;

    // taps of the rows of this pass: a chain from the first, stepping kx then ky (entry R is
    // the next pass's first tap). Each entry's nets are its own generate block's.
    genvar g;
    generate
        for (g = 0; g <= R; g = g + 1) begin : g_tap
            wire [3:0]  ky, kx;
            wire signed [15:0] dy, dx;
            wire [AW-1:0] off;
            if (g == 0) begin : g_first
                assign ky = ky0;  assign kx = kx0;  assign dy = dy0;  assign dx = dx0;
                assign off = off0;
            end else begin : g_step
                wire wrap = g_tap[g-1].kx + 1'b1 == kw;
                assign kx  = wrap ? 4'd0 : g_tap[g-1].kx + 1'b1;
                assign ky  = wrap ? g_tap[g-1].ky + 1'b1 : g_tap[g-1].ky;
                assign dx  = wrap ? 16'sd0 : g_tap[g-1].dx + $signed({12'd0, dw});
                assign dy  = wrap ? g_tap[g-1].dy + $signed({12'd0, dh}) : g_tap[g-1].dy;
                assign off = g_tap[g-1].off + (wrap ? wrap_step : dx_step);
            end
        end
    endgenerate

    wire [7:0] t_next = t0 + R[7:0];
    wire       last   = t_next >= taps_r;
    wire [7:0] k_next = depth(taps_r - t_next);

    wire dw_first = take && is_dw && dw_ok;
    wire dw_next  = state == RUN && arr_done && !last;
    wire own_one  = take && (is_cfg || !is_dw || !dw_ok);

    assign done    = state == ONE || (state == RUN && arr_done && last);
    assign ready   = state == IDLE || done;
    assign busy    = state != IDLE;
    assign illegal = state == ONE && bad;

    // address arithmetic of the instruction being taken (mod 2^AW, as the buffers' fields)
    wire [AW-1:0] ch_a   = {{(AW-8){1'b0}}, ch_in};
    wire [AW-1:0] inw_a  = {{(AW-10){1'b0}}, in_w_in};
    wire [AW-1:0] dx_st  = {{(AW-4){1'b0}}, dw} * ch_a;
    wire [AW-1:0] wrap_st = ({{(AW-4){1'b0}}, dh} * inw_a -
                             ({{(AW-4){1'b0}}, kw} - 1'b1) * {{(AW-4){1'b0}}, dw}) * ch_a;
    wire [AW-1:0] pa_0   = `F_DWCONV_IBUF(instr) -
                           ({{(AW-4){1'b0}}, pt} * inw_a + {{(AW-4){1'b0}}, pl}) * ch_a;

    always @(posedge clk) begin
        if (rst) begin
            state <= IDLE;
            bad <= 1'b0;
        end else if (take) begin
            state <= own_one ? ONE : RUN;
            bad   <= (is_cfg && !cfg_ok) || !is_cfg && !(is_dw && dw_ok);
            if (dw_first) begin
                wbuf_r <= `F_DWCONV_WBUF(instr);
                abuf_r <= `F_DWCONV_ABUF(instr);  acc_r <= `F_DWCONV_ACC(instr);
                in_h_r <= in_h_in;  in_w_r <= in_w_in;  ow_r <= ow_in;  m_r <= m_in[15:0];
                ch_r <= ch_in;  taps_r <= taps_in;  t0 <= 8'd0;
                dx_step <= dx_st;  wrap_step <= wrap_st;  pa0 <= pa_0;
                row_step <= {{(AW-4){1'b0}}, sh} * inw_a * ch_a;
                ky0 <= 4'd0;  kx0 <= 4'd0;  dy0 <= 16'sd0;  dx0 <= 16'sd0;
                off0 <= {AW{1'b0}};
            end
        end else begin
            if (dw_next) begin  // the next R taps; later passes accumulate
                t0 <= t_next;  acc_r <= 1'b1;
                ky0 <= g_tap[R].ky;  kx0 <= g_tap[R].kx;  dy0 <= g_tap[R].dy;
                dx0 <= g_tap[R].dx;  off0 <= g_tap[R].off;
            end
            if (done) state <= IDLE;
        end
    end

    // ---------------------------------------------------------------- the pass's walker
    wire pass_start = dw_first || dw_next;
    wire [7:0] k_start = dw_first ? depth(taps_in) : k_next;
    reg  [7:0]  lcnt;
    reg  [15:0] left, ox;
    reg  signed [15:0] wy, wx;
    reg  [AW-1:0] wpa, wrow;
    wire wvalid = lcnt == 8'd0 && left != 16'd0;
    wire signed [15:0] y0 = -$signed({12'd0, pt});
    wire signed [15:0] x0 = -$signed({12'd0, pl});

    always @(posedge clk) begin
        if (pass_start) begin
            lcnt <= k_start;
            left <= dw_first ? m_in[15:0] : m_r;
            ox <= 16'd0;  wy <= y0;  wx <= x0;
            wpa <= dw_first ? pa_0 : pa0;  wrow <= dw_first ? pa_0 : pa0;
        end else if (lcnt != 8'd0) begin
            lcnt <= lcnt - 1'b1;
        end else if (wvalid) begin
            left <= left - 1'b1;
            if (ox + 1'b1 == ow_r) begin
                ox <= 16'd0;  wx <= x0;  wy <= wy + $signed({12'd0, sh});
                wpa <= wrow + row_step;  wrow <= wrow + row_step;
            end else begin
                ox <= ox + 1'b1;  wx <= wx + $signed({12'd0, sw});
                wpa <= wpa + {{(AW-4){1'b0}}, sw} * {{(AW-8){1'b0}}, ch_r};
            end
        end
    end

    // history: entry 0 is the walker now, entry d what it was d cycles ago
    wire               hv  [0:H-1];
    wire signed [15:0] hy  [0:H-1];
    wire signed [15:0] hx  [0:H-1];
    wire [AW-1:0]      hpa [0:H-1];
    assign hv[0] = wvalid;  assign hy[0] = wy;  assign hx[0] = wx;  assign hpa[0] = wpa;
    generate
        for (g = 1; g < H; g = g + 1) begin : g_hist
            reg               v_q;
            reg signed [15:0] y_q, x_q;
            reg [AW-1:0]      pa_q;
            always @(posedge clk) begin
                v_q <= !pass_start && hv[g-1];  // a new pass starts with an empty history
                y_q <= hy[g-1];  x_q <= hx[g-1];  pa_q <= hpa[g-1];
            end
            assign hv[g] = v_q;  assign hy[g] = y_q;  assign hx[g] = x_q;  assign hpa[g] = pa_q;
        end
    endgenerate

    // ---------------------------------------------------------------- PE lanes
    wire [R*C*8-1:0] a_pe;
    genvar r, c;
    generate
        for (r = 0; r < R; r = r + 1) begin : g_lr
            wire active = t0 + r < taps_r;  // rows past the pass's taps see zeros
            for (c = 0; c < C; c = c + 1) begin : g_lc
                localparam integer D = r + c;
                wire signed [15:0] iy = hy[D] + g_tap[r].dy;
                wire signed [15:0] ix = hx[D] + g_tap[r].dx;
                wire in_tile = hv[D] && active && c < ch_r && iy >= 0 && ix >= 0 &&
                               iy < $signed({6'd0, in_h_r}) && ix < $signed({6'd0, in_w_r});
                localparam [AW-1:0] LANE = c;
                assign ibuf_addr[AW*(r*C + c) +: AW] = hpa[D] + g_tap[r].off + LANE;
                assign a_pe[8*(r*C + c) +: 8] = in_tile ? ibuf_data[8*(r*C + c) +: 8] : 8'd0;
            end
        end
    endgenerate

    // ---------------------------------------------------------------- weights and outputs
    reg  [AW-1:0] w_ptr, o_ptr;
    wire          w_req, out_valid;
    wire [C*32-1:0] out_data;
    wire [C*8-1:0]  w_bytes;
    wire [AW-1:0] ch_w = {{(AW-8){1'b0}}, ch_r};
    // tap rows are fed bottom-up: the pointer starts at the pass's last tap (t0 + k - 1)
    wire [AW-1:0] w_first = dw_first ?
        `F_DWCONV_WBUF(instr) + ({{(AW-8){1'b0}}, depth(taps_in)} - 1'b1) * ch_a :
        wbuf_r + ({{(AW-8){1'b0}}, t_next} + {{(AW-8){1'b0}}, k_next} - 1'b1) * ch_w;

    always @(posedge clk) begin
        if (pass_start) begin
            w_ptr <= w_first;
            o_ptr <= dw_first ? `F_DWCONV_ABUF(instr) : abuf_r;
        end else begin
            if (w_req) w_ptr <= w_ptr - ch_w;
            if (out_valid) o_ptr <= o_ptr + ch_w;
        end
    end

    generate
        for (c = 0; c < C; c = c + 1) begin : g_col
            wire used = c < ch_r;
            wire [31:0] sum = out_data[32*c +: 32];
            localparam [AW-1:0] LANE = c;
            assign wbuf_addr[AW*c +: AW]    = w_ptr + LANE;
            assign w_bytes[8*c +: 8]        = used ? wbuf_data[8*c +: 8] : 8'd0;
            assign abuf_rd_addr[AW*c +: AW] = o_ptr + LANE;
            assign abuf_wr_addr[AW*c +: AW] = o_ptr + LANE;
            assign abuf_wr_en[c]            = out_valid && used;
            assign abuf_wr_data[32*c +: 32] = acc_r ? abuf_rd_data[32*c +: 32] + sum : sum;
        end
    endgenerate

    /* verilator lint_off PINCONNECTEMPTY */
    systolic_array_dw #(.R(R), .C(C), .MW(16), .KW(8)) u_array (
        .clk(clk), .rst(rst), .start(pass_start), .m(dw_first ? m_in[15:0] : m_r),
        .k(k_start), .ready(), .busy(), .w_req(w_req), .w_data(w_bytes), .a_pe(a_pe),
        .out_valid(out_valid), .out_data(out_data), .done(arr_done));
    /* verilator lint_on PINCONNECTEMPTY */
endmodule
`default_nettype wire
