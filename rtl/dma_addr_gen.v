// DMA address generator: walks the byte stream of a planes x rows x row_bytes transfer, BW
// bytes per step, giving each byte lane its DRAM byte address and its SRAM element address
// and byte offset. Lanes are chained so a beat may cross any number of row and plane ends.
`default_nettype none
module dma_addr_gen #(
    parameter integer BW  = 4,
    parameter integer AW  = 20,   // SRAM element address width
    parameter integer DAW = 32    // DRAM byte address width
) (
    input  wire           clk,
    input  wire           init,        // latch the geometry below (instruction start)
    input  wire           step,        // this beat is consumed: advance BW bytes
    input  wire [DAW-1:0] dram,        // first byte of the transfer
    input  wire [23:0]    stride,      // DRAM bytes between rows
    input  wire [31:0]    plane_stride,// DRAM bytes between planes
    input  wire [11:0]    rows,        // rows per plane
    input  wire [13:0]    row_bytes,   // bytes per row (cols * element bytes)
    input  wire [AW-1:0]  sram_first,  // element address of the first data element
    input  wire [12:0]    sram_row,    // SRAM elements from one data row to the next
    input  wire [AW-1:0]  sram_plane,  // SRAM elements from a plane's last row to the next's first
    input  wire [1:0]     ebs,         // log2 element bytes
    input  wire [31:0]    total,       // bytes in the transfer
    output wire [BW-1:0]  lane_valid,
    output wire [BW*DAW-1:0] lane_dram,
    output wire [BW*AW-1:0]  lane_sram,
    output wire [BW*2-1:0]   lane_off,  // byte within the element
    output wire           last         // the current beat is the transfer's last
);
    reg [23:0]    stride_r;
    reg [31:0]    pstride_r, rem;
    reg [11:0]    rows_r;
    reg [13:0]    rbytes_r;
    reg [12:0]    srow_step;
    reg [AW-1:0]  splane_step;
    reg [1:0]     ebs_r;
    // walking state of lane 0
    reg [13:0]    cb;
    reg [11:0]    r;
    reg [DAW-1:0] drow, dplane;
    reg [AW-1:0]  srow;

    // lane j's walking state; each array is a chain across lanes, not a loop
    wire [13:0]    c_cb    [0:BW] /*verilator split_var*/;
    wire [11:0]    c_r     [0:BW] /*verilator split_var*/;
    wire [DAW-1:0] c_drow  [0:BW] /*verilator split_var*/;
    wire [DAW-1:0] c_dplane[0:BW] /*verilator split_var*/;
    wire [AW-1:0]  c_srow  [0:BW] /*verilator split_var*/;
    localparam [31:0] BW32 = BW[31:0];
    assign c_cb[0] = cb;  assign c_r[0] = r;  assign c_drow[0] = drow;
    assign c_dplane[0] = dplane;  assign c_srow[0] = srow;

    genvar j;
    generate
        for (j = 0; j < BW; j = j + 1) begin : g_lane
            wire row_end   = c_cb[j] + 1'b1 == rbytes_r;
            wire plane_end = row_end && c_r[j] + 1'b1 == rows_r;
            wire [DAW-1:0] next_plane = c_dplane[j] + pstride_r;
            assign c_cb[j+1]     = row_end ? 14'd0 : c_cb[j] + 1'b1;
            assign c_r[j+1]      = plane_end ? 12'd0 : row_end ? c_r[j] + 1'b1 : c_r[j];
            assign c_dplane[j+1] = plane_end ? next_plane : c_dplane[j];
            assign c_drow[j+1]   = plane_end ? next_plane :
                                   row_end ? c_drow[j] + {{(DAW-24){1'b0}}, stride_r} : c_drow[j];
            assign c_srow[j+1]   = plane_end ? c_srow[j] + splane_step :
                                   row_end ? c_srow[j] + {{(AW-13){1'b0}}, srow_step} : c_srow[j];

            localparam [31:0] J = j;
            assign lane_valid[j]          = rem > J;
            assign lane_dram[DAW*j +: DAW] = c_drow[j] + {{(DAW-14){1'b0}}, c_cb[j]};
            assign lane_sram[AW*j +: AW]   = c_srow[j] + {{(AW-14){1'b0}}, c_cb[j] >> ebs_r};
            assign lane_off[2*j +: 2]      = c_cb[j][1:0] & ((2'd1 << ebs_r) - 2'd1);
        end
    endgenerate
    assign last = rem <= BW32;

    always @(posedge clk) begin
        if (init) begin
            stride_r <= stride;  pstride_r <= plane_stride;  rows_r <= rows;
            rbytes_r <= row_bytes;  srow_step <= sram_row;  splane_step <= sram_plane;
            ebs_r <= ebs;  rem <= total;
            cb <= 14'd0;  r <= 12'd0;  drow <= dram;  dplane <= dram;  srow <= sram_first;
        end else if (step) begin
            rem <= rem - BW32;
            cb <= c_cb[BW];  r <= c_r[BW];  drow <= c_drow[BW];  dplane <= c_dplane[BW];
            srow <= c_srow[BW];
        end
    end
endmodule
`default_nettype wire
