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
    // vrequant, split over two pipeline stages by the unit
    output wire [63:0] rq_prod,   // stage 1: a * mult, exact
    input  wire [63:0] rq_prod_q,
    input  wire [5:0]  rq_shift_q,
    input  wire [7:0]  rq_zp,
    input  wire        rq_relu,
    output wire [31:0] rq_res     // stage 2: sat8(round_shift(prod, shift) + zp), relu at zp
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
    wire signed [31:0] a32 = a;
    wire signed [31:0] b32 = b;
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
            OP_VSUB:           res = sat(sa - sb, dst_wide);
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

    assign rq_prod = prod;
    wire signed [63:0] zp = {{56{rq_zp[7]}}, rq_zp};
    wire signed [63:0] scaled = round_shift(rq_prod_q, rq_shift_q) + zp;
    assign rq_res = sat((rq_relu && scaled < zp) ? zp : scaled, 1'b0);
endmodule
`default_nettype wire
