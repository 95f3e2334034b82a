// generated from isa/npu_isa.toml by python -m isa.gen — do not edit
// NPU ISA v1.1: 128-bit little-endian words; bits no field covers are reserved and must be zero.
// `include this INSIDE each module body: the localparams below are declared in every
// module that includes it; the macros are defined once per compilation unit.
// Split fields (v1.1 widened them, RISC-V style): F_X(w), X_LSB and X_W are a
// field's first part, its low bits, exactly the v1.0 field; F_X_FULL(w)
// is its whole value (the parts concatenated, high first; also an lvalue), X_FULL_W
// its width, X_P<i>_LSB/X_P<i>_W its later parts. A unit built for base-version
// ranges (buffers of at most 2^X_W elements, X_W-bit counts: the rtl/ units, see
// npusim.hw.rtl_params.rtl_target) reads F_X: on its Targets the later parts are 0.

`ifndef NPU_ISA_VH
`define NPU_ISA_VH
`define F_OPCODE(w) w[7:0]
`define F_CFG_UNIT(w) w[11:8]
`define F_CFG_REG(w) w[19:12]
`define F_CFG_VALUE(w) w[51:20]
`define F_LOAD_CHAN(w) w[10:8]
`define F_LOAD_BUF(w) w[12:11]
`define F_LOAD_SRAM(w) w[32:13]
`define F_LOAD_SRAM_FULL(w) {w[127:125], w[32:13]}
`define F_LOAD_DRAM(w) w[64:33]
`define F_LOAD_ROWS(w) w[76:65]
`define F_LOAD_COLS(w) w[88:77]
`define F_LOAD_STRIDE(w) w[112:89]
`define F_LOAD_PAD_TOP(w) w[115:113]
`define F_LOAD_PAD_BOTTOM(w) w[118:116]
`define F_LOAD_PAD_LEFT(w) w[121:119]
`define F_LOAD_PAD_RIGHT(w) w[124:122]
`define F_STORE_CHAN(w) w[10:8]
`define F_STORE_BUF(w) w[12:11]
`define F_STORE_SRAM(w) w[32:13]
`define F_STORE_SRAM_FULL(w) {w[127:125], w[32:13]}
`define F_STORE_DRAM(w) w[64:33]
`define F_STORE_ROWS(w) w[76:65]
`define F_STORE_COLS(w) w[88:77]
`define F_STORE_STRIDE(w) w[112:89]
`define F_GEMM_IBUF(w) w[27:8]
`define F_GEMM_IBUF_FULL(w) {w[112:110], w[27:8]}
`define F_GEMM_WBUF(w) w[47:28]
`define F_GEMM_WBUF_FULL(w) {w[115:113], w[47:28]}
`define F_GEMM_ABUF(w) w[67:48]
`define F_GEMM_ABUF_FULL(w) {w[118:116], w[67:48]}
`define F_GEMM_M(w) w[83:68]
`define F_GEMM_K(w) w[91:84]
`define F_GEMM_K_FULL(w) {w[102:102], w[91:84]}
`define F_GEMM_N(w) w[99:92]
`define F_GEMM_N_FULL(w) {w[103:103], w[99:92]}
`define F_GEMM_ACC(w) w[100:100]
`define F_GEMM_WT(w) w[101:101]
`define F_CONV_IBUF(w) w[27:8]
`define F_CONV_IBUF_FULL(w) {w[112:110], w[27:8]}
`define F_CONV_WBUF(w) w[47:28]
`define F_CONV_WBUF_FULL(w) {w[115:113], w[47:28]}
`define F_CONV_ABUF(w) w[67:48]
`define F_CONV_ABUF_FULL(w) {w[118:116], w[67:48]}
`define F_CONV_IN_H(w) w[77:68]
`define F_CONV_IN_W(w) w[87:78]
`define F_CONV_CIN(w) w[99:88]
`define F_CONV_COUT(w) w[107:100]
`define F_CONV_COUT_FULL(w) {w[109:109], w[107:100]}
`define F_CONV_ACC(w) w[108:108]
`define F_DWCONV_IBUF(w) w[27:8]
`define F_DWCONV_IBUF_FULL(w) {w[112:110], w[27:8]}
`define F_DWCONV_WBUF(w) w[47:28]
`define F_DWCONV_WBUF_FULL(w) {w[115:113], w[47:28]}
`define F_DWCONV_ABUF(w) w[67:48]
`define F_DWCONV_ABUF_FULL(w) {w[118:116], w[67:48]}
`define F_DWCONV_IN_H(w) w[77:68]
`define F_DWCONV_IN_W(w) w[87:78]
`define F_DWCONV_CHANNELS(w) w[95:88]
`define F_DWCONV_CHANNELS_FULL(w) {w[97:97], w[95:88]}
`define F_DWCONV_ACC(w) w[96:96]
`define F_VADD_DST_BUF(w) w[9:8]
`define F_VADD_DST(w) w[29:10]
`define F_VADD_DST_FULL(w) {w[121:119], w[29:10]}
`define F_VADD_SRC0_BUF(w) w[31:30]
`define F_VADD_SRC0(w) w[51:32]
`define F_VADD_SRC0_FULL(w) {w[124:122], w[51:32]}
`define F_VADD_SRC1_BUF(w) w[53:52]
`define F_VADD_SRC1(w) w[73:54]
`define F_VADD_SRC1_FULL(w) {w[127:125], w[73:54]}
`define F_VADD_LEN(w) w[89:74]
`define F_VADD_LEN_FULL(w) {w[117:111], w[89:74]}
`define F_VSUB_DST_BUF(w) w[9:8]
`define F_VSUB_DST(w) w[29:10]
`define F_VSUB_DST_FULL(w) {w[121:119], w[29:10]}
`define F_VSUB_SRC0_BUF(w) w[31:30]
`define F_VSUB_SRC0(w) w[51:32]
`define F_VSUB_SRC0_FULL(w) {w[124:122], w[51:32]}
`define F_VSUB_SRC1_BUF(w) w[53:52]
`define F_VSUB_SRC1(w) w[73:54]
`define F_VSUB_SRC1_FULL(w) {w[127:125], w[73:54]}
`define F_VSUB_LEN(w) w[89:74]
`define F_VSUB_LEN_FULL(w) {w[117:111], w[89:74]}
`define F_VMUL_DST_BUF(w) w[9:8]
`define F_VMUL_DST(w) w[29:10]
`define F_VMUL_DST_FULL(w) {w[121:119], w[29:10]}
`define F_VMUL_SRC0_BUF(w) w[31:30]
`define F_VMUL_SRC0(w) w[51:32]
`define F_VMUL_SRC0_FULL(w) {w[124:122], w[51:32]}
`define F_VMUL_SRC1_BUF(w) w[53:52]
`define F_VMUL_SRC1(w) w[73:54]
`define F_VMUL_SRC1_FULL(w) {w[127:125], w[73:54]}
`define F_VMUL_LEN(w) w[89:74]
`define F_VMUL_LEN_FULL(w) {w[117:111], w[89:74]}
`define F_VMAX_DST_BUF(w) w[9:8]
`define F_VMAX_DST(w) w[29:10]
`define F_VMAX_DST_FULL(w) {w[121:119], w[29:10]}
`define F_VMAX_SRC0_BUF(w) w[31:30]
`define F_VMAX_SRC0(w) w[51:32]
`define F_VMAX_SRC0_FULL(w) {w[124:122], w[51:32]}
`define F_VMAX_SRC1_BUF(w) w[53:52]
`define F_VMAX_SRC1(w) w[73:54]
`define F_VMAX_SRC1_FULL(w) {w[127:125], w[73:54]}
`define F_VMAX_LEN(w) w[89:74]
`define F_VMAX_LEN_FULL(w) {w[117:111], w[89:74]}
`define F_VMIN_DST_BUF(w) w[9:8]
`define F_VMIN_DST(w) w[29:10]
`define F_VMIN_DST_FULL(w) {w[121:119], w[29:10]}
`define F_VMIN_SRC0_BUF(w) w[31:30]
`define F_VMIN_SRC0(w) w[51:32]
`define F_VMIN_SRC0_FULL(w) {w[124:122], w[51:32]}
`define F_VMIN_SRC1_BUF(w) w[53:52]
`define F_VMIN_SRC1(w) w[73:54]
`define F_VMIN_SRC1_FULL(w) {w[127:125], w[73:54]}
`define F_VMIN_LEN(w) w[89:74]
`define F_VMIN_LEN_FULL(w) {w[117:111], w[89:74]}
`define F_VRELU_DST_BUF(w) w[9:8]
`define F_VRELU_DST(w) w[29:10]
`define F_VRELU_DST_FULL(w) {w[54:52], w[29:10]}
`define F_VRELU_SRC0_BUF(w) w[31:30]
`define F_VRELU_SRC0(w) w[51:32]
`define F_VRELU_SRC0_FULL(w) {w[57:55], w[51:32]}
`define F_VRELU_LEN(w) w[89:74]
`define F_VRELU_LEN_FULL(w) {w[64:58], w[89:74]}
`define F_VCLIP_DST_BUF(w) w[9:8]
`define F_VCLIP_DST(w) w[29:10]
`define F_VCLIP_DST_FULL(w) {w[54:52], w[29:10]}
`define F_VCLIP_SRC0_BUF(w) w[31:30]
`define F_VCLIP_SRC0(w) w[51:32]
`define F_VCLIP_SRC0_FULL(w) {w[57:55], w[51:32]}
`define F_VCLIP_LEN(w) w[89:74]
`define F_VCLIP_LEN_FULL(w) {w[64:58], w[89:74]}
`define F_VCLIP_LO(w) w[105:90]
`define F_VCLIP_HI(w) w[121:106]
`define F_VSHR_DST_BUF(w) w[9:8]
`define F_VSHR_DST(w) w[29:10]
`define F_VSHR_DST_FULL(w) {w[54:52], w[29:10]}
`define F_VSHR_SRC0_BUF(w) w[31:30]
`define F_VSHR_SRC0(w) w[51:32]
`define F_VSHR_SRC0_FULL(w) {w[57:55], w[51:32]}
`define F_VSHR_LEN(w) w[89:74]
`define F_VSHR_LEN_FULL(w) {w[64:58], w[89:74]}
`define F_VSHR_SHIFT(w) w[94:90]
`define F_VREQUANT_DST_BUF(w) w[9:8]
`define F_VREQUANT_DST(w) w[29:10]
`define F_VREQUANT_DST_FULL(w) {w[121:119], w[29:10]}
`define F_VREQUANT_SRC0_BUF(w) w[31:30]
`define F_VREQUANT_SRC0(w) w[51:32]
`define F_VREQUANT_SRC0_FULL(w) {w[124:122], w[51:32]}
`define F_VREQUANT_SRC1_BUF(w) w[53:52]
`define F_VREQUANT_SRC1(w) w[73:54]
`define F_VREQUANT_SRC1_FULL(w) {w[127:125], w[73:54]}
`define F_VREQUANT_LEN(w) w[89:74]
`define F_VREQUANT_LEN_FULL(w) {w[117:111], w[89:74]}
`define F_VREQUANT_CHANNELS(w) w[101:90]
`define F_VREQUANT_ZP(w) w[109:102]
`define F_VREQUANT_RELU(w) w[110:110]
`define F_VREQUANT_BIAS(w) w[118:118]
`define F_VBIAS_DST_BUF(w) w[9:8]
`define F_VBIAS_DST(w) w[29:10]
`define F_VBIAS_DST_FULL(w) {w[121:119], w[29:10]}
`define F_VBIAS_SRC0_BUF(w) w[31:30]
`define F_VBIAS_SRC0(w) w[51:32]
`define F_VBIAS_SRC0_FULL(w) {w[124:122], w[51:32]}
`define F_VBIAS_SRC1_BUF(w) w[53:52]
`define F_VBIAS_SRC1(w) w[73:54]
`define F_VBIAS_SRC1_FULL(w) {w[127:125], w[73:54]}
`define F_VBIAS_LEN(w) w[89:74]
`define F_VBIAS_LEN_FULL(w) {w[117:111], w[89:74]}
`define F_VBIAS_CHANNELS(w) w[101:90]
`define F_VMAXPOOL_DST_BUF(w) w[9:8]
`define F_VMAXPOOL_DST(w) w[29:10]
`define F_VMAXPOOL_DST_FULL(w) {w[121:119], w[29:10]}
`define F_VMAXPOOL_SRC0_BUF(w) w[31:30]
`define F_VMAXPOOL_SRC0(w) w[51:32]
`define F_VMAXPOOL_SRC0_FULL(w) {w[124:122], w[51:32]}
`define F_VMAXPOOL_IN_H(w) w[61:52]
`define F_VMAXPOOL_IN_W(w) w[71:62]
`define F_VMAXPOOL_CHANNELS(w) w[83:72]
`define F_VSUMPOOL_DST_BUF(w) w[9:8]
`define F_VSUMPOOL_DST(w) w[29:10]
`define F_VSUMPOOL_DST_FULL(w) {w[121:119], w[29:10]}
`define F_VSUMPOOL_SRC0_BUF(w) w[31:30]
`define F_VSUMPOOL_SRC0(w) w[51:32]
`define F_VSUMPOOL_SRC0_FULL(w) {w[124:122], w[51:32]}
`define F_VSUMPOOL_IN_H(w) w[61:52]
`define F_VSUMPOOL_IN_W(w) w[71:62]
`define F_VSUMPOOL_CHANNELS(w) w[83:72]
`define F_VCOPY_DST_BUF(w) w[9:8]
`define F_VCOPY_DST(w) w[29:10]
`define F_VCOPY_DST_FULL(w) {w[54:52], w[29:10]}
`define F_VCOPY_SRC0_BUF(w) w[31:30]
`define F_VCOPY_SRC0(w) w[51:32]
`define F_VCOPY_SRC0_FULL(w) {w[57:55], w[51:32]}
`define F_VCOPY_LEN(w) w[89:74]
`define F_VCOPY_LEN_FULL(w) {w[64:58], w[89:74]}
`define F_VLUT_DST_BUF(w) w[9:8]
`define F_VLUT_DST(w) w[29:10]
`define F_VLUT_DST_FULL(w) {w[121:119], w[29:10]}
`define F_VLUT_SRC0_BUF(w) w[31:30]
`define F_VLUT_SRC0(w) w[51:32]
`define F_VLUT_SRC0_FULL(w) {w[124:122], w[51:32]}
`define F_VLUT_SRC1_BUF(w) w[53:52]
`define F_VLUT_SRC1(w) w[73:54]
`define F_VLUT_SRC1_FULL(w) {w[127:125], w[73:54]}
`define F_VLUT_LEN(w) w[89:74]
`define F_VLUT_LEN_FULL(w) {w[117:111], w[89:74]}
`define F_VRMAX_DST_BUF(w) w[9:8]
`define F_VRMAX_DST(w) w[29:10]
`define F_VRMAX_DST_FULL(w) {w[54:52], w[29:10]}
`define F_VRMAX_SRC0_BUF(w) w[31:30]
`define F_VRMAX_SRC0(w) w[51:32]
`define F_VRMAX_SRC0_FULL(w) {w[57:55], w[51:32]}
`define F_VRMAX_ROWS(w) w[89:74]
`define F_VRMAX_COLS(w) w[101:90]
`define F_VRSUM_DST_BUF(w) w[9:8]
`define F_VRSUM_DST(w) w[29:10]
`define F_VRSUM_DST_FULL(w) {w[54:52], w[29:10]}
`define F_VRSUM_SRC0_BUF(w) w[31:30]
`define F_VRSUM_SRC0(w) w[51:32]
`define F_VRSUM_SRC0_FULL(w) {w[57:55], w[51:32]}
`define F_VRSUM_ROWS(w) w[89:74]
`define F_VRSUM_COLS(w) w[101:90]
`define F_VRSUB_DST_BUF(w) w[9:8]
`define F_VRSUB_DST(w) w[29:10]
`define F_VRSUB_DST_FULL(w) {w[121:119], w[29:10]}
`define F_VRSUB_SRC0_BUF(w) w[31:30]
`define F_VRSUB_SRC0(w) w[51:32]
`define F_VRSUB_SRC0_FULL(w) {w[124:122], w[51:32]}
`define F_VRSUB_SRC1_BUF(w) w[53:52]
`define F_VRSUB_SRC1(w) w[73:54]
`define F_VRSUB_SRC1_FULL(w) {w[127:125], w[73:54]}
`define F_VRSUB_ROWS(w) w[89:74]
`define F_VRSUB_COLS(w) w[101:90]
`define F_VRMUL_DST_BUF(w) w[9:8]
`define F_VRMUL_DST(w) w[29:10]
`define F_VRMUL_DST_FULL(w) {w[121:119], w[29:10]}
`define F_VRMUL_SRC0_BUF(w) w[31:30]
`define F_VRMUL_SRC0(w) w[51:32]
`define F_VRMUL_SRC0_FULL(w) {w[124:122], w[51:32]}
`define F_VRMUL_SRC1_BUF(w) w[53:52]
`define F_VRMUL_SRC1(w) w[73:54]
`define F_VRMUL_SRC1_FULL(w) {w[127:125], w[73:54]}
`define F_VRMUL_ROWS(w) w[89:74]
`define F_VRMUL_COLS(w) w[101:90]
`define F_VRMUL_SHIFT(w) w[106:102]
`define F_VEXP_DST_BUF(w) w[9:8]
`define F_VEXP_DST(w) w[29:10]
`define F_VEXP_DST_FULL(w) {w[54:52], w[29:10]}
`define F_VEXP_SRC0_BUF(w) w[31:30]
`define F_VEXP_SRC0(w) w[51:32]
`define F_VEXP_SRC0_FULL(w) {w[57:55], w[51:32]}
`define F_VEXP_LEN(w) w[89:74]
`define F_VEXP_LEN_FULL(w) {w[64:58], w[89:74]}
`define F_VEXP_IN_FRAC(w) w[94:90]
`define F_VEXP_OUT_FRAC(w) w[99:95]
`define F_VRECIP_DST_BUF(w) w[9:8]
`define F_VRECIP_DST(w) w[29:10]
`define F_VRECIP_DST_FULL(w) {w[54:52], w[29:10]}
`define F_VRECIP_SRC0_BUF(w) w[31:30]
`define F_VRECIP_SRC0(w) w[51:32]
`define F_VRECIP_SRC0_FULL(w) {w[57:55], w[51:32]}
`define F_VRECIP_LEN(w) w[89:74]
`define F_VRECIP_LEN_FULL(w) {w[64:58], w[89:74]}
`define F_VRECIP_IN_FRAC(w) w[94:90]
`define F_VRECIP_OUT_FRAC(w) w[99:95]
`define F_VRSQRT_DST_BUF(w) w[9:8]
`define F_VRSQRT_DST(w) w[29:10]
`define F_VRSQRT_DST_FULL(w) {w[54:52], w[29:10]}
`define F_VRSQRT_SRC0_BUF(w) w[31:30]
`define F_VRSQRT_SRC0(w) w[51:32]
`define F_VRSQRT_SRC0_FULL(w) {w[57:55], w[51:32]}
`define F_VRSQRT_LEN(w) w[89:74]
`define F_VRSQRT_LEN_FULL(w) {w[64:58], w[89:74]}
`define F_VRSQRT_IN_FRAC(w) w[94:90]
`define F_VRSQRT_OUT_FRAC(w) w[99:95]
`define F_SIGNAL_UNIT(w) w[11:8]
`define F_SIGNAL_SEM(w) w[16:12]
`define F_WAIT_UNIT(w) w[11:8]
`define F_WAIT_SEM(w) w[16:12]
`define F_GBARRIER_ID(w) w[15:8]
`endif

localparam integer ISA_WORD_BITS = 128;
localparam integer ISA_VERSION_MAJOR = 1;
localparam integer ISA_VERSION_MINOR = 1;
localparam integer OPCODE_LSB = 0;
localparam integer OPCODE_W = 8;

// ---- nop (control; unit: dispatch)
// semantics: Do nothing for one dispatch cycle.
// timing: dispatch = 1 cycle
localparam [7:0] OP_NOP = 8'h00;

// ---- halt (control; unit: dispatch)
// semantics: Stop fetching; the core finishes when every unit has drained its queue.
// timing: dispatch = 1 cycle
localparam [7:0] OP_HALT = 8'h01;

// ---- cfg (control; unit: named by field 'unit')
// semantics: Write a configuration register of the named unit, in order with that unit's other instructions.
// timing: cfg = 1 cycle
//   unit       [11:8] enum:unit: unit whose register is written
//   reg        [19:12] enum:reg: register (must belong to the unit's class)
//   value      [51:20] s: new value (checked against the register's range)
localparam [7:0] OP_CFG = 8'h02;
localparam integer CFG_UNIT_LSB = 8;
localparam integer CFG_UNIT_W = 4;
localparam integer CFG_REG_LSB = 12;
localparam integer CFG_REG_W = 8;
localparam integer CFG_VALUE_LSB = 20;
localparam integer CFG_VALUE_W = 32;

// ---- load (dma; unit: named by field 'chan')
// semantics: DRAM -> SRAM strided copy of planes x rows x cols elements, zero-padding rows and columns.
// timing: dma = max(S + Lat + ceil(bytes / BW), ceil(fill / F)) cycles
//   chan       [10:8] u: DMA channel (engine) that executes it
//   buf        [12:11] enum:buf: destination buffer
//   sram       [32:13 [19:0], 127:125 [22:20]] u: destination element address
//   dram       [64:33] u: source byte address
//   rows       [76:65] u: rows per plane
//   cols       [88:77] u: elements per row
//   stride     [112:89] u: DRAM bytes between rows
//   pad_top    [115:113] u: zero rows written before the data rows
//   pad_bottom [118:116] u: zero rows written after the data rows
//   pad_left   [121:119] u: zero elements written before each row
//   pad_right  [124:122] u: zero elements written after each row
localparam [7:0] OP_LOAD = 8'h10;
localparam integer LOAD_CHAN_LSB = 8;
localparam integer LOAD_CHAN_W = 3;
localparam integer LOAD_BUF_LSB = 11;
localparam integer LOAD_BUF_W = 2;
localparam integer LOAD_SRAM_LSB = 13;
localparam integer LOAD_SRAM_W = 20;
localparam integer LOAD_SRAM_FULL_W = 23;
localparam integer LOAD_SRAM_P1_LSB = 125;
localparam integer LOAD_SRAM_P1_W = 3;
localparam integer LOAD_DRAM_LSB = 33;
localparam integer LOAD_DRAM_W = 32;
localparam integer LOAD_ROWS_LSB = 65;
localparam integer LOAD_ROWS_W = 12;
localparam integer LOAD_COLS_LSB = 77;
localparam integer LOAD_COLS_W = 12;
localparam integer LOAD_STRIDE_LSB = 89;
localparam integer LOAD_STRIDE_W = 24;
localparam integer LOAD_PAD_TOP_LSB = 113;
localparam integer LOAD_PAD_TOP_W = 3;
localparam integer LOAD_PAD_BOTTOM_LSB = 116;
localparam integer LOAD_PAD_BOTTOM_W = 3;
localparam integer LOAD_PAD_LEFT_LSB = 119;
localparam integer LOAD_PAD_LEFT_W = 3;
localparam integer LOAD_PAD_RIGHT_LSB = 122;
localparam integer LOAD_PAD_RIGHT_W = 3;

// ---- store (dma; unit: named by field 'chan')
// semantics: SRAM -> DRAM strided copy of planes x rows x cols elements.
// timing: dma = max(S + Lat + ceil(bytes / BW), ceil(fill / F)) cycles
//   chan       [10:8] u: DMA channel (engine) that executes it
//   buf        [12:11] enum:buf: source buffer
//   sram       [32:13 [19:0], 127:125 [22:20]] u: source element address
//   dram       [64:33] u: destination byte address
//   rows       [76:65] u: rows per plane
//   cols       [88:77] u: elements per row
//   stride     [112:89] u: DRAM bytes between rows
localparam [7:0] OP_STORE = 8'h11;
localparam integer STORE_CHAN_LSB = 8;
localparam integer STORE_CHAN_W = 3;
localparam integer STORE_BUF_LSB = 11;
localparam integer STORE_BUF_W = 2;
localparam integer STORE_SRAM_LSB = 13;
localparam integer STORE_SRAM_W = 20;
localparam integer STORE_SRAM_FULL_W = 23;
localparam integer STORE_SRAM_P1_LSB = 125;
localparam integer STORE_SRAM_P1_W = 3;
localparam integer STORE_DRAM_LSB = 33;
localparam integer STORE_DRAM_W = 32;
localparam integer STORE_ROWS_LSB = 65;
localparam integer STORE_ROWS_W = 12;
localparam integer STORE_COLS_LSB = 77;
localparam integer STORE_COLS_W = 12;
localparam integer STORE_STRIDE_LSB = 89;
localparam integer STORE_STRIDE_W = 24;

// ---- gemm (matrix; unit: matrix)
// semantics: abuf[m x n] (+)= ibuf[m x k] @ W, int8 x int8 -> int32, on the weight-stationary array; W = wbuf[k x n], or wbuf[n x k] transposed when wt = 1.
// timing: matrix_gemm = k + m + R + C - 1 cycles
//   ibuf       [27:8 [19:0], 112:110 [22:20]] u: input tile, m x k row-major
//   wbuf       [47:28 [19:0], 115:113 [22:20]] u: weight tile, k x n row-major
//   abuf       [67:48 [19:0], 118:116 [22:20]] u: accumulator tile, m x n row-major
//   m          [83:68] u: input rows streamed through the array
//   k          [91:84 [7:0], 102 [8]] u: reduction depth (array rows used)
//   n          [99:92 [7:0], 103 [8]] u: output columns (array columns used)
//   acc        [100] u: 1: accumulate into abuf, 0: overwrite
//   wt         [101] u: 1: the wbuf tile is stored n x k row-major (transposed: K of Q.K^T as loaded, tokens x head_dim); 0: k x n
localparam [7:0] OP_GEMM = 8'h20;
localparam integer GEMM_IBUF_LSB = 8;
localparam integer GEMM_IBUF_W = 20;
localparam integer GEMM_IBUF_FULL_W = 23;
localparam integer GEMM_IBUF_P1_LSB = 110;
localparam integer GEMM_IBUF_P1_W = 3;
localparam integer GEMM_WBUF_LSB = 28;
localparam integer GEMM_WBUF_W = 20;
localparam integer GEMM_WBUF_FULL_W = 23;
localparam integer GEMM_WBUF_P1_LSB = 113;
localparam integer GEMM_WBUF_P1_W = 3;
localparam integer GEMM_ABUF_LSB = 48;
localparam integer GEMM_ABUF_W = 20;
localparam integer GEMM_ABUF_FULL_W = 23;
localparam integer GEMM_ABUF_P1_LSB = 116;
localparam integer GEMM_ABUF_P1_W = 3;
localparam integer GEMM_M_LSB = 68;
localparam integer GEMM_M_W = 16;
localparam integer GEMM_K_LSB = 84;
localparam integer GEMM_K_W = 8;
localparam integer GEMM_K_FULL_W = 9;
localparam integer GEMM_K_P1_LSB = 102;
localparam integer GEMM_K_P1_W = 1;
localparam integer GEMM_N_LSB = 92;
localparam integer GEMM_N_W = 8;
localparam integer GEMM_N_FULL_W = 9;
localparam integer GEMM_N_P1_LSB = 103;
localparam integer GEMM_N_P1_W = 1;
localparam integer GEMM_ACC_LSB = 100;
localparam integer GEMM_ACC_W = 1;
localparam integer GEMM_WT_LSB = 101;
localparam integer GEMM_WT_W = 1;

// ---- conv (matrix; unit: matrix)
// semantics: abuf[oh x ow x cout] (+)= conv2d(ibuf[in_h x in_w x cin], wbuf[kh x kw x cin x cout]) with conv_* registers, im2col in hardware.
// timing: matrix_conv = sum(kp + oh * ow + R + C - 1 for kp in passes) cycles
//   ibuf       [27:8 [19:0], 112:110 [22:20]] u: input tile, HWC
//   wbuf       [47:28 [19:0], 115:113 [22:20]] u: weights, kh x kw x cin x cout
//   abuf       [67:48 [19:0], 118:116 [22:20]] u: output tile, HWC
//   in_h       [77:68] u: input tile height
//   in_w       [87:78] u: input tile width
//   cin        [99:88] u: input channels
//   cout       [107:100 [7:0], 109 [8]] u: output channels (array columns used)
//   acc        [108] u: 1: accumulate into abuf, 0: overwrite
localparam [7:0] OP_CONV = 8'h21;
localparam integer CONV_IBUF_LSB = 8;
localparam integer CONV_IBUF_W = 20;
localparam integer CONV_IBUF_FULL_W = 23;
localparam integer CONV_IBUF_P1_LSB = 110;
localparam integer CONV_IBUF_P1_W = 3;
localparam integer CONV_WBUF_LSB = 28;
localparam integer CONV_WBUF_W = 20;
localparam integer CONV_WBUF_FULL_W = 23;
localparam integer CONV_WBUF_P1_LSB = 113;
localparam integer CONV_WBUF_P1_W = 3;
localparam integer CONV_ABUF_LSB = 48;
localparam integer CONV_ABUF_W = 20;
localparam integer CONV_ABUF_FULL_W = 23;
localparam integer CONV_ABUF_P1_LSB = 116;
localparam integer CONV_ABUF_P1_W = 3;
localparam integer CONV_IN_H_LSB = 68;
localparam integer CONV_IN_H_W = 10;
localparam integer CONV_IN_W_LSB = 78;
localparam integer CONV_IN_W_W = 10;
localparam integer CONV_CIN_LSB = 88;
localparam integer CONV_CIN_W = 12;
localparam integer CONV_COUT_LSB = 100;
localparam integer CONV_COUT_W = 8;
localparam integer CONV_COUT_FULL_W = 9;
localparam integer CONV_COUT_P1_LSB = 109;
localparam integer CONV_COUT_P1_W = 1;
localparam integer CONV_ACC_LSB = 108;
localparam integer CONV_ACC_W = 1;

// ---- dwconv (matrix; unit: matrix)
// semantics: abuf[oh x ow x channels] (+)= depthwise conv2d(ibuf[in_h x in_w x channels], wbuf[kh x kw x channels]) with conv_* registers: output channel c reads input channel c only. Needs the array's depthwise mode (Target -depthwise-mode=1, weight-stationary).
// timing: matrix_dwconv = sum(kp + oh * ow + R + C - 1 for kp in passes) cycles
//   ibuf       [27:8 [19:0], 112:110 [22:20]] u: input tile, HWC
//   wbuf       [47:28 [19:0], 115:113 [22:20]] u: weights, kh x kw x channels
//   abuf       [67:48 [19:0], 118:116 [22:20]] u: output tile, HWC
//   in_h       [77:68] u: input tile height
//   in_w       [87:78] u: input tile width
//   channels   [95:88 [7:0], 97 [8]] u: channels, one per array column (the depthwise mode's columns)
//   acc        [96] u: 1: accumulate into abuf, 0: overwrite
localparam [7:0] OP_DWCONV = 8'h22;
localparam integer DWCONV_IBUF_LSB = 8;
localparam integer DWCONV_IBUF_W = 20;
localparam integer DWCONV_IBUF_FULL_W = 23;
localparam integer DWCONV_IBUF_P1_LSB = 110;
localparam integer DWCONV_IBUF_P1_W = 3;
localparam integer DWCONV_WBUF_LSB = 28;
localparam integer DWCONV_WBUF_W = 20;
localparam integer DWCONV_WBUF_FULL_W = 23;
localparam integer DWCONV_WBUF_P1_LSB = 113;
localparam integer DWCONV_WBUF_P1_W = 3;
localparam integer DWCONV_ABUF_LSB = 48;
localparam integer DWCONV_ABUF_W = 20;
localparam integer DWCONV_ABUF_FULL_W = 23;
localparam integer DWCONV_ABUF_P1_LSB = 116;
localparam integer DWCONV_ABUF_P1_W = 3;
localparam integer DWCONV_IN_H_LSB = 68;
localparam integer DWCONV_IN_H_W = 10;
localparam integer DWCONV_IN_W_LSB = 78;
localparam integer DWCONV_IN_W_W = 10;
localparam integer DWCONV_CHANNELS_LSB = 88;
localparam integer DWCONV_CHANNELS_W = 8;
localparam integer DWCONV_CHANNELS_FULL_W = 9;
localparam integer DWCONV_CHANNELS_P1_LSB = 97;
localparam integer DWCONV_CHANNELS_P1_W = 1;
localparam integer DWCONV_ACC_LSB = 96;
localparam integer DWCONV_ACC_W = 1;

// ---- vadd (vector; unit: vector)
// semantics: dst[i] = sat(src0[i] + src1[i]); the residual-add form when src0 and src1 are different buffers.
// timing: vector_elementwise = P + ceil(len / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 121:119 [22:20]] u: destination element address
//   src0_buf   [31:30] enum:buf: first operand buffer
//   src0       [51:32 [19:0], 124:122 [22:20]] u: first operand element address
//   src1_buf   [53:52] enum:buf: second operand buffer
//   src1       [73:54 [19:0], 127:125 [22:20]] u: second operand element address
//   len        [89:74 [15:0], 117:111 [22:16]] u: elements
localparam [7:0] OP_VADD = 8'h30;
localparam integer VADD_DST_BUF_LSB = 8;
localparam integer VADD_DST_BUF_W = 2;
localparam integer VADD_DST_LSB = 10;
localparam integer VADD_DST_W = 20;
localparam integer VADD_DST_FULL_W = 23;
localparam integer VADD_DST_P1_LSB = 119;
localparam integer VADD_DST_P1_W = 3;
localparam integer VADD_SRC0_BUF_LSB = 30;
localparam integer VADD_SRC0_BUF_W = 2;
localparam integer VADD_SRC0_LSB = 32;
localparam integer VADD_SRC0_W = 20;
localparam integer VADD_SRC0_FULL_W = 23;
localparam integer VADD_SRC0_P1_LSB = 122;
localparam integer VADD_SRC0_P1_W = 3;
localparam integer VADD_SRC1_BUF_LSB = 52;
localparam integer VADD_SRC1_BUF_W = 2;
localparam integer VADD_SRC1_LSB = 54;
localparam integer VADD_SRC1_W = 20;
localparam integer VADD_SRC1_FULL_W = 23;
localparam integer VADD_SRC1_P1_LSB = 125;
localparam integer VADD_SRC1_P1_W = 3;
localparam integer VADD_LEN_LSB = 74;
localparam integer VADD_LEN_W = 16;
localparam integer VADD_LEN_FULL_W = 23;
localparam integer VADD_LEN_P1_LSB = 111;
localparam integer VADD_LEN_P1_W = 7;

// ---- vsub (vector; unit: vector)
// semantics: dst[i] = sat(src0[i] - src1[i])
// timing: vector_elementwise = P + ceil(len / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 121:119 [22:20]] u: destination element address
//   src0_buf   [31:30] enum:buf: first operand buffer
//   src0       [51:32 [19:0], 124:122 [22:20]] u: first operand element address
//   src1_buf   [53:52] enum:buf: second operand buffer
//   src1       [73:54 [19:0], 127:125 [22:20]] u: second operand element address
//   len        [89:74 [15:0], 117:111 [22:16]] u: elements
localparam [7:0] OP_VSUB = 8'h31;
localparam integer VSUB_DST_BUF_LSB = 8;
localparam integer VSUB_DST_BUF_W = 2;
localparam integer VSUB_DST_LSB = 10;
localparam integer VSUB_DST_W = 20;
localparam integer VSUB_DST_FULL_W = 23;
localparam integer VSUB_DST_P1_LSB = 119;
localparam integer VSUB_DST_P1_W = 3;
localparam integer VSUB_SRC0_BUF_LSB = 30;
localparam integer VSUB_SRC0_BUF_W = 2;
localparam integer VSUB_SRC0_LSB = 32;
localparam integer VSUB_SRC0_W = 20;
localparam integer VSUB_SRC0_FULL_W = 23;
localparam integer VSUB_SRC0_P1_LSB = 122;
localparam integer VSUB_SRC0_P1_W = 3;
localparam integer VSUB_SRC1_BUF_LSB = 52;
localparam integer VSUB_SRC1_BUF_W = 2;
localparam integer VSUB_SRC1_LSB = 54;
localparam integer VSUB_SRC1_W = 20;
localparam integer VSUB_SRC1_FULL_W = 23;
localparam integer VSUB_SRC1_P1_LSB = 125;
localparam integer VSUB_SRC1_P1_W = 3;
localparam integer VSUB_LEN_LSB = 74;
localparam integer VSUB_LEN_W = 16;
localparam integer VSUB_LEN_FULL_W = 23;
localparam integer VSUB_LEN_P1_LSB = 111;
localparam integer VSUB_LEN_P1_W = 7;

// ---- vmul (vector; unit: vector)
// semantics: dst[i] = sat(src0[i] * src1[i])
// timing: vector_elementwise = P + ceil(len / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 121:119 [22:20]] u: destination element address
//   src0_buf   [31:30] enum:buf: first operand buffer
//   src0       [51:32 [19:0], 124:122 [22:20]] u: first operand element address
//   src1_buf   [53:52] enum:buf: second operand buffer
//   src1       [73:54 [19:0], 127:125 [22:20]] u: second operand element address
//   len        [89:74 [15:0], 117:111 [22:16]] u: elements
localparam [7:0] OP_VMUL = 8'h32;
localparam integer VMUL_DST_BUF_LSB = 8;
localparam integer VMUL_DST_BUF_W = 2;
localparam integer VMUL_DST_LSB = 10;
localparam integer VMUL_DST_W = 20;
localparam integer VMUL_DST_FULL_W = 23;
localparam integer VMUL_DST_P1_LSB = 119;
localparam integer VMUL_DST_P1_W = 3;
localparam integer VMUL_SRC0_BUF_LSB = 30;
localparam integer VMUL_SRC0_BUF_W = 2;
localparam integer VMUL_SRC0_LSB = 32;
localparam integer VMUL_SRC0_W = 20;
localparam integer VMUL_SRC0_FULL_W = 23;
localparam integer VMUL_SRC0_P1_LSB = 122;
localparam integer VMUL_SRC0_P1_W = 3;
localparam integer VMUL_SRC1_BUF_LSB = 52;
localparam integer VMUL_SRC1_BUF_W = 2;
localparam integer VMUL_SRC1_LSB = 54;
localparam integer VMUL_SRC1_W = 20;
localparam integer VMUL_SRC1_FULL_W = 23;
localparam integer VMUL_SRC1_P1_LSB = 125;
localparam integer VMUL_SRC1_P1_W = 3;
localparam integer VMUL_LEN_LSB = 74;
localparam integer VMUL_LEN_W = 16;
localparam integer VMUL_LEN_FULL_W = 23;
localparam integer VMUL_LEN_P1_LSB = 111;
localparam integer VMUL_LEN_P1_W = 7;

// ---- vmax (vector; unit: vector)
// semantics: dst[i] = max(src0[i], src1[i])
// timing: vector_elementwise = P + ceil(len / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 121:119 [22:20]] u: destination element address
//   src0_buf   [31:30] enum:buf: first operand buffer
//   src0       [51:32 [19:0], 124:122 [22:20]] u: first operand element address
//   src1_buf   [53:52] enum:buf: second operand buffer
//   src1       [73:54 [19:0], 127:125 [22:20]] u: second operand element address
//   len        [89:74 [15:0], 117:111 [22:16]] u: elements
localparam [7:0] OP_VMAX = 8'h33;
localparam integer VMAX_DST_BUF_LSB = 8;
localparam integer VMAX_DST_BUF_W = 2;
localparam integer VMAX_DST_LSB = 10;
localparam integer VMAX_DST_W = 20;
localparam integer VMAX_DST_FULL_W = 23;
localparam integer VMAX_DST_P1_LSB = 119;
localparam integer VMAX_DST_P1_W = 3;
localparam integer VMAX_SRC0_BUF_LSB = 30;
localparam integer VMAX_SRC0_BUF_W = 2;
localparam integer VMAX_SRC0_LSB = 32;
localparam integer VMAX_SRC0_W = 20;
localparam integer VMAX_SRC0_FULL_W = 23;
localparam integer VMAX_SRC0_P1_LSB = 122;
localparam integer VMAX_SRC0_P1_W = 3;
localparam integer VMAX_SRC1_BUF_LSB = 52;
localparam integer VMAX_SRC1_BUF_W = 2;
localparam integer VMAX_SRC1_LSB = 54;
localparam integer VMAX_SRC1_W = 20;
localparam integer VMAX_SRC1_FULL_W = 23;
localparam integer VMAX_SRC1_P1_LSB = 125;
localparam integer VMAX_SRC1_P1_W = 3;
localparam integer VMAX_LEN_LSB = 74;
localparam integer VMAX_LEN_W = 16;
localparam integer VMAX_LEN_FULL_W = 23;
localparam integer VMAX_LEN_P1_LSB = 111;
localparam integer VMAX_LEN_P1_W = 7;

// ---- vmin (vector; unit: vector)
// semantics: dst[i] = min(src0[i], src1[i])
// timing: vector_elementwise = P + ceil(len / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 121:119 [22:20]] u: destination element address
//   src0_buf   [31:30] enum:buf: first operand buffer
//   src0       [51:32 [19:0], 124:122 [22:20]] u: first operand element address
//   src1_buf   [53:52] enum:buf: second operand buffer
//   src1       [73:54 [19:0], 127:125 [22:20]] u: second operand element address
//   len        [89:74 [15:0], 117:111 [22:16]] u: elements
localparam [7:0] OP_VMIN = 8'h34;
localparam integer VMIN_DST_BUF_LSB = 8;
localparam integer VMIN_DST_BUF_W = 2;
localparam integer VMIN_DST_LSB = 10;
localparam integer VMIN_DST_W = 20;
localparam integer VMIN_DST_FULL_W = 23;
localparam integer VMIN_DST_P1_LSB = 119;
localparam integer VMIN_DST_P1_W = 3;
localparam integer VMIN_SRC0_BUF_LSB = 30;
localparam integer VMIN_SRC0_BUF_W = 2;
localparam integer VMIN_SRC0_LSB = 32;
localparam integer VMIN_SRC0_W = 20;
localparam integer VMIN_SRC0_FULL_W = 23;
localparam integer VMIN_SRC0_P1_LSB = 122;
localparam integer VMIN_SRC0_P1_W = 3;
localparam integer VMIN_SRC1_BUF_LSB = 52;
localparam integer VMIN_SRC1_BUF_W = 2;
localparam integer VMIN_SRC1_LSB = 54;
localparam integer VMIN_SRC1_W = 20;
localparam integer VMIN_SRC1_FULL_W = 23;
localparam integer VMIN_SRC1_P1_LSB = 125;
localparam integer VMIN_SRC1_P1_W = 3;
localparam integer VMIN_LEN_LSB = 74;
localparam integer VMIN_LEN_W = 16;
localparam integer VMIN_LEN_FULL_W = 23;
localparam integer VMIN_LEN_P1_LSB = 111;
localparam integer VMIN_LEN_P1_W = 7;

// ---- vrelu (vector; unit: vector)
// semantics: dst[i] = sat(max(src0[i], 0))
// timing: vector_elementwise = P + ceil(len / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 54:52 [22:20]] u: destination element address
//   src0_buf   [31:30] enum:buf: operand buffer
//   src0       [51:32 [19:0], 57:55 [22:20]] u: operand element address
//   len        [89:74 [15:0], 64:58 [22:16]] u: elements
localparam [7:0] OP_VRELU = 8'h35;
localparam integer VRELU_DST_BUF_LSB = 8;
localparam integer VRELU_DST_BUF_W = 2;
localparam integer VRELU_DST_LSB = 10;
localparam integer VRELU_DST_W = 20;
localparam integer VRELU_DST_FULL_W = 23;
localparam integer VRELU_DST_P1_LSB = 52;
localparam integer VRELU_DST_P1_W = 3;
localparam integer VRELU_SRC0_BUF_LSB = 30;
localparam integer VRELU_SRC0_BUF_W = 2;
localparam integer VRELU_SRC0_LSB = 32;
localparam integer VRELU_SRC0_W = 20;
localparam integer VRELU_SRC0_FULL_W = 23;
localparam integer VRELU_SRC0_P1_LSB = 55;
localparam integer VRELU_SRC0_P1_W = 3;
localparam integer VRELU_LEN_LSB = 74;
localparam integer VRELU_LEN_W = 16;
localparam integer VRELU_LEN_FULL_W = 23;
localparam integer VRELU_LEN_P1_LSB = 58;
localparam integer VRELU_LEN_P1_W = 7;

// ---- vclip (vector; unit: vector)
// semantics: dst[i] = sat(min(max(src0[i], lo), hi))
// timing: vector_elementwise = P + ceil(len / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 54:52 [22:20]] u: destination element address
//   src0_buf   [31:30] enum:buf: operand buffer
//   src0       [51:32 [19:0], 57:55 [22:20]] u: operand element address
//   len        [89:74 [15:0], 64:58 [22:16]] u: elements
//   lo         [105:90] s: lower bound
//   hi         [121:106] s: upper bound
localparam [7:0] OP_VCLIP = 8'h36;
localparam integer VCLIP_DST_BUF_LSB = 8;
localparam integer VCLIP_DST_BUF_W = 2;
localparam integer VCLIP_DST_LSB = 10;
localparam integer VCLIP_DST_W = 20;
localparam integer VCLIP_DST_FULL_W = 23;
localparam integer VCLIP_DST_P1_LSB = 52;
localparam integer VCLIP_DST_P1_W = 3;
localparam integer VCLIP_SRC0_BUF_LSB = 30;
localparam integer VCLIP_SRC0_BUF_W = 2;
localparam integer VCLIP_SRC0_LSB = 32;
localparam integer VCLIP_SRC0_W = 20;
localparam integer VCLIP_SRC0_FULL_W = 23;
localparam integer VCLIP_SRC0_P1_LSB = 55;
localparam integer VCLIP_SRC0_P1_W = 3;
localparam integer VCLIP_LEN_LSB = 74;
localparam integer VCLIP_LEN_W = 16;
localparam integer VCLIP_LEN_FULL_W = 23;
localparam integer VCLIP_LEN_P1_LSB = 58;
localparam integer VCLIP_LEN_P1_W = 7;
localparam integer VCLIP_LO_LSB = 90;
localparam integer VCLIP_LO_W = 16;
localparam integer VCLIP_HI_LSB = 106;
localparam integer VCLIP_HI_W = 16;

// ---- vshr (vector; unit: vector)
// semantics: dst[i] = sat(round_shift(src0[i], shift)), rounding half up (see isa.semantics.round_shift)
// timing: vector_elementwise = P + ceil(len / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 54:52 [22:20]] u: destination element address
//   src0_buf   [31:30] enum:buf: operand buffer
//   src0       [51:32 [19:0], 57:55 [22:20]] u: operand element address
//   len        [89:74 [15:0], 64:58 [22:16]] u: elements
//   shift      [94:90] u: right shift amount
localparam [7:0] OP_VSHR = 8'h37;
localparam integer VSHR_DST_BUF_LSB = 8;
localparam integer VSHR_DST_BUF_W = 2;
localparam integer VSHR_DST_LSB = 10;
localparam integer VSHR_DST_W = 20;
localparam integer VSHR_DST_FULL_W = 23;
localparam integer VSHR_DST_P1_LSB = 52;
localparam integer VSHR_DST_P1_W = 3;
localparam integer VSHR_SRC0_BUF_LSB = 30;
localparam integer VSHR_SRC0_BUF_W = 2;
localparam integer VSHR_SRC0_LSB = 32;
localparam integer VSHR_SRC0_W = 20;
localparam integer VSHR_SRC0_FULL_W = 23;
localparam integer VSHR_SRC0_P1_LSB = 55;
localparam integer VSHR_SRC0_P1_W = 3;
localparam integer VSHR_LEN_LSB = 74;
localparam integer VSHR_LEN_W = 16;
localparam integer VSHR_LEN_FULL_W = 23;
localparam integer VSHR_LEN_P1_LSB = 58;
localparam integer VSHR_LEN_P1_W = 7;
localparam integer VSHR_SHIFT_LSB = 90;
localparam integer VSHR_SHIFT_W = 5;

// ---- vrequant (vector; unit: vector)
// semantics: dst[i] = sat8(round_shift(src0[i] * mult[c], shift[c]) + zp), c = i % channels; (mult, shift) int32 pairs at src1; relu clamps below at zp. bias = 1: (bias, mult, shift) int32 triples at src1 and src0[i] becomes sat32(src0[i] + bias[c]) first, bit for bit vbias into abuf then vrequant
// timing: vector_requant = P + 2 + bias + ceil(len / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 121:119 [22:20]] u: destination element address
//   src0_buf   [31:30] enum:buf: first operand buffer
//   src0       [51:32 [19:0], 124:122 [22:20]] u: first operand element address
//   src1_buf   [53:52] enum:buf: second operand buffer
//   src1       [73:54 [19:0], 127:125 [22:20]] u: second operand element address
//   len        [89:74 [15:0], 117:111 [22:16]] u: elements
//   channels   [101:90] u: channel count (innermost dimension of src0)
//   zp         [109:102] s: output zero point
//   relu       [110] u: 1: clamp the result below at zp (fused ReLU)
//   bias       [118] u: ISA 1.1. 1: src1 holds (bias, mult, shift) triples and the per-channel bias is added (int32 saturating, as vbias) before the multiply
localparam [7:0] OP_VREQUANT = 8'h38;
localparam integer VREQUANT_DST_BUF_LSB = 8;
localparam integer VREQUANT_DST_BUF_W = 2;
localparam integer VREQUANT_DST_LSB = 10;
localparam integer VREQUANT_DST_W = 20;
localparam integer VREQUANT_DST_FULL_W = 23;
localparam integer VREQUANT_DST_P1_LSB = 119;
localparam integer VREQUANT_DST_P1_W = 3;
localparam integer VREQUANT_SRC0_BUF_LSB = 30;
localparam integer VREQUANT_SRC0_BUF_W = 2;
localparam integer VREQUANT_SRC0_LSB = 32;
localparam integer VREQUANT_SRC0_W = 20;
localparam integer VREQUANT_SRC0_FULL_W = 23;
localparam integer VREQUANT_SRC0_P1_LSB = 122;
localparam integer VREQUANT_SRC0_P1_W = 3;
localparam integer VREQUANT_SRC1_BUF_LSB = 52;
localparam integer VREQUANT_SRC1_BUF_W = 2;
localparam integer VREQUANT_SRC1_LSB = 54;
localparam integer VREQUANT_SRC1_W = 20;
localparam integer VREQUANT_SRC1_FULL_W = 23;
localparam integer VREQUANT_SRC1_P1_LSB = 125;
localparam integer VREQUANT_SRC1_P1_W = 3;
localparam integer VREQUANT_LEN_LSB = 74;
localparam integer VREQUANT_LEN_W = 16;
localparam integer VREQUANT_LEN_FULL_W = 23;
localparam integer VREQUANT_LEN_P1_LSB = 111;
localparam integer VREQUANT_LEN_P1_W = 7;
localparam integer VREQUANT_CHANNELS_LSB = 90;
localparam integer VREQUANT_CHANNELS_W = 12;
localparam integer VREQUANT_ZP_LSB = 102;
localparam integer VREQUANT_ZP_W = 8;
localparam integer VREQUANT_RELU_LSB = 110;
localparam integer VREQUANT_RELU_W = 1;
localparam integer VREQUANT_BIAS_LSB = 118;
localparam integer VREQUANT_BIAS_W = 1;

// ---- vbias (vector; unit: vector)
// semantics: dst[i] = sat(src0[i] + src1[i % channels]) (per-channel bias add)
// timing: vector_elementwise = P + ceil(len / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 121:119 [22:20]] u: destination element address
//   src0_buf   [31:30] enum:buf: first operand buffer
//   src0       [51:32 [19:0], 124:122 [22:20]] u: first operand element address
//   src1_buf   [53:52] enum:buf: second operand buffer
//   src1       [73:54 [19:0], 127:125 [22:20]] u: second operand element address
//   len        [89:74 [15:0], 117:111 [22:16]] u: elements
//   channels   [101:90] u: channel count (innermost dimension of src0)
localparam [7:0] OP_VBIAS = 8'h39;
localparam integer VBIAS_DST_BUF_LSB = 8;
localparam integer VBIAS_DST_BUF_W = 2;
localparam integer VBIAS_DST_LSB = 10;
localparam integer VBIAS_DST_W = 20;
localparam integer VBIAS_DST_FULL_W = 23;
localparam integer VBIAS_DST_P1_LSB = 119;
localparam integer VBIAS_DST_P1_W = 3;
localparam integer VBIAS_SRC0_BUF_LSB = 30;
localparam integer VBIAS_SRC0_BUF_W = 2;
localparam integer VBIAS_SRC0_LSB = 32;
localparam integer VBIAS_SRC0_W = 20;
localparam integer VBIAS_SRC0_FULL_W = 23;
localparam integer VBIAS_SRC0_P1_LSB = 122;
localparam integer VBIAS_SRC0_P1_W = 3;
localparam integer VBIAS_SRC1_BUF_LSB = 52;
localparam integer VBIAS_SRC1_BUF_W = 2;
localparam integer VBIAS_SRC1_LSB = 54;
localparam integer VBIAS_SRC1_W = 20;
localparam integer VBIAS_SRC1_FULL_W = 23;
localparam integer VBIAS_SRC1_P1_LSB = 125;
localparam integer VBIAS_SRC1_P1_W = 3;
localparam integer VBIAS_LEN_LSB = 74;
localparam integer VBIAS_LEN_W = 16;
localparam integer VBIAS_LEN_FULL_W = 23;
localparam integer VBIAS_LEN_P1_LSB = 111;
localparam integer VBIAS_LEN_P1_W = 7;
localparam integer VBIAS_CHANNELS_LSB = 90;
localparam integer VBIAS_CHANNELS_W = 12;

// ---- vmaxpool (vector; unit: vector)
// semantics: dst[oh x ow x c] = max over the pool_* window of src0[in_h x in_w x c]; padding never wins
// timing: vector_pool = P + oh * ow * kh * kw * ceil(channels / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 121:119 [22:20]] u: destination element address (HWC)
//   src0_buf   [31:30] enum:buf: source buffer
//   src0       [51:32 [19:0], 124:122 [22:20]] u: source element address (HWC)
//   in_h       [61:52] u: input height
//   in_w       [71:62] u: input width
//   channels   [83:72] u: channels (innermost)
localparam [7:0] OP_VMAXPOOL = 8'h3A;
localparam integer VMAXPOOL_DST_BUF_LSB = 8;
localparam integer VMAXPOOL_DST_BUF_W = 2;
localparam integer VMAXPOOL_DST_LSB = 10;
localparam integer VMAXPOOL_DST_W = 20;
localparam integer VMAXPOOL_DST_FULL_W = 23;
localparam integer VMAXPOOL_DST_P1_LSB = 119;
localparam integer VMAXPOOL_DST_P1_W = 3;
localparam integer VMAXPOOL_SRC0_BUF_LSB = 30;
localparam integer VMAXPOOL_SRC0_BUF_W = 2;
localparam integer VMAXPOOL_SRC0_LSB = 32;
localparam integer VMAXPOOL_SRC0_W = 20;
localparam integer VMAXPOOL_SRC0_FULL_W = 23;
localparam integer VMAXPOOL_SRC0_P1_LSB = 122;
localparam integer VMAXPOOL_SRC0_P1_W = 3;
localparam integer VMAXPOOL_IN_H_LSB = 52;
localparam integer VMAXPOOL_IN_H_W = 10;
localparam integer VMAXPOOL_IN_W_LSB = 62;
localparam integer VMAXPOOL_IN_W_W = 10;
localparam integer VMAXPOOL_CHANNELS_LSB = 72;
localparam integer VMAXPOOL_CHANNELS_W = 12;

// ---- vsumpool (vector; unit: vector)
// semantics: dst[oh x ow x c] = sat(sum over the pool_* window of src0[in_h x in_w x c]); padding adds zero; a following vrequant divides
// timing: vector_pool = P + oh * ow * kh * kw * ceil(channels / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 121:119 [22:20]] u: destination element address (HWC)
//   src0_buf   [31:30] enum:buf: source buffer
//   src0       [51:32 [19:0], 124:122 [22:20]] u: source element address (HWC)
//   in_h       [61:52] u: input height
//   in_w       [71:62] u: input width
//   channels   [83:72] u: channels (innermost)
localparam [7:0] OP_VSUMPOOL = 8'h3B;
localparam integer VSUMPOOL_DST_BUF_LSB = 8;
localparam integer VSUMPOOL_DST_BUF_W = 2;
localparam integer VSUMPOOL_DST_LSB = 10;
localparam integer VSUMPOOL_DST_W = 20;
localparam integer VSUMPOOL_DST_FULL_W = 23;
localparam integer VSUMPOOL_DST_P1_LSB = 119;
localparam integer VSUMPOOL_DST_P1_W = 3;
localparam integer VSUMPOOL_SRC0_BUF_LSB = 30;
localparam integer VSUMPOOL_SRC0_BUF_W = 2;
localparam integer VSUMPOOL_SRC0_LSB = 32;
localparam integer VSUMPOOL_SRC0_W = 20;
localparam integer VSUMPOOL_SRC0_FULL_W = 23;
localparam integer VSUMPOOL_SRC0_P1_LSB = 122;
localparam integer VSUMPOOL_SRC0_P1_W = 3;
localparam integer VSUMPOOL_IN_H_LSB = 52;
localparam integer VSUMPOOL_IN_H_W = 10;
localparam integer VSUMPOOL_IN_W_LSB = 62;
localparam integer VSUMPOOL_IN_W_W = 10;
localparam integer VSUMPOOL_CHANNELS_LSB = 72;
localparam integer VSUMPOOL_CHANNELS_W = 12;

// ---- vcopy (vector; unit: vector)
// semantics: dst[i] = sat(src0[i]): copy, or cast between int32 and int8 buffers
// timing: vector_elementwise = P + ceil(len / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 54:52 [22:20]] u: destination element address
//   src0_buf   [31:30] enum:buf: operand buffer
//   src0       [51:32 [19:0], 57:55 [22:20]] u: operand element address
//   len        [89:74 [15:0], 64:58 [22:16]] u: elements
localparam [7:0] OP_VCOPY = 8'h3C;
localparam integer VCOPY_DST_BUF_LSB = 8;
localparam integer VCOPY_DST_BUF_W = 2;
localparam integer VCOPY_DST_LSB = 10;
localparam integer VCOPY_DST_W = 20;
localparam integer VCOPY_DST_FULL_W = 23;
localparam integer VCOPY_DST_P1_LSB = 52;
localparam integer VCOPY_DST_P1_W = 3;
localparam integer VCOPY_SRC0_BUF_LSB = 30;
localparam integer VCOPY_SRC0_BUF_W = 2;
localparam integer VCOPY_SRC0_LSB = 32;
localparam integer VCOPY_SRC0_W = 20;
localparam integer VCOPY_SRC0_FULL_W = 23;
localparam integer VCOPY_SRC0_P1_LSB = 55;
localparam integer VCOPY_SRC0_P1_W = 3;
localparam integer VCOPY_LEN_LSB = 74;
localparam integer VCOPY_LEN_W = 16;
localparam integer VCOPY_LEN_FULL_W = 23;
localparam integer VCOPY_LEN_P1_LSB = 58;
localparam integer VCOPY_LEN_P1_W = 7;

// ---- vlut (vector; unit: vector)
// semantics: dst[i] = src1[src0[i] + 128]: 256-entry int8 lookup table (activation functions)
// timing: vector_elementwise = P + ceil(len / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 121:119 [22:20]] u: destination element address
//   src0_buf   [31:30] enum:buf: first operand buffer
//   src0       [51:32 [19:0], 124:122 [22:20]] u: first operand element address
//   src1_buf   [53:52] enum:buf: second operand buffer
//   src1       [73:54 [19:0], 127:125 [22:20]] u: second operand element address
//   len        [89:74 [15:0], 117:111 [22:16]] u: elements
localparam [7:0] OP_VLUT = 8'h3D;
localparam integer VLUT_DST_BUF_LSB = 8;
localparam integer VLUT_DST_BUF_W = 2;
localparam integer VLUT_DST_LSB = 10;
localparam integer VLUT_DST_W = 20;
localparam integer VLUT_DST_FULL_W = 23;
localparam integer VLUT_DST_P1_LSB = 119;
localparam integer VLUT_DST_P1_W = 3;
localparam integer VLUT_SRC0_BUF_LSB = 30;
localparam integer VLUT_SRC0_BUF_W = 2;
localparam integer VLUT_SRC0_LSB = 32;
localparam integer VLUT_SRC0_W = 20;
localparam integer VLUT_SRC0_FULL_W = 23;
localparam integer VLUT_SRC0_P1_LSB = 122;
localparam integer VLUT_SRC0_P1_W = 3;
localparam integer VLUT_SRC1_BUF_LSB = 52;
localparam integer VLUT_SRC1_BUF_W = 2;
localparam integer VLUT_SRC1_LSB = 54;
localparam integer VLUT_SRC1_W = 20;
localparam integer VLUT_SRC1_FULL_W = 23;
localparam integer VLUT_SRC1_P1_LSB = 125;
localparam integer VLUT_SRC1_P1_W = 3;
localparam integer VLUT_LEN_LSB = 74;
localparam integer VLUT_LEN_W = 16;
localparam integer VLUT_LEN_FULL_W = 23;
localparam integer VLUT_LEN_P1_LSB = 111;
localparam integer VLUT_LEN_P1_W = 7;

// ---- vrmax (vector; unit: vector)
// semantics: dst[r] = max_c src0[r, c] over a rows x cols row-major tile (one value per row)
// timing: vector_rowwise = P + rows * ceil(cols / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 54:52 [22:20]] u: destination element address (rows values)
//   src0_buf   [31:30] enum:buf: tile buffer
//   src0       [51:32 [19:0], 57:55 [22:20]] u: tile element address (rows x cols, row-major)
//   rows       [89:74] u: tile rows
//   cols       [101:90] u: tile columns (elements per row)
localparam [7:0] OP_VRMAX = 8'h50;
localparam integer VRMAX_DST_BUF_LSB = 8;
localparam integer VRMAX_DST_BUF_W = 2;
localparam integer VRMAX_DST_LSB = 10;
localparam integer VRMAX_DST_W = 20;
localparam integer VRMAX_DST_FULL_W = 23;
localparam integer VRMAX_DST_P1_LSB = 52;
localparam integer VRMAX_DST_P1_W = 3;
localparam integer VRMAX_SRC0_BUF_LSB = 30;
localparam integer VRMAX_SRC0_BUF_W = 2;
localparam integer VRMAX_SRC0_LSB = 32;
localparam integer VRMAX_SRC0_W = 20;
localparam integer VRMAX_SRC0_FULL_W = 23;
localparam integer VRMAX_SRC0_P1_LSB = 55;
localparam integer VRMAX_SRC0_P1_W = 3;
localparam integer VRMAX_ROWS_LSB = 74;
localparam integer VRMAX_ROWS_W = 16;
localparam integer VRMAX_COLS_LSB = 90;
localparam integer VRMAX_COLS_W = 12;

// ---- vrsum (vector; unit: vector)
// semantics: dst[r] = sat(sum_c src0[r, c]): the exact row sum, saturated once to the destination
// timing: vector_rowwise = P + rows * ceil(cols / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 54:52 [22:20]] u: destination element address (rows values)
//   src0_buf   [31:30] enum:buf: tile buffer
//   src0       [51:32 [19:0], 57:55 [22:20]] u: tile element address (rows x cols, row-major)
//   rows       [89:74] u: tile rows
//   cols       [101:90] u: tile columns (elements per row)
localparam [7:0] OP_VRSUM = 8'h51;
localparam integer VRSUM_DST_BUF_LSB = 8;
localparam integer VRSUM_DST_BUF_W = 2;
localparam integer VRSUM_DST_LSB = 10;
localparam integer VRSUM_DST_W = 20;
localparam integer VRSUM_DST_FULL_W = 23;
localparam integer VRSUM_DST_P1_LSB = 52;
localparam integer VRSUM_DST_P1_W = 3;
localparam integer VRSUM_SRC0_BUF_LSB = 30;
localparam integer VRSUM_SRC0_BUF_W = 2;
localparam integer VRSUM_SRC0_LSB = 32;
localparam integer VRSUM_SRC0_W = 20;
localparam integer VRSUM_SRC0_FULL_W = 23;
localparam integer VRSUM_SRC0_P1_LSB = 55;
localparam integer VRSUM_SRC0_P1_W = 3;
localparam integer VRSUM_ROWS_LSB = 74;
localparam integer VRSUM_ROWS_W = 16;
localparam integer VRSUM_COLS_LSB = 90;
localparam integer VRSUM_COLS_W = 12;

// ---- vrsub (vector; unit: vector)
// semantics: dst[r, c] = sat(src0[r, c] - src1[r]): subtract a per-row value (a row's max before vexp)
// timing: vector_rowwise = P + rows * ceil(cols / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 121:119 [22:20]] u: destination element address (rows x cols)
//   src0_buf   [31:30] enum:buf: tile buffer
//   src0       [51:32 [19:0], 124:122 [22:20]] u: tile element address (rows x cols, row-major)
//   src1_buf   [53:52] enum:buf: per-row values buffer
//   src1       [73:54 [19:0], 127:125 [22:20]] u: per-row values element address (rows values)
//   rows       [89:74] u: tile rows
//   cols       [101:90] u: tile columns (elements per row)
localparam [7:0] OP_VRSUB = 8'h52;
localparam integer VRSUB_DST_BUF_LSB = 8;
localparam integer VRSUB_DST_BUF_W = 2;
localparam integer VRSUB_DST_LSB = 10;
localparam integer VRSUB_DST_W = 20;
localparam integer VRSUB_DST_FULL_W = 23;
localparam integer VRSUB_DST_P1_LSB = 119;
localparam integer VRSUB_DST_P1_W = 3;
localparam integer VRSUB_SRC0_BUF_LSB = 30;
localparam integer VRSUB_SRC0_BUF_W = 2;
localparam integer VRSUB_SRC0_LSB = 32;
localparam integer VRSUB_SRC0_W = 20;
localparam integer VRSUB_SRC0_FULL_W = 23;
localparam integer VRSUB_SRC0_P1_LSB = 122;
localparam integer VRSUB_SRC0_P1_W = 3;
localparam integer VRSUB_SRC1_BUF_LSB = 52;
localparam integer VRSUB_SRC1_BUF_W = 2;
localparam integer VRSUB_SRC1_LSB = 54;
localparam integer VRSUB_SRC1_W = 20;
localparam integer VRSUB_SRC1_FULL_W = 23;
localparam integer VRSUB_SRC1_P1_LSB = 125;
localparam integer VRSUB_SRC1_P1_W = 3;
localparam integer VRSUB_ROWS_LSB = 74;
localparam integer VRSUB_ROWS_W = 16;
localparam integer VRSUB_COLS_LSB = 90;
localparam integer VRSUB_COLS_W = 12;

// ---- vrmul (vector; unit: vector)
// semantics: dst[r, c] = sat(round_shift(src0[r, c] * src1[r], shift)): scale each row by its own multiplier (1/sum, 1/sqrt(var))
// timing: vector_rowmul = P + 2 + rows * ceil(cols / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 121:119 [22:20]] u: destination element address (rows x cols)
//   src0_buf   [31:30] enum:buf: tile buffer
//   src0       [51:32 [19:0], 124:122 [22:20]] u: tile element address (rows x cols, row-major)
//   src1_buf   [53:52] enum:buf: per-row values buffer
//   src1       [73:54 [19:0], 127:125 [22:20]] u: per-row values element address (rows values)
//   rows       [89:74] u: tile rows
//   cols       [101:90] u: tile columns (elements per row)
//   shift      [106:102] u: right shift of the exact product, rounding half up (ignored in fp16 mode)
localparam [7:0] OP_VRMUL = 8'h53;
localparam integer VRMUL_DST_BUF_LSB = 8;
localparam integer VRMUL_DST_BUF_W = 2;
localparam integer VRMUL_DST_LSB = 10;
localparam integer VRMUL_DST_W = 20;
localparam integer VRMUL_DST_FULL_W = 23;
localparam integer VRMUL_DST_P1_LSB = 119;
localparam integer VRMUL_DST_P1_W = 3;
localparam integer VRMUL_SRC0_BUF_LSB = 30;
localparam integer VRMUL_SRC0_BUF_W = 2;
localparam integer VRMUL_SRC0_LSB = 32;
localparam integer VRMUL_SRC0_W = 20;
localparam integer VRMUL_SRC0_FULL_W = 23;
localparam integer VRMUL_SRC0_P1_LSB = 122;
localparam integer VRMUL_SRC0_P1_W = 3;
localparam integer VRMUL_SRC1_BUF_LSB = 52;
localparam integer VRMUL_SRC1_BUF_W = 2;
localparam integer VRMUL_SRC1_LSB = 54;
localparam integer VRMUL_SRC1_W = 20;
localparam integer VRMUL_SRC1_FULL_W = 23;
localparam integer VRMUL_SRC1_P1_LSB = 125;
localparam integer VRMUL_SRC1_P1_W = 3;
localparam integer VRMUL_ROWS_LSB = 74;
localparam integer VRMUL_ROWS_W = 16;
localparam integer VRMUL_COLS_LSB = 90;
localparam integer VRMUL_COLS_W = 12;
localparam integer VRMUL_SHIFT_LSB = 102;
localparam integer VRMUL_SHIFT_W = 5;

// ---- vexp (vector; unit: vector)
// semantics: dst[i] = sat(exp(min(src0[i], 0))): Q<in_frac> int32 in, Q<out_frac> out, integer-only (isa.semantics.exp_fixed)
// timing: vector_exp = P + 5 + ceil(len / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 54:52 [22:20]] u: destination element address
//   src0_buf   [31:30] enum:buf: operand buffer
//   src0       [51:32 [19:0], 57:55 [22:20]] u: operand element address
//   len        [89:74 [15:0], 64:58 [22:16]] u: elements
//   in_frac    [94:90] u: fractional bits of the input (ignored in fp16 mode)
//   out_frac   [99:95] u: fractional bits of the output: exp(0) = 2^out_frac (ignored in fp16 mode)
localparam [7:0] OP_VEXP = 8'h54;
localparam integer VEXP_DST_BUF_LSB = 8;
localparam integer VEXP_DST_BUF_W = 2;
localparam integer VEXP_DST_LSB = 10;
localparam integer VEXP_DST_W = 20;
localparam integer VEXP_DST_FULL_W = 23;
localparam integer VEXP_DST_P1_LSB = 52;
localparam integer VEXP_DST_P1_W = 3;
localparam integer VEXP_SRC0_BUF_LSB = 30;
localparam integer VEXP_SRC0_BUF_W = 2;
localparam integer VEXP_SRC0_LSB = 32;
localparam integer VEXP_SRC0_W = 20;
localparam integer VEXP_SRC0_FULL_W = 23;
localparam integer VEXP_SRC0_P1_LSB = 55;
localparam integer VEXP_SRC0_P1_W = 3;
localparam integer VEXP_LEN_LSB = 74;
localparam integer VEXP_LEN_W = 16;
localparam integer VEXP_LEN_FULL_W = 23;
localparam integer VEXP_LEN_P1_LSB = 58;
localparam integer VEXP_LEN_P1_W = 7;
localparam integer VEXP_IN_FRAC_LSB = 90;
localparam integer VEXP_IN_FRAC_W = 5;
localparam integer VEXP_OUT_FRAC_LSB = 95;
localparam integer VEXP_OUT_FRAC_W = 5;

// ---- vrecip (vector; unit: vector)
// semantics: dst[i] = sat(1 / src0[i]): Q<in_frac> int32 in, Q<out_frac> out, by Newton steps (isa.semantics.recip_fixed); 1 / 0 = INT32_MAX
// timing: vector_recip = P + 7 + ceil(len / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 54:52 [22:20]] u: destination element address
//   src0_buf   [31:30] enum:buf: operand buffer
//   src0       [51:32 [19:0], 57:55 [22:20]] u: operand element address
//   len        [89:74 [15:0], 64:58 [22:16]] u: elements
//   in_frac    [94:90] u: fractional bits of the input (ignored in fp16 mode)
//   out_frac   [99:95] u: fractional bits of the output (ignored in fp16 mode)
localparam [7:0] OP_VRECIP = 8'h55;
localparam integer VRECIP_DST_BUF_LSB = 8;
localparam integer VRECIP_DST_BUF_W = 2;
localparam integer VRECIP_DST_LSB = 10;
localparam integer VRECIP_DST_W = 20;
localparam integer VRECIP_DST_FULL_W = 23;
localparam integer VRECIP_DST_P1_LSB = 52;
localparam integer VRECIP_DST_P1_W = 3;
localparam integer VRECIP_SRC0_BUF_LSB = 30;
localparam integer VRECIP_SRC0_BUF_W = 2;
localparam integer VRECIP_SRC0_LSB = 32;
localparam integer VRECIP_SRC0_W = 20;
localparam integer VRECIP_SRC0_FULL_W = 23;
localparam integer VRECIP_SRC0_P1_LSB = 55;
localparam integer VRECIP_SRC0_P1_W = 3;
localparam integer VRECIP_LEN_LSB = 74;
localparam integer VRECIP_LEN_W = 16;
localparam integer VRECIP_LEN_FULL_W = 23;
localparam integer VRECIP_LEN_P1_LSB = 58;
localparam integer VRECIP_LEN_P1_W = 7;
localparam integer VRECIP_IN_FRAC_LSB = 90;
localparam integer VRECIP_IN_FRAC_W = 5;
localparam integer VRECIP_OUT_FRAC_LSB = 95;
localparam integer VRECIP_OUT_FRAC_W = 5;

// ---- vrsqrt (vector; unit: vector)
// semantics: dst[i] = sat(1 / sqrt(src0[i])): Q<in_frac> int32 in, Q<out_frac> out, by Newton steps (isa.semantics.rsqrt_fixed); x <= 0 gives INT32_MAX
// timing: vector_rsqrt = P + 10 + ceil(len / L) cycles
//   dst_buf    [9:8] enum:buf: destination buffer
//   dst        [29:10 [19:0], 54:52 [22:20]] u: destination element address
//   src0_buf   [31:30] enum:buf: operand buffer
//   src0       [51:32 [19:0], 57:55 [22:20]] u: operand element address
//   len        [89:74 [15:0], 64:58 [22:16]] u: elements
//   in_frac    [94:90] u: fractional bits of the input (ignored in fp16 mode)
//   out_frac   [99:95] u: fractional bits of the output (ignored in fp16 mode)
localparam [7:0] OP_VRSQRT = 8'h56;
localparam integer VRSQRT_DST_BUF_LSB = 8;
localparam integer VRSQRT_DST_BUF_W = 2;
localparam integer VRSQRT_DST_LSB = 10;
localparam integer VRSQRT_DST_W = 20;
localparam integer VRSQRT_DST_FULL_W = 23;
localparam integer VRSQRT_DST_P1_LSB = 52;
localparam integer VRSQRT_DST_P1_W = 3;
localparam integer VRSQRT_SRC0_BUF_LSB = 30;
localparam integer VRSQRT_SRC0_BUF_W = 2;
localparam integer VRSQRT_SRC0_LSB = 32;
localparam integer VRSQRT_SRC0_W = 20;
localparam integer VRSQRT_SRC0_FULL_W = 23;
localparam integer VRSQRT_SRC0_P1_LSB = 55;
localparam integer VRSQRT_SRC0_P1_W = 3;
localparam integer VRSQRT_LEN_LSB = 74;
localparam integer VRSQRT_LEN_W = 16;
localparam integer VRSQRT_LEN_FULL_W = 23;
localparam integer VRSQRT_LEN_P1_LSB = 58;
localparam integer VRSQRT_LEN_P1_W = 7;
localparam integer VRSQRT_IN_FRAC_LSB = 90;
localparam integer VRSQRT_IN_FRAC_W = 5;
localparam integer VRSQRT_OUT_FRAC_LSB = 95;
localparam integer VRSQRT_OUT_FRAC_W = 5;

// ---- signal (sync; unit: named by field 'unit')
// semantics: When the named unit reaches it (after its earlier instructions finish), increment semaphore sem.
// timing: sync = 1 cycle
//   unit       [11:8] enum:unit: unit that signals
//   sem        [16:12] u: semaphore index
localparam [7:0] OP_SIGNAL = 8'h40;
localparam integer SIGNAL_UNIT_LSB = 8;
localparam integer SIGNAL_UNIT_W = 4;
localparam integer SIGNAL_SEM_LSB = 12;
localparam integer SIGNAL_SEM_W = 5;

// ---- wait (sync; unit: named by field 'unit')
// semantics: The named unit blocks until semaphore sem is positive, then decrements it.
// timing: sync = 1 cycle
//   unit       [11:8] enum:unit: unit that waits
//   sem        [16:12] u: semaphore index
localparam [7:0] OP_WAIT = 8'h41;
localparam integer WAIT_UNIT_LSB = 8;
localparam integer WAIT_UNIT_W = 4;
localparam integer WAIT_SEM_LSB = 12;
localparam integer WAIT_SEM_W = 5;

// ---- barrier (sync; unit: dispatch)
// semantics: Core barrier: dispatch stops until every unit of this core is idle with an empty queue.
// timing: barrier = 1 cycle
localparam [7:0] OP_BARRIER = 8'h42;

// ---- gbarrier (sync; unit: dispatch)
// semantics: Global barrier: a core barrier, then wait until every core reaches the gbarrier with the same id.
// timing: barrier = 1 cycle
//   id         [15:8] u: barrier id; all cores must agree
localparam [7:0] OP_GBARRIER = 8'h43;
localparam integer GBARRIER_ID_LSB = 8;
localparam integer GBARRIER_ID_W = 8;

// enum buf: On-chip SRAM buffer. ibuf/wbuf/obuf hold int8 (fp16 in fp16 mode); abuf holds int32 (fp32).
localparam integer BUF_IBUF = 0;
localparam integer BUF_WBUF = 1;
localparam integer BUF_ABUF = 2;
localparam integer BUF_OBUF = 3;

// enum unit: Execution unit of a core: the unit whose in-order queue receives a cfg/signal/wait.
localparam integer UNIT_MATRIX = 0;
localparam integer UNIT_VECTOR = 1;
localparam integer UNIT_DMA0 = 2;
localparam integer UNIT_DMA1 = 3;
localparam integer UNIT_DMA2 = 4;
localparam integer UNIT_DMA3 = 5;
localparam integer UNIT_DMA4 = 6;
localparam integer UNIT_DMA5 = 7;
localparam integer UNIT_DMA6 = 8;
localparam integer UNIT_DMA7 = 9;

// enum reg: Configuration register, written by cfg; each belongs to one unit class and persists until rewritten.
localparam integer REG_CONV_KH = 0;
localparam integer REG_CONV_KW = 1;
localparam integer REG_CONV_STRIDE_H = 2;
localparam integer REG_CONV_STRIDE_W = 3;
localparam integer REG_CONV_PAD_TOP = 4;
localparam integer REG_CONV_PAD_LEFT = 5;
localparam integer REG_CONV_PAD_BOTTOM = 6;
localparam integer REG_CONV_PAD_RIGHT = 7;
localparam integer REG_CONV_DILATION_H = 8;
localparam integer REG_CONV_DILATION_W = 9;
localparam integer REG_POOL_KH = 16;
localparam integer REG_POOL_KW = 17;
localparam integer REG_POOL_STRIDE_H = 18;
localparam integer REG_POOL_STRIDE_W = 19;
localparam integer REG_POOL_PAD_TOP = 20;
localparam integer REG_POOL_PAD_LEFT = 21;
localparam integer REG_POOL_PAD_BOTTOM = 22;
localparam integer REG_POOL_PAD_RIGHT = 23;
localparam integer REG_DMA_PLANES = 32;
localparam integer REG_DMA_PLANE_STRIDE = 33;

// config register reset values
localparam integer REG_CONV_KH_RESET = 1;
localparam integer REG_CONV_KW_RESET = 1;
localparam integer REG_CONV_STRIDE_H_RESET = 1;
localparam integer REG_CONV_STRIDE_W_RESET = 1;
localparam integer REG_CONV_PAD_TOP_RESET = 0;
localparam integer REG_CONV_PAD_LEFT_RESET = 0;
localparam integer REG_CONV_PAD_BOTTOM_RESET = 0;
localparam integer REG_CONV_PAD_RIGHT_RESET = 0;
localparam integer REG_CONV_DILATION_H_RESET = 1;
localparam integer REG_CONV_DILATION_W_RESET = 1;
localparam integer REG_POOL_KH_RESET = 1;
localparam integer REG_POOL_KW_RESET = 1;
localparam integer REG_POOL_STRIDE_H_RESET = 1;
localparam integer REG_POOL_STRIDE_W_RESET = 1;
localparam integer REG_POOL_PAD_TOP_RESET = 0;
localparam integer REG_POOL_PAD_LEFT_RESET = 0;
localparam integer REG_POOL_PAD_BOTTOM_RESET = 0;
localparam integer REG_POOL_PAD_RIGHT_RESET = 0;
localparam integer REG_DMA_PLANES_RESET = 1;
localparam integer REG_DMA_PLANE_STRIDE_RESET = 0;
