// The buffer depths every unit testbench top takes as parameters (its parameter list's last
// entries; npusim.hw.rtl_params.tb_params sets them from the Target's buffer_elems).
    parameter integer IBUF_DEPTH = 4096,
    parameter integer WBUF_DEPTH = 4096,
    parameter integer ABUF_DEPTH = 4096,
    parameter integer OBUF_DEPTH = 4096
