// The core's matrix unit with the array's depthwise mode (-depthwise-mode=1): matrix_unit
// (gemm, conv) beside dwconv_unit (dwconv), one queue's instructions routed by opcode. cfg
// goes to both (each keeps the conv_* registers; both take it in one cycle), dwconv to the
// depthwise unit, everything else to matrix_unit; the buffer lanes follow the unit that runs.
// Cycles are the two units' own (matrix_gemm, matrix_conv, matrix_dwconv, cfg 1).
`default_nettype none
module matrix_unit_dw #(
    parameter integer R  = 4,
    parameter integer C  = 4,
    parameter integer AW = 20
) (
`define MU_IBUF_LANES (R*C) // lanes [0, R): matrix_unit's; all: dwconv_unit's
`include "matrix_unit_ports.vh"
);
/* verilator lint_off UNUSEDPARAM */  // the generated header declares every ISA constant
`include "npu_isa.vh"
/* verilator lint_on UNUSEDPARAM */

    wire [7:0] op     = `F_OPCODE(instr);
    wire       is_cfg = op == OP_CFG;
    wire       is_dw  = op == OP_DWCONV;

    wire m_ready, m_busy, m_done, m_illegal, d_ready, d_busy, d_done, d_illegal;
    assign ready   = m_ready && d_ready;
    assign busy    = m_busy || d_busy;
    assign done    = m_done || d_done;
    assign illegal = m_illegal || d_illegal;

    wire [R*AW-1:0] m_i_addr;
    wire [R*C*AW-1:0] d_i_addr;
    wire [C*AW-1:0] m_w_addr, m_ar_addr, m_aw_addr, d_w_addr, d_ar_addr, d_aw_addr;
    wire [C*32-1:0] m_aw_data, d_aw_data;
    wire [C-1:0]    m_aw_en, d_aw_en;

    matrix_unit #(.R(R), .C(C), .AW(AW)) u_matrix (
        .clk(clk), .rst(rst), .start(start && ready && !is_dw), .instr(instr),
        .ready(m_ready), .busy(m_busy), .done(m_done), .illegal(m_illegal),
        .ibuf_addr(m_i_addr), .ibuf_data(ibuf_data[0 +: R*8]),
        .wbuf_addr(m_w_addr), .wbuf_data(wbuf_data),
        .abuf_rd_addr(m_ar_addr), .abuf_rd_data(abuf_rd_data),
        .abuf_wr_en(m_aw_en), .abuf_wr_addr(m_aw_addr), .abuf_wr_data(m_aw_data));

    // cfg reaches both; its illegal flag (a register outside conv_*) comes from matrix_unit
    wire d_flag, d_illegal_raw;
    reg  d_owned;  // the instruction in the depthwise unit is a dwconv (not a shared cfg)
    dwconv_unit #(.R(R), .C(C), .AW(AW)) u_dw (
        .clk(clk), .rst(rst), .start(start && ready && (is_dw || is_cfg)), .instr(instr),
        .ready(d_ready), .busy(d_busy), .done(d_flag), .illegal(d_illegal_raw),
        .ibuf_addr(d_i_addr), .ibuf_data(ibuf_data),
        .wbuf_addr(d_w_addr), .wbuf_data(wbuf_data),
        .abuf_rd_addr(d_ar_addr), .abuf_rd_data(abuf_rd_data),
        .abuf_wr_en(d_aw_en), .abuf_wr_addr(d_aw_addr), .abuf_wr_data(d_aw_data));
    always @(posedge clk)
        if (rst) d_owned <= 1'b0;
        else if (start && ready) d_owned <= is_dw;
    assign d_done    = d_flag && d_owned;
    assign d_illegal = d_illegal_raw && d_owned;

    // the lanes of the unit that runs (neither reads in the cycle it takes an instruction)
    wire dw_lanes = d_busy && d_owned;
    genvar g;
    generate
        for (g = 0; g < R * C; g = g + 1) begin : g_i
            if (g < R) begin : g_shared
                assign ibuf_addr[AW*g +: AW] = dw_lanes ? d_i_addr[AW*g +: AW] : m_i_addr[AW*g +: AW];
            end else begin : g_dw
                assign ibuf_addr[AW*g +: AW] = d_i_addr[AW*g +: AW];
            end
        end
    endgenerate
    assign wbuf_addr    = dw_lanes ? d_w_addr : m_w_addr;
    assign abuf_rd_addr = dw_lanes ? d_ar_addr : m_ar_addr;
    assign abuf_wr_addr = dw_lanes ? d_aw_addr : m_aw_addr;
    assign abuf_wr_data = dw_lanes ? d_aw_data : m_aw_data;
    assign abuf_wr_en   = dw_lanes ? d_aw_en : m_aw_en;
endmodule
`default_nettype wire
