// Matrix engine on the output-stationary array (the Target's -dataflow=os): decodes a gemm
// word, streams IBUF columns and WBUF rows into systolic_array_os and writes (or accumulates
// into) ABUF a row at a time; start -> done = npusim.timing.matrix_gemm_os cycles. The same
// ports as matrix_engine (weight-stationary), so matrix_unit and the testbench pick either.
//
// Memory lanes are combinational simple-memory reads (see buffer_mem): in stream cycle t of a
// fold whose first row is i0, lane r of the IBUF port reads ibuf + (i0 + r)*k + t and lane c
// of the WBUF port wbuf + t*n + c (wbuf + c*k + t with wt = 1: the tile stored n x k, as the
// transposed stationary operand of matrix_engine); row i of the outputs is lanes c of
// abuf + i*n + c.
`default_nettype none
module matrix_engine_os #(
    parameter integer R  = 4,
    parameter integer C  = 4,
    parameter integer AW = 20
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
    output wire [C*32-1:0] abuf_wr_data
);
/* verilator lint_off UNUSEDPARAM */  // the generated header declares every ISA constant
`include "npu_isa.vh"
/* verilator lint_on UNUSEDPARAM */

    localparam integer MW = GEMM_M_W;
    localparam integer KW = GEMM_K_W;
    localparam integer NW = GEMM_N_W;

    wire is_gemm = `F_OPCODE(instr) == OP_GEMM;
    wire take    = start && ready;

    // An opcode the engine does not execute finishes in one cycle and is flagged.
    reg bad;
    wire arr_ready, arr_busy, arr_done;
    assign ready   = arr_ready && !bad;
    assign busy    = arr_busy || bad;
    assign done    = arr_done || bad;
    assign illegal = bad;
    always @(posedge clk) bad <= !rst && take && !is_gemm;

    reg [AW-1:0] a_ptr, w_base, w_ptr, o_ptr;
    reg [KW-1:0] k_r;
    reg [NW-1:0] n_r;
    reg acc_r, wt_r;

    wire a_req, fold_end, out_step, out_valid;
    wire [C*32-1:0] out_data;
    wire [C*8-1:0]  w_bytes;

    wire [AW-1:0] k_step = {{(AW-KW){1'b0}}, k_r};
    wire [AW-1:0] n_step = {{(AW-NW){1'b0}}, n_r};
    // after a fold's k stream steps a_ptr is k past the fold's first row: the next fold's
    // first row is R - 1 rows further
    wire [AW-1:0] next_fold = a_ptr + (R[AW-1:0] - 1'b1) * k_step;

    always @(posedge clk) begin
        if (take && is_gemm) begin
            a_ptr  <= `F_GEMM_IBUF(instr);
            w_base <= `F_GEMM_WBUF(instr);
            w_ptr  <= `F_GEMM_WBUF(instr);
            o_ptr  <= `F_GEMM_ABUF(instr);
            k_r    <= `F_GEMM_K(instr);
            n_r    <= `F_GEMM_N(instr);
            acc_r  <= `F_GEMM_ACC(instr);
            wt_r   <= `F_GEMM_WT(instr);
        end else begin
            if (fold_end) begin
                a_ptr <= next_fold;
                w_ptr <= w_base;
            end else if (a_req) begin
                a_ptr <= a_ptr + 1'b1;
                // weight row t: the next row of a k x n tile, the next column of an n x k one
                w_ptr <= w_ptr + (wt_r ? {{(AW-1){1'b0}}, 1'b1} : n_step);
            end
            // R read-out steps a fold (rows past m included): o_ptr walks whole folds
            if (out_step) o_ptr <= o_ptr + n_step;
        end
    end

    genvar i;
    generate
        for (i = 0; i < R; i = i + 1) begin : g_in
            assign ibuf_addr[AW*i +: AW] = a_ptr + i * k_step;
        end
        for (i = 0; i < C; i = i + 1) begin : g_col
            wire used = i < n_r;
            wire [31:0] sum = out_data[32*i +: 32];
            assign wbuf_addr[AW*i +: AW]    = w_ptr + (wt_r ? i * k_step : i);
            // columns >= n stream zero weights: their sums are never written anyway
            assign w_bytes[8*i +: 8]        = used ? wbuf_data[8*i +: 8] : 8'd0;
            assign abuf_rd_addr[AW*i +: AW] = o_ptr + i;
            assign abuf_wr_addr[AW*i +: AW] = o_ptr + i;
            assign abuf_wr_en[i]            = out_valid && used;
            // the accumulator adder wraps, as isa.semantics.gemm does
            assign abuf_wr_data[32*i +: 32] = acc_r ? abuf_rd_data[32*i +: 32] + sum : sum;
        end
    endgenerate

    systolic_array_os #(.R(R), .C(C), .MW(MW), .KW(KW)) u_array (
        .clk(clk), .rst(rst), .start(take && is_gemm), .m(`F_GEMM_M(instr)),
        .k(`F_GEMM_K(instr)), .ready(arr_ready), .busy(arr_busy),
        .a_req(a_req), .a_data(ibuf_data), .w_data(w_bytes), .fold_end(fold_end),
        .out_step(out_step), .out_valid(out_valid), .out_data(out_data), .done(arr_done));
endmodule
`default_nettype wire
