// Fetch/dispatch of one core: one instruction per cycle from the instruction memory into the
// in-order queue of its unit, nop/halt/barrier executed here (docs/timing.md, conventions 1,
// 2, 6, 7). The instruction at pc is dispatched during [t, t+1) and pushed at edge t+1 (or
// at the first later edge its queue can take it); a barrier ends one edge after the first
// cycle that sees every unit drained. The stream ends at halt or past its last instruction.
`default_nettype none
module dispatcher #(
    parameter integer NU = 3,    // units: matrix, vector, dma0 .. (the ISA's unit enum order)
    parameter integer IW = 10    // pc width
) (
    input  wire          clk,
    input  wire          rst,
    input  wire [IW:0]   prog_len,   // instructions in the program
    output wire [IW-1:0] pc,         // fetch address (instruction memory read is combinational)
    input  wire [127:0]  word,       // imem[pc]
    // to the unit queues (one push a cycle, to the unit `push_unit`)
    output wire [NU-1:0] push,
    output wire [127:0]  push_word,
    output wire [IW-1:0] push_index,
    input  wire [NU-1:0] can_push,
    input  wire          drained,    // every queue empty, every unit idle
    // state
    output wire          finished,   // no more instructions to dispatch
    output wire          fin,        // a nop/halt/barrier ends at the coming edge
    output reg           fault       // sticky: an opcode no unit runs, or a unit this core lacks
);
/* verilator lint_off UNUSEDPARAM */  // the generated header declares every ISA constant
`include "npu_isa.vh"
/* verilator lint_on UNUSEDPARAM */

    reg [IW:0] pc_r;
    reg        halted;

    wire [7:0] op = `F_OPCODE(word);
    wire is_here    = op == OP_NOP || op == OP_HALT || op == OP_BARRIER || op == OP_GBARRIER;
    wire is_barrier = op == OP_BARRIER || op == OP_GBARRIER;  // one core: gbarrier == barrier
    wire is_dma     = op == OP_LOAD || op == OP_STORE;
    wire is_matrix  = op == OP_GEMM || op == OP_CONV || op == OP_DWCONV;
    wire is_vector  = op == OP_VADD || op == OP_VSUB || op == OP_VMUL || op == OP_VMAX ||
                      op == OP_VMIN || op == OP_VRELU || op == OP_VCLIP || op == OP_VSHR ||
                      op == OP_VREQUANT || op == OP_VBIAS || op == OP_VMAXPOOL ||
                      op == OP_VSUMPOOL || op == OP_VCOPY || op == OP_VLUT ||
                      op == OP_VRMAX || op == OP_VRSUM || op == OP_VRSUB || op == OP_VRMUL ||
                      op == OP_VEXP || op == OP_VRECIP || op == OP_VRSQRT;
    wire by_field   = op == OP_CFG || op == OP_SIGNAL || op == OP_WAIT;

    // the unit enum: matrix = 0, vector = 1, dma<c> = 2 + c; cfg/signal/wait name it in the
    // same bits, load/store name the channel (load and store share the chan field)
    wire [4:0] unit = is_matrix ? UNIT_MATRIX[4:0] :
                      is_vector ? UNIT_VECTOR[4:0] :
                      is_dma    ? UNIT_DMA0[4:0] + {2'b00, `F_LOAD_CHAN(word)} :
                                  {1'b0, `F_CFG_UNIT(word)};
    wire routed = (is_dma || is_matrix || is_vector || by_field) && unit < NU[4:0];

    wire active = !halted && pc_r < prog_len && !fault;
    wire here   = active && is_here;
    wire go     = active && routed && !is_here;

    genvar u;
    generate
        for (u = 0; u < NU; u = u + 1) begin : g_push
            assign push[u] = go && unit == u;
        end
    endgenerate
    wire pushed = go && |(push & can_push);

    assign fin        = here && (!is_barrier || drained);
    assign finished   = !active;
    assign pc         = pc_r[IW-1:0];
    assign push_word  = word;
    assign push_index = pc_r[IW-1:0];

    always @(posedge clk) begin
        if (rst) begin
            pc_r   <= {(IW+1){1'b0}};
            halted <= 1'b0;
            fault  <= 1'b0;
        end else begin
            if (pushed || fin) pc_r <= pc_r + 1'b1;
            if (fin && op == OP_HALT) halted <= 1'b1;
            if (active && !is_here && !routed) fault <= 1'b1;
        end
    end
endmodule
`default_nettype wire
