// Matrix engine: decodes a gemm word, feeds the systolic array from IBUF/WBUF and writes
// (or accumulates into) ABUF; start -> done = npusim.timing.matrix_gemm cycles.
//
// Memory lanes are combinational simple-memory reads (see buffer_mem); lane r of the IBUF
// port reads ibuf + i*k + r, lane c of the WBUF port wbuf + j*n + c, lane c of the ABUF
// ports abuf + i*n + c (row-major tiles, as the ISA defines them). With wt = 1 the weight
// tile is stored n x k: preload step j takes column j of it, lane c reading wbuf + c*k + j
// (the same k steps of n values, so the same cycles).
//
// WB = 2 (Target -weight-buffers=2, systolic_array.v): the matrix unit's conv hands the engine
// its passes as gemm words whenever pass_ready, each pass's load overlapping the stream before
// it; output rows take their pass's acc bit from the array and restart at the abuf address at
// each pass's row 0 (a conv's passes share abuf and n). A lone gemm is one pass, pass_last = 1:
// the same k + m + R + C - 1 cycles as at WB = 1.
`default_nettype none
module matrix_engine #(
    parameter integer R  = 4,
    parameter integer C  = 4,
    parameter integer AW = 20,
    parameter integer WB = 1     // weight banks per PE (Target -weight-buffers)
) (
    input  wire           clk,
    input  wire           rst,
    input  wire           start,      // instr is taken when start && ready
    /* verilator lint_off UNUSEDSIGNAL */  // the engine decodes only its instructions' fields
    input  wire [127:0]   instr,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire           ready,
    output wire           busy,
    output wire           done,       // the instruction's last cycle (results written at this edge)
    output wire           illegal,    // pulses with done for an opcode this unit does not run
    output wire [R*AW-1:0] ibuf_addr,
    input  wire [R*8-1:0]  ibuf_data,
    output wire [C*AW-1:0] wbuf_addr,
    input  wire [C*8-1:0]  wbuf_data,
    output wire [C*AW-1:0] abuf_rd_addr,
    input  wire [C*32-1:0] abuf_rd_data,
    output wire [C-1:0]    abuf_wr_en,
    output wire [C*AW-1:0] abuf_wr_addr,
    output wire [C*32-1:0] abuf_wr_data,
    // WB = 2: start is a further pass of the instruction in flight (taken on pass_ready, not
    // ready); the pass taken now is its instruction's last (a gemm's only one); the engine
    // may take a further pass now; a pass's row 0 streams in the next cycle (WB = 1: ready, 0)
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire            pass_next,
    input  wire            pass_last,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire            pass_ready,
    output wire            st_start
);
/* verilator lint_off UNUSEDPARAM */  // the generated header declares every ISA constant
`include "npu_isa.vh"
/* verilator lint_on UNUSEDPARAM */

    localparam integer MW = GEMM_M_W;
    localparam integer KW = GEMM_K_W;

    wire is_gemm = `F_OPCODE(instr) == OP_GEMM;
    wire take    = start && ((WB != 1 && pass_next) ? pass_ready : ready);

    // An opcode the engine does not execute finishes in one cycle and is flagged.
    reg bad;
    wire arr_ready, arr_busy, arr_done;
    assign ready   = arr_ready && !bad;
    assign busy    = arr_busy || bad;
    assign done    = arr_done || bad;
    assign illegal = bad;
    always @(posedge clk) bad <= !rst && take && !is_gemm;

    reg [AW-1:0] a_ptr, w_ptr, o_ptr, o_base;
    reg [KW-1:0] k_r;
    reg [GEMM_N_W-1:0] n_r;
    reg acc_r;
    reg wt_r;

    wire          w_req, a_req, out_valid, out_acc, out_first;
    wire          arr_pass_ready;
    assign pass_ready = arr_pass_ready && !bad;
    wire [C*32-1:0] out_data;
    wire [C*8-1:0]  w_bytes;

    wire [KW-1:0]       k_in = `F_GEMM_K(instr);
    wire [GEMM_N_W-1:0] n_in = `F_GEMM_N(instr);
    wire [KW-1:0]       k_last = k_in - 1'b1;
    wire [KW+GEMM_N_W-1:0] k_last_n = k_last * n_in;  // (k-1)*n, full width
    wire [AW-1:0] last_row_off = {{(AW-KW-GEMM_N_W){1'b0}}, k_last_n};
    wire [AW-1:0] k_step = {{(AW-KW){1'b0}}, k_r};
    wire          wt_in  = `F_GEMM_WT(instr);
    wire [AW-1:0] n_step = {{(AW-GEMM_N_W){1'b0}}, n_r};
    // the address of this cycle's output row (WB = 2: a pass's row 0 starts at abuf)
    wire [AW-1:0] o_row = (WB != 1 && out_first) ? o_base : o_ptr;
    wire          o_acc = (WB != 1) ? out_acc : acc_r;

    always @(posedge clk) begin
        if (take && is_gemm) begin
            a_ptr <= `F_GEMM_IBUF(instr);
            // weight rows are fed bottom-up, so the pointer starts at row k-1 and walks back
            w_ptr <= `F_GEMM_WBUF(instr) + (wt_in ? {{(AW-KW){1'b0}}, k_last} : last_row_off);
            wt_r  <= wt_in;
            if (WB == 1) o_ptr <= `F_GEMM_ABUF(instr);
            if (WB != 1) o_base <= `F_GEMM_ABUF(instr);
            k_r   <= k_in;
            n_r   <= n_in;
            acc_r <= `F_GEMM_ACC(instr);
        end else begin
            if (w_req) w_ptr <= w_ptr - (wt_r ? {{(AW-1){1'b0}}, 1'b1} : n_step);
            if (a_req) a_ptr <= a_ptr + k_step;
            if (out_valid && WB == 1) o_ptr <= o_ptr + n_step;
        end
        // WB = 2: a later pass's take must not move the rows still draining
        if (out_valid && WB != 1) o_ptr <= o_row + n_step;
    end

    genvar i;
    generate
        for (i = 0; i < R; i = i + 1) begin : g_in
            assign ibuf_addr[AW*i +: AW] = a_ptr + i;
        end
        for (i = 0; i < C; i = i + 1) begin : g_col
            wire used = i < n_r;
            wire [31:0] sum = out_data[32*i +: 32];
            localparam [AW-1:0] LANE = i;
            assign wbuf_addr[AW*i +: AW]    = w_ptr + (wt_r ? LANE * k_step : LANE);
            // columns >= n load zero weights: their sums are never written anyway
            assign w_bytes[8*i +: 8]        = used ? wbuf_data[8*i +: 8] : 8'd0;
            assign abuf_rd_addr[AW*i +: AW] = o_row + i;
            assign abuf_wr_addr[AW*i +: AW] = o_row + i;
            assign abuf_wr_en[i]            = out_valid && used;
            // the accumulator adder wraps, as isa.semantics.gemm does
            assign abuf_wr_data[32*i +: 32] = o_acc ? abuf_rd_data[32*i +: 32] + sum : sum;
        end
    endgenerate

    systolic_array #(.R(R), .C(C), .MW(MW), .KW(KW), .WB(WB)) u_array (
        .clk(clk), .rst(rst), .start(take && is_gemm), .m(`F_GEMM_M(instr)), .k(k_in),
        .pass_acc(`F_GEMM_ACC(instr)), .pass_last(pass_last), .pass_ready(arr_pass_ready),
        .st_start(st_start), .out_acc(out_acc), .out_first(out_first),
        .ready(arr_ready), .busy(arr_busy),
        // the pointers above address the buffers, so the row indices stay unconnected
        /* verilator lint_off PINCONNECTEMPTY */
        .w_req(w_req), .w_row(), .w_data(w_bytes),
        .a_req(a_req), .a_row(), .a_data(ibuf_data),
        .out_valid(out_valid), .out_row(), .out_data(out_data), .done(arr_done));
        /* verilator lint_on PINCONNECTEMPTY */
endmodule
`default_nettype wire
