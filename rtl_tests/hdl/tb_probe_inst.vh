// The probe every unit testbench top instantiates: its registers count the instructions taken
// and finished and their cycles (tb_probe.v), which the cocotb monitor reads.
    /* verilator lint_off PINCONNECTEMPTY */  // the cocotb monitor reads the probe's registers
    tb_probe u_probe (.clk(clk), .rst(rst), .take(start && ready), .done(done),
                      .cycle(), .n_take(), .take_cycle(), .n_done(), .done_cycle());
    /* verilator lint_on PINCONNECTEMPTY */
