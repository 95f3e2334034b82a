// One NPU core that runs assembled programs: instruction memory, dispatcher, one in-order
// queue per unit, the semaphore bank, the matrix unit (gemm/conv), the vector unit, one DMA
// channel, the four SRAM buffers and a DRAM model. Every size is a parameter from the Target
// (rtl_tests/params.py); the schedule is the one docs/timing.md defines for npusim.
`default_nettype none
module npu_core #(
    parameter integer R = 4,
    parameter integer C = 4,
    parameter integer L = 4,
    parameter integer P = 2,
    parameter integer BW = 4,
    parameter integer SETUP = 2,
    parameter integer PAD_LANES = 16,
    parameter integer LAT = 10,
    parameter integer DRAM_BYTES = 65536,
    parameter integer IBUF_DEPTH = 4096,
    parameter integer WBUF_DEPTH = 4096,
    parameter integer ABUF_DEPTH = 4096,
    parameter integer OBUF_DEPTH = 4096,
    parameter integer Q = 4,             // Target queue_depth
    parameter integer NSEM = 8,          // Target semaphores
    parameter integer OS = 0,            // Target dataflow: 1 = os (matrix_unit_os), 0 = ws
    parameter integer DW = 0,            // Target depthwise-mode (ws): 1 = matrix_unit_dw
    parameter integer WB = 1,            // Target weight-buffers (ws): weight banks per PE
    parameter integer IMEM_DEPTH = 1024, // instruction words
    parameter IMEM_FILE = "",            // $readmemh image of the program (else: testbench VPI)
    // derived (Verilog-2005 has no localparam here): leave at their defaults
    parameter integer IW = $clog2(IMEM_DEPTH),
    parameter integer NDMA = 1,          // one channel: the DRAM model has one port
    parameter integer NU = 2 + NDMA      // matrix, vector, dma0 (the unit enum order)
) (
    input  wire                    clk,
    input  wire                    rst,
    input  wire [IW:0]             prog_len,    // words in imem; fetch starts after reset
    output wire                    done,        // every instruction dispatched and finished
    output wire                    fault,       // sticky: something npusim would fault on
    output reg  [31:0]             cycle,       // cycles since reset: the model's env.now
    // trace: what happened at edge trc_cycle + 1 (registered there); trc_seq toggles at each
    // edge that registers an event, so a testbench need wake only then
    output reg                     trc_seq,
    output reg  [31:0]             trc_cycle,
    output reg  [IW-1:0]           trc_pc,          // pc during that cycle ...
    output reg                     trc_pc_step,     // ... and it moved on at the edge
    output reg                     trc_disp_fin,    // the nop/halt/barrier at trc_pc ended
    output reg  [NU-1:0]           trc_take,        // unit u started trc_take_index[u]
    output reg  [NU*IW-1:0]        trc_take_index,
    output reg  [NU-1:0]           trc_fin,         // unit u ended trc_cur_index[u]
    output reg  [NU*IW-1:0]        trc_cur_index,
    output reg                     trc_done,        // done first rose in that cycle
    output reg                     trc_fault        // fault first rose in that cycle
);
/* verilator lint_off UNUSEDPARAM */  // the generated header declares every ISA constant
`include "npu_isa.vh"
/* verilator lint_on UNUSEDPARAM */
    localparam integer AW = 20, DAW = 32, SW = 5;
    localparam integer UM = 0, UV = 1, UD = 2;

    reg [127:0] imem [0:IMEM_DEPTH-1];   // loaded before reset
    initial if (IMEM_FILE != "") $readmemh(IMEM_FILE, imem);

    always @(posedge clk) cycle <= rst ? 32'd0 : cycle + 32'd1;

    // ---------------------------------------------------------------- dispatch and queues
    wire [NU-1:0] push, can_push, idle, u_start, u_ready, u_done, u_illegal;
    wire [NU-1:0] sig_valid, wait_req, wait_grant;
    wire [NU*SW-1:0]  sig_sem, wait_sem;
    wire [NU*128-1:0] u_instr;
    wire [127:0]  push_word;
    wire [IW-1:0] push_index;
    wire          finished, disp_fault, sem_fault, disp_fin;
    wire          drained = &idle;
    wire [IW-1:0] pc;
    wire [NU-1:0] unit_take, unit_fin;
    wire [NU*IW-1:0] unit_take_index, unit_cur_index;

    dispatcher #(.NU(NU), .IW(IW)) u_disp (
        .clk(clk), .rst(rst), .prog_len(prog_len), .pc(pc), .word(imem[pc]),
        .push(push), .push_word(push_word), .push_index(push_index), .can_push(can_push),
        .drained(drained), .finished(finished), .fin(disp_fin), .fault(disp_fault));

    genvar u;
    generate
        for (u = 0; u < NU; u = u + 1) begin : g_q
            unit_queue #(.Q(Q), .IW(IW), .SW(SW)) u_q (
                .clk(clk), .rst(rst), .push(push[u]), .push_word(push_word),
                .push_index(push_index), .can_push(can_push[u]),
                .unit_start(u_start[u]), .unit_instr(u_instr[128*u +: 128]),
                .unit_ready(u_ready[u]), .unit_done(u_done[u]),
                .sig_valid(sig_valid[u]), .sig_sem(sig_sem[SW*u +: SW]),
                .wait_req(wait_req[u]), .wait_sem(wait_sem[SW*u +: SW]),
                .wait_grant(wait_grant[u]), .idle(idle[u]),
                .take(unit_take[u]), .take_index(unit_take_index[IW*u +: IW]),
                .fin(unit_fin[u]), .cur_index(unit_cur_index[IW*u +: IW]));
        end
    endgenerate

    semaphores #(.NSEM(NSEM), .NU(NU), .SW(SW)) u_sems (
        .clk(clk), .rst(rst), .sig_valid(sig_valid), .sig_sem(sig_sem),
        .wait_req(wait_req), .wait_sem(wait_sem), .wait_grant(wait_grant),
        .fault(sem_fault));

    reg unit_fault;
    always @(posedge clk) unit_fault <= !rst && (unit_fault || |u_illegal);
    assign fault = disp_fault || sem_fault || unit_fault;
    assign done  = finished && drained;

    // ---------------------------------------------------------------- trace capture
    // (for verification: registers only, read by nothing in the core)
    reg  done_q, fault_q;
    wire pc_step = |(push & can_push) || disp_fin;
    wire event_now = pc_step || disp_fin || |unit_take || |unit_fin ||
                     (done && !done_q) || (fault && !fault_q);
    always @(posedge clk) begin
        if (rst) begin
            trc_seq <= 1'b0;
            done_q  <= 1'b0;
            fault_q <= 1'b0;
        end else begin
            done_q  <= done;
            fault_q <= fault;
            if (event_now) begin
                trc_seq        <= !trc_seq;
                trc_cycle      <= cycle;
                trc_pc         <= pc;
                trc_pc_step    <= pc_step;
                trc_disp_fin   <= disp_fin;
                trc_take       <= unit_take;
                trc_take_index <= unit_take_index;
                trc_fin        <= unit_fin;
                trc_cur_index  <= unit_cur_index;
                trc_done       <= done && !done_q;
                trc_fault      <= fault && !fault_q;
            end
        end
    end

    // ---------------------------------------------------------------- units
    // A unit's busy is not needed: its queue knows it runs from start to done.
    /* verilator lint_off PINCONNECTEMPTY */
    localparam integer MI = (DW != 0) ? R * C : R;      // matrix input lanes (dw: one a PE)
    localparam integer MRD = MI + 2 * C, VRD = 4 * L;    // read lanes per unit
    localparam integer DWR = BW + PAD_LANES;             // DMA write lanes (data + zero fill)
    localparam integer NRD = MRD + VRD + BW, NWR = C + L + DWR;

    wire [NRD*2-1:0]  rd_sel;
    wire [NRD*AW-1:0] rd_addr;
    /* verilator lint_off UNUSEDSIGNAL */  // int8 matrix lanes: the upper 24 bits are the sign
    wire [NRD*32-1:0] rd_data;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [NWR*2-1:0]  wr_sel;
    wire [NWR-1:0]    wr_en;
    wire [NWR*AW-1:0] wr_addr;
    wire [NWR*32-1:0] wr_data;
    wire [NWR*4-1:0]  wr_be;

    // matrix: read lanes [0, MRD), write lanes [0, C)
    wire [MI*AW-1:0] m_i_addr;
    wire [C*AW-1:0] m_w_addr, m_ar_addr, m_aw_addr;
    wire [C*32-1:0] m_aw_data;
    wire [C-1:0]    m_aw_en;
    wire [MI*8-1:0] m_i_bytes;
    wire [C*8-1:0]  m_w_bytes;
    genvar g;
    generate  // int8 buffers read sign-extended: the engine takes the low bytes
        for (g = 0; g < MI; g = g + 1) begin : g_i
            assign m_i_bytes[8*g +: 8] = rd_data[32*g +: 8];
        end
        for (g = 0; g < C; g = g + 1) begin : g_w
            assign m_w_bytes[8*g +: 8] = rd_data[32*(MI+g) +: 8];
        end
    endgenerate
    generate
        if (OS != 0) begin : g_matrix_os
            matrix_unit_os #(.R(R), .C(C), .AW(AW)) u_matrix (
                .clk(clk), .rst(rst), .start(u_start[UM]), .instr(u_instr[128*UM +: 128]),
                .ready(u_ready[UM]), .busy(), .done(u_done[UM]), .illegal(u_illegal[UM]),
                .ibuf_addr(m_i_addr), .ibuf_data(m_i_bytes),
                .wbuf_addr(m_w_addr), .wbuf_data(m_w_bytes),
                .abuf_rd_addr(m_ar_addr), .abuf_rd_data(rd_data[(MI+C)*32 +: C*32]),
                .abuf_wr_en(m_aw_en), .abuf_wr_addr(m_aw_addr), .abuf_wr_data(m_aw_data));
        end else if (DW != 0) begin : g_matrix_dw
            matrix_unit_dw #(.R(R), .C(C), .AW(AW)) u_matrix (
                .clk(clk), .rst(rst), .start(u_start[UM]), .instr(u_instr[128*UM +: 128]),
                .ready(u_ready[UM]), .busy(), .done(u_done[UM]), .illegal(u_illegal[UM]),
                .ibuf_addr(m_i_addr), .ibuf_data(m_i_bytes),
                .wbuf_addr(m_w_addr), .wbuf_data(m_w_bytes),
                .abuf_rd_addr(m_ar_addr), .abuf_rd_data(rd_data[(MI+C)*32 +: C*32]),
                .abuf_wr_en(m_aw_en), .abuf_wr_addr(m_aw_addr), .abuf_wr_data(m_aw_data));
        end else begin : g_matrix_ws
            matrix_unit #(.R(R), .C(C), .AW(AW), .WB(WB)) u_matrix (
                .clk(clk), .rst(rst), .start(u_start[UM]), .instr(u_instr[128*UM +: 128]),
                .ready(u_ready[UM]), .busy(), .done(u_done[UM]), .illegal(u_illegal[UM]),
                .ibuf_addr(m_i_addr), .ibuf_data(m_i_bytes),
                .wbuf_addr(m_w_addr), .wbuf_data(m_w_bytes),
                .abuf_rd_addr(m_ar_addr), .abuf_rd_data(rd_data[(MI+C)*32 +: C*32]),
                .abuf_wr_en(m_aw_en), .abuf_wr_addr(m_aw_addr), .abuf_wr_data(m_aw_data));
        end
    endgenerate
    assign rd_sel[0 +: MRD*2]   = {{C{BUF_ABUF[1:0]}}, {C{BUF_WBUF[1:0]}}, {MI{BUF_IBUF[1:0]}}};
    assign rd_addr[0 +: MRD*AW] = {m_ar_addr, m_w_addr, m_i_addr};
    assign wr_sel[0 +: C*2]     = {C{BUF_ABUF[1:0]}};
    assign wr_en[0 +: C]        = m_aw_en;
    assign wr_addr[0 +: C*AW]   = m_aw_addr;
    assign wr_data[0 +: C*32]   = m_aw_data;
    assign wr_be[0 +: C*4]      = {C{4'hF}};

    // vector: read lanes [MRD, MRD + VRD), write lanes [C, C + L)
    wire [1:0]      va_sel, vb_sel, vc_sel, vd_sel, vw_sel;
    wire [L*AW-1:0] va_addr, vb_addr, vc_addr, vd_addr;
    vector_unit #(.L(L), .P(P), .AW(AW)) u_vector (
        .clk(clk), .rst(rst), .start(u_start[UV]), .instr(u_instr[128*UV +: 128]),
        .ready(u_ready[UV]), .busy(), .done(u_done[UV]), .illegal(u_illegal[UV]),
        .rd_a_sel(va_sel), .rd_a_addr(va_addr), .rd_a_data(rd_data[MRD*32 +: L*32]),
        .rd_b_sel(vb_sel), .rd_b_addr(vb_addr), .rd_b_data(rd_data[(MRD+L)*32 +: L*32]),
        .rd_c_sel(vc_sel), .rd_c_addr(vc_addr), .rd_c_data(rd_data[(MRD+2*L)*32 +: L*32]),
        .rd_d_sel(vd_sel), .rd_d_addr(vd_addr), .rd_d_data(rd_data[(MRD+3*L)*32 +: L*32]),
        .wr_sel(vw_sel), .wr_en(wr_en[C +: L]), .wr_addr(wr_addr[C*AW +: L*AW]),
        .wr_data(wr_data[C*32 +: L*32]));
    assign rd_sel[MRD*2 +: VRD*2]   = {{L{vd_sel}}, {L{vc_sel}}, {L{vb_sel}}, {L{va_sel}}};
    assign rd_addr[MRD*AW +: VRD*AW] = {vd_addr, vc_addr, vb_addr, va_addr};
    assign wr_sel[C*2 +: L*2]       = {L{vw_sel}};
    assign wr_be[C*4 +: L*4]        = {L{4'hF}};

    // dma0: read lanes [MRD + VRD, NRD), write lanes [C + L, NWR); the DRAM port
    wire [1:0]        d_sel;
    wire              q_valid, q_we, q_last, p_valid, p_last;
    wire [BW-1:0]     q_en;
    wire [BW*DAW-1:0] q_addr;
    wire [BW*8-1:0]   q_wdata, p_rdata;
    dma_engine #(.BW(BW), .SETUP(SETUP), .PAD_LANES(PAD_LANES), .AW(AW), .DAW(DAW)) u_dma0 (
        .clk(clk), .rst(rst), .start(u_start[UD]), .instr(u_instr[128*UD +: 128]),
        .ready(u_ready[UD]), .busy(), .done(u_done[UD]), .illegal(u_illegal[UD]),
        .req_valid(q_valid), .req_we(q_we), .req_last(q_last), .req_en(q_en),
        .req_addr(q_addr), .req_wdata(q_wdata),
        .rsp_valid(p_valid), .rsp_last(p_last), .rsp_rdata(p_rdata),
        .sram_sel(d_sel), .rd_addr(rd_addr[(MRD+VRD)*AW +: BW*AW]),
        .rd_data(rd_data[(MRD+VRD)*32 +: BW*32]),
        .wr_en(wr_en[(C+L) +: DWR]), .wr_addr(wr_addr[(C+L)*AW +: DWR*AW]),
        .wr_data(wr_data[(C+L)*32 +: DWR*32]), .wr_be(wr_be[(C+L)*4 +: DWR*4]));
    assign rd_sel[(MRD+VRD)*2 +: BW*2] = {BW{d_sel}};
    assign wr_sel[(C+L)*2 +: DWR*2]    = {DWR{d_sel}};

    dram_model #(.BW(BW), .LAT(LAT), .DRAM_BYTES(DRAM_BYTES), .DAW(DAW)) u_dram (
        .clk(clk), .rst(rst), .req_valid(q_valid), .req_we(q_we), .req_last(q_last),
        .req_en(q_en), .req_addr(q_addr), .req_wdata(q_wdata),
        .rsp_valid(p_valid), .rsp_last(p_last), .rsp_rdata(p_rdata));

    /* verilator lint_on PINCONNECTEMPTY */

    npu_buffers #(.IBUF_DEPTH(IBUF_DEPTH), .WBUF_DEPTH(WBUF_DEPTH), .ABUF_DEPTH(ABUF_DEPTH),
                  .OBUF_DEPTH(OBUF_DEPTH), .AW(AW), .NRD(NRD), .NWR(NWR)) u_bufs (
        .clk(clk), .rd_sel(rd_sel), .rd_addr(rd_addr), .rd_data(rd_data),
        .wr_sel(wr_sel), .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data), .wr_be(wr_be));
endmodule
`default_nettype wire
