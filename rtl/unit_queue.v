// One unit's in-order instruction queue (Q entries) and its issue stage, which runs signal and
// wait itself and hands every other instruction to the unit. Cycle rules (docs/timing.md):
// a word pushed at edge t into the empty queue of an idle unit starts at t (bypass); the unit
// starts its next instruction at the edge its current one ends; a slot freed at an edge can
// take a push at that same edge. signal: 1 cycle, the increment lands at its end edge.
// wait: blocks until the semaphore bank grants (value > 0), then ends at the next edge.
`default_nettype none
module unit_queue #(
    parameter integer Q  = 4,   // entries (Target queue_depth), not counting the running one
    parameter integer IW = 10,  // instruction index width (trace)
    parameter integer SW = 5    // semaphore index width (the ISA's sem field)
) (
    input  wire          clk,
    input  wire          rst,
    // from the dispatcher
    input  wire          push,
    input  wire [127:0]  push_word,
    input  wire [IW-1:0] push_index,
    output wire          can_push,   // the push (if any) is accepted at the coming edge
    // to the unit
    output wire          unit_start,
    output wire [127:0]  unit_instr,
    input  wire          unit_ready, // idle, or ending its instruction this cycle
    input  wire          unit_done,
    // to the semaphore bank
    output wire          sig_valid,  // a signal ends this cycle: increment sig_sem at the edge
    output wire [SW-1:0] sig_sem,
    output wire          wait_req,   // a wait is blocked on wait_sem
    output wire [SW-1:0] wait_sem,
    input  wire          wait_grant, // ... and takes one unit of it at the coming edge
    // state and trace
    output wire          idle,       // nothing queued, nothing running
    output wire          take,       // an instruction starts at the coming edge ...
    output wire [IW-1:0] take_index, // ... this one
    output wire          fin,        // the running instruction ends at the coming edge ...
    output wire [IW-1:0] cur_index   // ... this one
);
/* verilator lint_off UNUSEDPARAM */  // the generated header declares every ISA constant
`include "npu_isa.vh"
/* verilator lint_on UNUSEDPARAM */

    localparam integer CW = $clog2(Q + 1);
    localparam integer PW = (Q > 1) ? $clog2(Q) : 1;
    localparam [CW-1:0] QN = Q[CW-1:0];
    localparam [PW-1:0] QLAST = Q[PW-1:0] - 1'b1;
    localparam [1:0] S_IDLE = 2'd0, S_UNIT = 2'd1, S_SIG = 2'd2, S_WAIT = 2'd3;

    reg [127:0]  fifo_word  [0:Q-1];
    reg [IW-1:0] fifo_index [0:Q-1];
    reg [PW-1:0] rd_ptr, wr_ptr;
    reg [CW-1:0] count;
    reg [1:0]    state;
    reg [IW-1:0] cur;
    reg [SW-1:0] sem_r;

    // head: the oldest queued word, or the word being pushed when the queue is empty
    wire          queued     = count != {CW{1'b0}};
    wire          head_valid = queued || push;
    wire [127:0]  head_word  = queued ? fifo_word[rd_ptr] : push_word;
    wire [IW-1:0] head_index = queued ? fifo_index[rd_ptr] : push_index;
    wire [7:0]    head_op    = `F_OPCODE(head_word);
    wire          head_sig   = head_op == OP_SIGNAL;
    wire          head_wait  = head_op == OP_WAIT;

    assign fin  = (state == S_UNIT && unit_done) || state == S_SIG ||
                  (state == S_WAIT && wait_grant);
    // the unit's own ready is redundant with `fin` for a well-behaved unit; requiring it too
    // keeps a unit that needs an extra cycle from being handed a word it would drop
    assign take = head_valid && (state == S_IDLE || fin) &&
                  (head_sig || head_wait || unit_ready);
    assign can_push   = count < QN || (queued && take);
    assign take_index = head_index;
    assign cur_index  = cur;
    assign idle       = state == S_IDLE && !queued;

    assign unit_start = take && !head_sig && !head_wait;
    assign unit_instr = head_word;
    assign sig_valid  = state == S_SIG;
    assign sig_sem    = sem_r;
    assign wait_req   = state == S_WAIT;
    assign wait_sem   = sem_r;

    wire pop    = take && queued;
    wire stored = push && can_push && !(take && !queued);  // a bypassed word is not stored

    always @(posedge clk) begin
        if (rst) begin
            state  <= S_IDLE;
            cur    <= {IW{1'b0}};
            sem_r  <= {SW{1'b0}};
            count  <= {CW{1'b0}};
            rd_ptr <= {PW{1'b0}};
            wr_ptr <= {PW{1'b0}};
        end else begin
            if (stored) begin
                fifo_word[wr_ptr]  <= push_word;
                fifo_index[wr_ptr] <= push_index;
                wr_ptr <= (wr_ptr == QLAST) ? {PW{1'b0}} : wr_ptr + 1'b1;
            end
            if (pop) rd_ptr <= (rd_ptr == QLAST) ? {PW{1'b0}} : rd_ptr + 1'b1;
            count <= count + {{(CW-1){1'b0}}, stored} - {{(CW-1){1'b0}}, pop};
            if (take) begin
                state <= head_sig ? S_SIG : head_wait ? S_WAIT : S_UNIT;
                cur   <= head_index;
                // signal and wait share the layout of their sem field
                sem_r <= `F_SIGNAL_SEM(head_word);
            end else if (fin) begin
                state <= S_IDLE;
            end
        end
    end
endmodule
`default_nettype wire
