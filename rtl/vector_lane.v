// One lane of the vector unit: the combinational arithmetic of every VECTOR op on int32
// operands, exact in 64 bits and saturated to the destination (isa.semantics rules).
`default_nettype none
module vector_lane (
    input  wire [7:0]  op,        // opcode (OP_* of npu_isa.vh)
    input  wire        dst_wide,  // destination is abuf (int32); else int8
    input  wire [31:0] a,         // src0 element
    input  wire [31:0] b,         // src1 element (bias, table entry, multiplier, ...)
    input  wire [15:0] lo,        // vclip bounds
    input  wire [15:0] hi,
    input  wire [4:0]  shamt,     // vshr shift
    // pooling: the running window value of this lane's channel
    input  wire        first,     // first window element: start from the identity
    input  wire        inb,       // element inside the input (not padding)
    input  wire [47:0] acc_q,
    output wire [47:0] acc_d,
    output reg  [31:0] res,       // saturated result of a non-requant op
    // vrequant bias=1 (rq_fused): stage 0 adds the channel's bias to a, saturating to int32
    // as vbias into abuf does; the next cycle's multiply takes that sum and the registered
    // multiplier instead of a and b
    input  wire [31:0] rq_bias,
    output wire [31:0] rq_sum,
    input  wire        rq_fused,
    input  wire [31:0] rq_sum_q,
    input  wire [31:0] rq_mult_q,
    // vrequant, split over two pipeline stages by the unit
    output wire [63:0] rq_prod,   // stage 1: a * mult, exact
    input  wire [63:0] rq_prod_q,
    input  wire [5:0]  rq_shift_q,
    input  wire [7:0]  rq_zp,
    input  wire        rq_relu,
    output wire [31:0] rq_res,    // stage 2: sat8(round_shift(prod, shift) + zp), relu at zp
                                  // (vrmul: sat(round_shift(prod, shift)) to the destination)
    // vexp / vrecip / vrsqrt: Q<in_frac> -> Q<out_frac>, saturated (the unit delays it)
    input  wire [4:0]  in_frac,
    input  wire [4:0]  out_frac,
    output wire [31:0] nl_res
);
/* verilator lint_off UNUSEDPARAM */  // the generated header declares every ISA constant
`include "npu_isa.vh"
/* verilator lint_on UNUSEDPARAM */

    // Saturate an exact value to int8 or int32 (isa.semantics.saturate).
    function [31:0] sat;
        input signed [63:0] x;
        input               wide;
        begin
            if (wide)
                sat = (x > 64'sd2147483647) ? 32'h7FFF_FFFF :
                      (x < -64'sd2147483648) ? 32'h8000_0000 : x[31:0];
            else
                sat = (x > 64'sd127) ? 32'h0000_007F :
                      (x < -64'sd128) ? 32'hFFFF_FF80 : x[31:0];
        end
    endfunction

    // Arithmetic right shift rounding half up (isa.semantics.round_shift).
    function signed [63:0] round_shift;
        input signed [63:0] x;
        input        [5:0]  s;
        begin
            if (s == 6'd0) round_shift = x;
            else           round_shift = (x + (64'sd1 <<< (s - 6'd1))) >>> s;
        end
    endfunction

    wire signed [63:0] sa = {{32{a[31]}}, a};
    wire signed [63:0] sb = {{32{b[31]}}, b};
    // one 32 x 32 -> 64 multiplier serves vmul and vrequant's first stage
    wire signed [31:0] a32 = rq_fused ? rq_sum_q : a;
    wire signed [31:0] b32 = rq_fused ? rq_mult_q : b;
    wire signed [63:0] prod = a32 * b32;
    wire signed [63:0] slo = {{48{lo[15]}}, lo};
    wire signed [63:0] shi = {{48{hi[15]}}, hi};
    wire signed [63:0] lower = (sa < slo) ? slo : sa;
    wire signed [63:0] clipped = (lower > shi) ? shi : lower;

    // Pooling keeps 48 bits: a sum of 255 x 255 int32 values needs 47. The max identity is
    // the 48-bit minimum, which saturates like npusim's int64 minimum does.
    wire signed [47:0] pa = {{16{a[31]}}, a};
    wire signed [47:0] acc_s = acc_q;
    wire signed [47:0] pool_min = {1'b1, 47'd0};
    wire               is_max = op == OP_VMAXPOOL;
    wire signed [47:0] max_base = first ? pool_min : acc_s;
    wire signed [47:0] sum_base = first ? 48'sd0 : acc_s;
    assign acc_d = is_max ? ((inb && pa > max_base) ? pa : max_base)
                          : sum_base + (inb ? pa : 48'sd0);
    wire signed [63:0] pool_val = {{16{acc_d[47]}}, acc_d};

    always @* begin
        case (op)
            OP_VADD, OP_VBIAS: res = sat(sa + sb, dst_wide);
            OP_VSUB, OP_VRSUB: res = sat(sa - sb, dst_wide);
            OP_VMUL:           res = sat(prod, dst_wide);
            OP_VMAX:           res = sat((sa > sb) ? sa : sb, dst_wide);
            OP_VMIN:           res = sat((sa < sb) ? sa : sb, dst_wide);
            OP_VRELU:          res = sat(sa[63] ? 64'sd0 : sa, dst_wide);
            OP_VCLIP:          res = sat(clipped, dst_wide);
            OP_VSHR:           res = sat(round_shift(sa, {1'b0, shamt}), dst_wide);
            OP_VLUT:           res = sat(sb, dst_wide);
            OP_VMAXPOOL, OP_VSUMPOOL: res = sat(pool_val, dst_wide);
            default:           res = sat(sa, dst_wide);  // vcopy
        endcase
    end

    assign rq_sum  = sat(sa + {{32{rq_bias[31]}}, rq_bias}, 1'b1);
    assign rq_prod = prod;
    wire signed [63:0] zp = {{56{rq_zp[7]}}, rq_zp};
    wire signed [63:0] rounded = round_shift(rq_prod_q, rq_shift_q);
    wire signed [63:0] scaled = rounded + zp;
    assign rq_res = (op == OP_VRMUL) ? sat(rounded, dst_wide)
                                     : sat((rq_relu && scaled < zp) ? zp : scaled, 1'b0);

    // ---- integer-only exp, 1/x, 1/sqrt(x): isa.semantics.exp_fixed / recip_fixed /
    // rsqrt_fixed step for step in 64-bit arithmetic (every product fits in 63 bits). The
    // constants are isa.semantics' (rtl_tests/test_transformer_constants.py checks them).
    localparam signed [63:0] LOG2E_Q30 = 64'sd1549082005;
    localparam signed [63:0] EXP_C4 = 64'sd7336377,     EXP_C3 = -64'sd57149796;
    localparam signed [63:0] EXP_C2 = 64'sd257115629,   EXP_C1 = -64'sd744171517;
    localparam signed [63:0] EXP_C0 = 64'sd1073741824;
    localparam signed [63:0] RECIP_A = 64'sd1515870810, RECIP_B = 64'sd505290270;
    localparam signed [63:0] RSQRT_A0 = 64'sd1357332273, RSQRT_B0 = 64'sd307491271;
    localparam signed [63:0] RSQRT_A1 = 64'sd959778855,  RSQRT_B1 = 64'sd108714582;
    localparam signed [63:0] INT32_MAX = 64'sd2147483647;

    // index of the highest set bit of v (< 2^33), 0 for 0: the leading-one detector
    function [5:0] msb;
        input [63:0] v;
        integer k;
        begin
            msb = 6'd0;
            for (k = 0; k < 33; k = k + 1)
                if (v[k]) msb = k[5:0];
        end
    endfunction

    // r * 2^-s of a Q30 result: rounded right shift (s capped at 63), or exact left shift
    function signed [63:0] shift_out;
        input signed [63:0] r;
        input signed [7:0]  s;
        reg   signed [7:0]  ns;
        begin
            ns = -s;
            if (!s[7]) shift_out = round_shift(r, (s > 8'sd63) ? 6'd63 : s[5:0]);
            else       shift_out = r <<< ((ns > 8'sd32) ? 6'd32 : ns[5:0]);
        end
    endfunction

    function signed [63:0] f_exp;
        input signed [63:0] x;
        input        [4:0]  fi;
        input        [4:0]  fo;
        reg   signed [63:0] xc, lim, t, g, acc;
        reg          [6:0]  s;
        begin
            xc  = x[63] ? x : 64'sd0;
            lim = -(64'sd32 <<< fi);
            if (xc < lim) xc = lim;
            t   = round_shift(-xc * LOG2E_Q30, {1'b0, fi} + 6'd10);  // -x log2(e), Q20
            g   = t & 64'sd1048575;
            acc = EXP_C4;
            acc = EXP_C3 + round_shift(acc * g, 6'd20);
            acc = EXP_C2 + round_shift(acc * g, 6'd20);
            acc = EXP_C1 + round_shift(acc * g, 6'd20);
            acc = EXP_C0 + round_shift(acc * g, 6'd20);
            s   = {1'b0, t[25:20]} + 7'd30 - {2'b00, fo};         // z + 30 - out_frac
            f_exp = round_shift(acc, (s > 7'd63) ? 6'd63 : s[5:0]);
        end
    endfunction

    function signed [63:0] f_recip;
        input signed [63:0] x;
        input        [4:0]  fi;
        input        [4:0]  fo;
        reg   signed [63:0] mag, m, r, y;
        reg          [5:0]  e;
        reg   signed [7:0]  s;
        integer k;
        begin
            mag = x[63] ? -x : x;
            if (mag > INT32_MAX) mag = INT32_MAX;
            e = msb(mag);
            m = mag <<< (6'd30 - e);                                // mantissa in [1, 2), Q30
            r = RECIP_A - round_shift(RECIP_B * m, 6'd30);
            for (k = 0; k < 3; k = k + 1)
                r = round_shift(r * ((64'sd2 <<< 30) - round_shift(m * r, 6'd30)), 6'd30);
            s = $signed({2'b00, e}) + 8'sd30 - $signed({3'b000, fi}) - $signed({3'b000, fo});
            y = shift_out(r, s);
            f_recip = (x == 64'sd0) ? INT32_MAX : (x[63] ? -y : y);
        end
    endfunction

    function signed [63:0] f_rsqrt;
        input signed [63:0] x;
        input        [4:0]  fi;
        input        [4:0]  fo;
        reg   signed [63:0] big, m, sa0, sb0, r, r2, t;
        reg          [5:0]  e;
        reg   signed [7:0]  s;
        integer k;
        begin
            big = ((x > 64'sd0) ? x : 64'sd1) <<< fi[0];           // an odd in_frac doubles x
            e   = msb(big) & 6'b111110;
            m   = big <<< (6'd30 - e);                             // mantissa in [1, 4), Q30
            sa0 = (m >= (64'sd1 <<< 31)) ? RSQRT_A1 : RSQRT_A0;
            sb0 = (m >= (64'sd1 <<< 31)) ? RSQRT_B1 : RSQRT_B0;
            r   = sa0 - round_shift(sb0 * m, 6'd30);
            for (k = 0; k < 3; k = k + 1) begin
                r2 = round_shift(r * r, 6'd30);
                t  = (64'sd3 <<< 30) - round_shift(m * r2, 6'd30);
                r  = round_shift(r * t, 6'd31);
            end
            s = 8'sd30 - $signed({3'b000, fo})
                - (($signed({3'b000, fi}) + $signed({7'b0000000, fi[0]}) - $signed({2'b00, e}))
                   >>> 1);
            f_rsqrt = (x > 64'sd0) ? shift_out(r, s) : INT32_MAX;
        end
    endfunction

    assign nl_res = sat(op == OP_VEXP   ? f_exp(sa, in_frac, out_frac) :
                        op == OP_VRECIP ? f_recip(sa, in_frac, out_frac) :
                                          f_rsqrt(sa, in_frac, out_frac), dst_wide);
endmodule
`default_nettype wire
