// The port list of the core's matrix units (matrix_unit, matrix_unit_os, dwconv_unit,
// matrix_unit_dw): the instruction port every unit has (docs/rtl.md, "Conventions") and the
// buffer lanes. IBUF has `MU_IBUF_LANES lanes, which the including module defines just before
// the include (R: one per array row; R*C for the depthwise mode: one per PE); this file undefines
// it again, so the next module must say its own. Parameters R, C and AW come from the module.
    input  wire            clk,
    input  wire            rst,
    input  wire            start,
    /* verilator lint_off UNUSEDSIGNAL */  // a unit decodes only its instructions' fields
    input  wire [127:0]    instr,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire            ready,
    output wire            busy,
    output wire            done,
    output wire            illegal,
    output wire [`MU_IBUF_LANES*AW-1:0] ibuf_addr,
    input  wire [`MU_IBUF_LANES*8-1:0]  ibuf_data,  // int8 lanes
    output wire [C*AW-1:0] wbuf_addr,
    input  wire [C*8-1:0]  wbuf_data,
    output wire [C*AW-1:0] abuf_rd_addr,
    input  wire [C*32-1:0] abuf_rd_data,
    output wire [C-1:0]    abuf_wr_en,
    output wire [C*AW-1:0] abuf_wr_addr,
    output wire [C*32-1:0] abuf_wr_data
`undef MU_IBUF_LANES
