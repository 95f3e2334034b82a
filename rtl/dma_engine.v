// One DMA channel: load (DRAM -> SRAM, zero padding) and store (SRAM -> DRAM) of 2-D/3-D
// strided tiles, and its dma_* config registers. Cycle-exact to npusim.timing.dma:
//   max(S + Lat + ceil(bytes / BW), ceil(fill / F))   (S = SETUP, F = PAD_LANES here; Lat and
//   BW are the DRAM model's; fill = the padded tile's elements, 0 without padding)
// S setup cycles, then one BW-byte beat requested per cycle; a load writes each response into
// SRAM as it returns, a store finishes with the last write's acknowledgement. Padding is
// written by a zero-fill walker that starts at edge 0 beside the beats, PAD_LANES positions
// per cycle; the load ends when both are done (docs/rtl.md).
`default_nettype none
module dma_engine #(
    parameter integer BW        = 4,   // DRAM bytes per beat (Target dram_bw)
    parameter integer SETUP     = 2,   // Target dma_setup
    parameter integer PAD_LANES = 16,  // Target dma_fill_lanes (zero-fill positions per cycle)
    parameter integer AW        = 20,
    parameter integer DAW       = 32
) (
    input  wire            clk,
    input  wire            rst,
    input  wire            start,
    /* verilator lint_off UNUSEDSIGNAL */  // the channel decodes only its instructions' fields
    input  wire [127:0]    instr,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire            ready,
    output wire            busy,
    output wire            done,
    output wire            illegal,
    // DRAM port (dram_model)
    output wire            req_valid,
    output wire            req_we,
    output wire            req_last,
    output wire [BW-1:0]   req_en,
    output wire [BW*DAW-1:0] req_addr,
    output wire [BW*8-1:0] req_wdata,
    input  wire            rsp_valid,
    input  wire            rsp_last,
    input  wire [BW*8-1:0] rsp_rdata,
    // SRAM: BW read lanes (store), BW data + PAD_LANES zero write lanes (load)
    output wire [1:0]      sram_sel,
    output wire [BW*AW-1:0] rd_addr,
    input  wire [BW*32-1:0] rd_data,
    output wire [BW+PAD_LANES-1:0]      wr_en,
    output wire [(BW+PAD_LANES)*AW-1:0] wr_addr,
    output wire [(BW+PAD_LANES)*32-1:0] wr_data,
    output wire [(BW+PAD_LANES)*4-1:0]  wr_be
);
/* verilator lint_off UNUSEDPARAM */  // the generated header declares every ISA constant
`include "npu_isa.vh"
/* verilator lint_on UNUSEDPARAM */

    // ---------------------------------------------------------------- decode
    wire [7:0] op_in   = `F_OPCODE(instr);
    wire is_load_in    = op_in == OP_LOAD;
    wire is_store_in   = op_in == OP_STORE;
    wire is_cfg_in     = op_in == OP_CFG;
    wire [7:0]  cfg_reg   = `F_CFG_REG(instr);
    wire [31:0] cfg_value = `F_CFG_VALUE(instr);
    wire cfg_ok = cfg_reg == REG_DMA_PLANES[7:0] || cfg_reg == REG_DMA_PLANE_STRIDE[7:0];

    // load and store share the layout of their common fields; each is decoded by its own macro
    wire [1:0]     buf_in   = is_load_in ? `F_LOAD_BUF(instr)  : `F_STORE_BUF(instr);
    wire [AW-1:0]  sram_in  = is_load_in ? `F_LOAD_SRAM(instr) : `F_STORE_SRAM(instr);
    wire [DAW-1:0] dram_in  = is_load_in ? `F_LOAD_DRAM(instr) : `F_STORE_DRAM(instr);
    wire [11:0]    rows_in  = is_load_in ? `F_LOAD_ROWS(instr) : `F_STORE_ROWS(instr);
    wire [11:0]    cols_in  = is_load_in ? `F_LOAD_COLS(instr) : `F_STORE_COLS(instr);
    wire [23:0]    stride_in = is_load_in ? `F_LOAD_STRIDE(instr) : `F_STORE_STRIDE(instr);
    wire [2:0] pt = is_load_in ? `F_LOAD_PAD_TOP(instr)    : 3'd0;
    wire [2:0] pb = is_load_in ? `F_LOAD_PAD_BOTTOM(instr) : 3'd0;
    wire [2:0] pl = is_load_in ? `F_LOAD_PAD_LEFT(instr)   : 3'd0;
    wire [2:0] pr = is_load_in ? `F_LOAD_PAD_RIGHT(instr)  : 3'd0;

    // abuf holds 4-byte elements, the others 1-byte ones (the int8 datapath)
    wire [1:0]  ebs       = buf_in == BUF_ABUF[1:0] ? 2'd2 : 2'd0;
    wire [13:0] row_bytes = {2'b00, cols_in} << ebs;
    wire [12:0] pcol      = {10'd0, pl} + {1'b0, cols_in} + {10'd0, pr};
    wire [12:0] prow      = {10'd0, pt} + {1'b0, rows_in} + {10'd0, pb};
    wire [12:0] vpad      = {10'd0, pt} + {10'd0, pb};

    // dma_* registers (cfg unit=dmaN), at their spec reset values
    reg [11:0] planes;
    reg [31:0] plane_stride;

    wire [31:0]    total  = planes * rows_in * row_bytes;
    wire [31:0]    extent = planes * prow * pcol;
    wire [12:0]    top_off = {10'd0, pt} * pcol;  // padding rows never exceed the SRAM space
    wire [AW-1:0]  first  = sram_in + {{(AW-13){1'b0}}, top_off} + {{(AW-3){1'b0}}, pl};
    // from a plane's last data row to the next plane's first: the bottom and top pad rows too
    wire [AW-1:0]  plane_step = {{(AW-13){1'b0}}, pcol} * {{(AW-13){1'b0}}, vpad + 13'd1};
    wire           has_pad = is_load_in && (pt != 3'd0 || pb != 3'd0 || pl != 3'd0 || pr != 3'd0);

    // ---------------------------------------------------------------- control
    localparam [1:0] IDLE = 2'd0, ONE = 2'd1, SETUP_W = 2'd2, XFER = 2'd3;
    localparam [15:0] SETUP_LAST = SETUP[15:0] - 16'd1;
    reg [1:0]  state;
    reg        bad, load, req_left, data_fin;
    reg [1:0]  buf_r;
    reg [15:0] cnt;
    wire take = start && ready;
    wire pad_active, pad_last;
    wire data_end = rsp_valid && rsp_last;
    wire data_ok  = data_fin || data_end;
    wire pad_ok   = !pad_active || pad_last;
    assign done    = state == ONE || (state == XFER && data_ok && pad_ok);
    assign ready   = state == IDLE || done;
    assign busy    = state != IDLE;
    assign illegal = state == ONE && bad;

    wire [BW-1:0] q_valid;
    wire          q_last;
    assign req_valid = state == XFER && req_left;
    assign req_we    = !load;
    assign req_last  = q_last;
    assign req_en    = req_valid ? q_valid : {BW{1'b0}};

    always @(posedge clk) begin
        if (rst) begin
            state <= IDLE;
            bad <= 1'b0;
            req_left <= 1'b0;
            planes <= REG_DMA_PLANES_RESET[11:0];
            plane_stride <= REG_DMA_PLANE_STRIDE_RESET[31:0];
        end else if (take) begin
            bad      <= !(is_load_in || is_store_in || (is_cfg_in && cfg_ok));
            load     <= is_load_in;
            buf_r    <= buf_in;
            data_fin <= 1'b0;
            req_left <= is_load_in || is_store_in;
            cnt      <= 16'd0;
            state    <= !(is_load_in || is_store_in) ? ONE : (SETUP == 0) ? XFER : SETUP_W;
            if (is_cfg_in && cfg_reg == REG_DMA_PLANES[7:0]) planes <= cfg_value[11:0];
            if (is_cfg_in && cfg_reg == REG_DMA_PLANE_STRIDE[7:0]) plane_stride <= cfg_value;
        end else begin
            case (state)
                ONE:     state <= IDLE;
                SETUP_W: if (cnt == SETUP_LAST) state <= XFER;
                         else cnt <= cnt + 1'b1;
                XFER:    if (done) state <= IDLE;
                default: ;
            endcase
            if (req_valid && q_last) req_left <= 1'b0;
            if (data_end) data_fin <= 1'b1;
        end
    end

    // ---------------------------------------------------------------- address generators
    wire [BW*DAW-1:0] q_dram;
    wire [BW*AW-1:0]  q_sram, s_sram;
    wire [BW*2-1:0]   q_off, s_off;
    wire [BW-1:0]     s_valid;
    wire init = take && (is_load_in || is_store_in);

    // request side: DRAM addresses of each beat (and, for a store, the SRAM bytes to send)
    dma_addr_gen #(.BW(BW), .AW(AW), .DAW(DAW)) u_req (
        .clk(clk), .init(init), .step(req_valid), .dram(dram_in), .stride(stride_in),
        .plane_stride(plane_stride), .rows(rows_in), .row_bytes(row_bytes),
        .sram_first(first), .sram_row(pcol), .sram_plane(plane_step), .ebs(ebs), .total(total),
        .lane_valid(q_valid), .lane_dram(q_dram), .lane_sram(q_sram), .lane_off(q_off),
        .last(q_last));
    // response side: where each returning byte of a load lands in SRAM
    dma_addr_gen #(.BW(BW), .AW(AW), .DAW(DAW)) u_rsp (
        .clk(clk), .init(init), .step(rsp_valid && load), .dram(dram_in), .stride(stride_in),
        .plane_stride(plane_stride), .rows(rows_in), .row_bytes(row_bytes),
        .sram_first(first), .sram_row(pcol), .sram_plane(plane_step), .ebs(ebs), .total(total),
        /* verilator lint_off PINCONNECTEMPTY */  // DRAM side is the request generator's
        .lane_valid(s_valid), .lane_dram(), .lane_sram(s_sram), .lane_off(s_off), .last());
        /* verilator lint_on PINCONNECTEMPTY */

    wire [PAD_LANES-1:0]    z_en;
    wire [PAD_LANES*AW-1:0] z_addr;
    dma_pad_gen #(.LANES(PAD_LANES), .AW(AW)) u_pad (
        .clk(clk), .rst(rst), .init(take && has_pad), .base(sram_in), .extent(extent),
        .prow(prow), .pcol(pcol), .pt(pt), .rows(rows_in), .pl(pl), .cols(cols_in),
        .active(pad_active), .wr_en(z_en), .wr_addr(z_addr), .last(pad_last));

    // ---------------------------------------------------------------- data lanes
    assign sram_sel = buf_r;
    assign req_addr = q_dram;
    assign rd_addr  = q_sram;
    genvar j;
    generate
        for (j = 0; j < BW; j = j + 1) begin : g_byte
            wire [31:0] word = rd_data[32*j +: 32];
            wire [1:0]  qo = q_off[2*j +: 2];
            wire [1:0]  so = s_off[2*j +: 2];
            wire [7:0]  byte_in = rsp_rdata[8*j +: 8];
            assign req_wdata[8*j +: 8] = word[8*qo +: 8];  // little-endian element bytes
            assign wr_en[j]            = rsp_valid && load && s_valid[j];
            assign wr_addr[AW*j +: AW] = s_sram[AW*j +: AW];
            assign wr_data[32*j +: 32] = {24'd0, byte_in} << (8 * so);
            assign wr_be[4*j +: 4]     = 4'd1 << so;
        end
        for (j = 0; j < PAD_LANES; j = j + 1) begin : g_zero
            assign wr_en[BW + j]                = z_en[j];
            assign wr_addr[AW*(BW + j) +: AW]   = z_addr[AW*j +: AW];
            assign wr_data[32*(BW + j) +: 32]   = 32'd0;
            assign wr_be[4*(BW + j) +: 4]       = 4'hF;
        end
    endgenerate
endmodule
`default_nettype wire
