// The conv_* registers and the window instructions' output size, shared by the units that run
// conv or dwconv (matrix_unit, matrix_unit_os, dwconv_unit): cfg's decode, the registers at
// their spec reset values, their writes (a cfg of conv_kh .. conv_dilation_w, taken in one
// cycle: docs/rtl.md, "cfg"), and oh, ow and m = oh*ow of the instruction on `instr`
// (isa.semantics.conv_out_size).
// The including module declares, before the include: clk, rst, start, ready, instr, and
// in_h_in / in_w_in (the instruction's input height and width fields, 10 bits each). It gets:
// op_in, is_cfg, cfg_reg, cfg_val, cfg_ok; kh, kw, sh, sw, pt, pl, pb, pr, dh, dw; oh_in,
// ow_in, m_in; window_ok (the output is not empty and m fits the gemm m field, 16 bits).
    wire [7:0]  op_in   = `F_OPCODE(instr);
    wire        is_cfg  = op_in == OP_CFG;
    wire [7:0]  cfg_reg = `F_CFG_REG(instr);
    wire [3:0]  cfg_val = instr[CFG_VALUE_LSB +: 4];  // conv_* registers hold 1..15 / 0..15
    wire        cfg_ok  = cfg_reg <= REG_CONV_DILATION_W[7:0];  // conv_kh .. conv_dilation_w

    // conv_* registers (cfg unit=matrix), at their spec reset values
    reg [3:0] kh, kw, sh, sw, pt, pl, pb, pr, dh, dw;

    always @(posedge clk) begin
        if (rst) begin
            kh <= REG_CONV_KH_RESET[3:0];        kw <= REG_CONV_KW_RESET[3:0];
            sh <= REG_CONV_STRIDE_H_RESET[3:0];  sw <= REG_CONV_STRIDE_W_RESET[3:0];
            pt <= REG_CONV_PAD_TOP_RESET[3:0];   pl <= REG_CONV_PAD_LEFT_RESET[3:0];
            pb <= REG_CONV_PAD_BOTTOM_RESET[3:0]; pr <= REG_CONV_PAD_RIGHT_RESET[3:0];
            dh <= REG_CONV_DILATION_H_RESET[3:0]; dw <= REG_CONV_DILATION_W_RESET[3:0];
        end else if (start && ready && is_cfg && cfg_ok) begin
            case (cfg_reg)
                REG_CONV_KH[7:0]:         kh <= cfg_val;
                REG_CONV_KW[7:0]:         kw <= cfg_val;
                REG_CONV_STRIDE_H[7:0]:   sh <= cfg_val;
                REG_CONV_STRIDE_W[7:0]:   sw <= cfg_val;
                REG_CONV_PAD_TOP[7:0]:    pt <= cfg_val;
                REG_CONV_PAD_LEFT[7:0]:   pl <= cfg_val;
                REG_CONV_PAD_BOTTOM[7:0]: pb <= cfg_val;
                REG_CONV_PAD_RIGHT[7:0]:  pr <= cfg_val;
                REG_CONV_DILATION_H[7:0]: dh <= cfg_val;
                default:                  dw <= cfg_val;
            endcase
        end
    end

    // output size (isa.semantics.conv_out_size); a negative span means an empty output
    wire [15:0] span_h = {12'd0, dh} * ({12'd0, kh} - 16'd1) + 16'd1;
    wire [15:0] span_w = {12'd0, dw} * ({12'd0, kw} - 16'd1) + 16'd1;
    wire signed [15:0] num_h  = $signed({6'd0, in_h_in}) + $signed({12'd0, pt}) +
                                $signed({12'd0, pb}) - $signed(span_h);
    wire signed [15:0] num_w  = $signed({6'd0, in_w_in}) + $signed({12'd0, pl}) +
                                $signed({12'd0, pr}) - $signed(span_w);
    wire [15:0] oh_in = num_h[15:0] / {12'd0, sh} + 16'd1;
    wire [15:0] ow_in = num_w[15:0] / {12'd0, sw} + 16'd1;
    wire [31:0] m_in  = oh_in * ow_in;
    // the gemm m field (a pass's m) is 16 bits wide
    wire window_ok = !num_h[15] && !num_w[15] && m_in[31:16] == 16'd0;
