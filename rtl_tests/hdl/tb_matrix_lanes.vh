// The body the matrix testbenches share (tb_matrix, tb_matrix_unit, tb_dwconv): the four
// buffers behind NI IBUF read lanes, C WBUF and C ABUF read lanes and C ABUF write lanes. The including module declares the localparam NI (its
// unit's IBUF lanes: R, or R*C for the depthwise mode), the parameters C and *_DEPTH, the
// ports of tb_unit_ports.vh and genvar g, then connects its unit to: i_addr, i_bytes (int8),
// w_addr, w_bytes (int8), ar_addr, ar_data, aw_en, aw_addr, aw_data.
    localparam integer AW = 20;
    localparam integer NRD = NI + 2 * C;

    wire [NI*AW-1:0] i_addr;
    wire [C*AW-1:0]  w_addr, ar_addr, aw_addr;
    /* verilator lint_off UNUSEDSIGNAL */  // int8 lanes: the upper 24 bits are the sign
    wire [NI*32-1:0] i_data;
    wire [C*32-1:0]  w_data;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [C*32-1:0]  ar_data, aw_data;
    wire [NI*8-1:0]  i_bytes;
    wire [C*8-1:0]   w_bytes;
    generate  // int8 buffers read sign-extended: the unit takes the low bytes
        for (g = 0; g < NI; g = g + 1) begin : g_i
            assign i_bytes[8*g +: 8] = i_data[32*g +: 8];
        end
        for (g = 0; g < C; g = g + 1) begin : g_w
            assign w_bytes[8*g +: 8] = w_data[32*g +: 8];
        end
    endgenerate
    wire [C-1:0]      aw_en;
    wire [NRD*32-1:0] rd_data;

    assign {ar_data, w_data, i_data} = rd_data;

    npu_buffers #(.IBUF_DEPTH(IBUF_DEPTH), .WBUF_DEPTH(WBUF_DEPTH), .ABUF_DEPTH(ABUF_DEPTH),
                  .OBUF_DEPTH(OBUF_DEPTH), .AW(AW), .NRD(NRD), .NWR(C)) u_bufs (
        .clk(clk),
        .rd_sel({{C{BUF_ABUF[1:0]}}, {C{BUF_WBUF[1:0]}}, {NI{BUF_IBUF[1:0]}}}),
        .rd_addr({ar_addr, w_addr, i_addr}), .rd_data(rd_data),
        .wr_sel({C{BUF_ABUF[1:0]}}), .wr_en(aw_en), .wr_addr(aw_addr), .wr_data(aw_data),
        .wr_be({C{4'hF}}));
